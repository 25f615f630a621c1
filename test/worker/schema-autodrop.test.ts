// Schemas that heal themselves (src/schema-health/autodrop.ts): repeated output-schema mismatches put a tool on the
// runtime drop list with reason "auto"; tools/list (ready bytes too) stops advertising its outputSchema and the tool
// then returns its data as plain JSON (before, a mismatching answer is a success carrying
// its data beside the schema with a note, never isError). Counted in the Durable Object, or per isolate without that binding.
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { env as bindings } from 'cloudflare:workers';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { DROPS_KEY, parseDrops } from '../../src/schema-health/drop-list.ts';
import { autoDropSettings, countMismatch } from '../../src/schema-health/mismatch-window.ts';
import type { Catalogue } from '../../src/catalogue/types.ts';
import type { Env } from '../../src/config.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';

const KEY = 'mcp_test_0123456789abcdef0123456789abcdef';
const ADMIN = 'admin-secret-0123456789';
const URL_MCP = 'http://127.0.0.1:8787/mcp';
const TOOL = 'pet_get';

/** The fixture catalogue plus a tool whose upstream (/json/mismatch) answers {id: "not-a-number", name: 5}. */
function catalogue(): Catalogue {
  const c = fixtureCatalogue();
  for (const name of [TOOL, ...TWINS]) c.tools.push(drifter(name));
  return c;
}

const TWINS = ['pet_twin_a', 'pet_twin_b'];

function drifter(name: string): Catalogue['tools'][number] {
  return {
    name,
    title: 'Get a pet',
    description: 'Its upstream has drifted from the schema.',
    inputSchema: { type: 'object', properties: {} },
    outputSchema: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } },
    annotations: { title: 'Get a pet', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    toolsets: ['echo'],
    http: { method: 'GET', path: '/json/mismatch', params: [], accept: ['application/json'] },
  };
}

// A KV namespace in memory, for the isolate fallback (no Durable Object binding in these envs).
class MemoryKv {
  values = new Map<string, string>();
  async get(key: string): Promise<string | null> {
    return this.values.get(key) ?? null;
  }
  async put(key: string, value: string): Promise<void> {
    this.values.set(key, value);
  }
}

const catalogueText = await encodeCatalogue(catalogue());

/** One isolate: its own parsed catalogue and app, so its drop list state is its own. */
function isolate(env: Env) {
  const app = createApp(loadCatalogue(catalogueText));
  const fetcher = async (input: string | URL | Request, init?: RequestInit) => app.fetch(new Request(input, init), env);
  const v1 = async () => {
    const client = new ClientV1({ name: 'autodrop-v1', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(URL_MCP), { fetch: fetcher, requestInit: { headers: { authorization: `Bearer ${KEY}` } } }));
    return client;
  };
  /** The listed tool, by a fresh v1 strict client (which compiles every outputSchema). */
  const listed = async () => {
    const client = await v1();
    try {
      return (await client.listTools()).tools.find((t) => t.name === TOOL)!;
    } finally {
      await client.close();
    }
  };
  const call = async (name = TOOL) => {
    const client = await v1();
    try {
      await client.listTools();
      return await client.callTool({ name, arguments: {} });
    } finally {
      await client.close();
    }
  };
  return { fetcher, listed, call };
}

const baseEnv = (extra: Partial<Env>): Env => ({ API_KEY: KEY, UPSTREAM_URL: inject('upstreamUrl'), CREDENTIAL_MODE: 'key', ...extra });
/** A success that carries a body its schema does not describe, beside the schema with the mismatch note. */
const mismatched = (r: unknown) => {
  const { isError, structuredContent } = r as { isError?: boolean; structuredContent?: { note?: string; as_returned?: unknown } };
  return !isError && structuredContent?.as_returned !== undefined && (structuredContent.note ?? '').includes('did not match the declared output schema');
};
const textOf = (r: unknown) => (((r as { content?: Array<{ text?: string }> }).content ?? [])[0]?.text ?? '');

afterEach(() => vi.restoreAllMocks());

describe('automatic schema drops, counted per isolate (no Durable Object binding)', () => {
  it('the third mismatch drops the schema: KV entry with reason auto and the first path, a log line, tools/list and ready bytes without it, and the tool answers with its plain data', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    const kv = new MemoryKv();
    const one = isolate(baseEnv({ CONFIG: kv as never, SCHEMA_AUTODROP_THRESHOLD: '3' }));
    expect((await one.listed()).outputSchema).toBeDefined();
    for (let i = 1; i <= 2; i++) {
      const r = await one.call();
      expect(mismatched(r)).toBe(true);
      expect(textOf(r)).toContain('did not match the declared output schema');
      expect(kv.values.has(DROPS_KEY)).toBe(false);
    }
    expect(mismatched(await one.call())).toBe(true);
    const stored = parseDrops(kv.values.get(DROPS_KEY) ?? null).list.tools[TOOL];
    expect(stored).toMatchObject({ reason: 'auto', path: '/id' });
    expect(stored?.detail).toMatch(/^3 responses failed the outputSchema within 600 s; first: \/id: /);
    const drops = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event === 'schema_auto_drop');
    expect(drops).toEqual([expect.objectContaining({ tool: TOOL, path: '/id', counter: 'isolate', stored: 'written' })]);

    expect((await one.listed()).outputSchema).toBeUndefined();
    const after = await one.call();
    expect(after.isError).toBeFalsy();
    expect(after.structuredContent).toBeUndefined();
    expect(JSON.parse(textOf(after))).toEqual({ id: 'not-a-number', name: 5 });

    // Plain tools/list, answered first by the SDK and then from ready bytes: neither advertises the schema.
    for (let i = 0; i < 2; i++) {
      const res = await one.fetcher(URL_MCP, {
        method: 'POST',
        headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ method: 'tools/list', jsonrpc: '2.0', id: 3 }),
      });
      const text = await res.text();
      const body = JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text) as { result: { tools: Array<{ name: string; outputSchema?: unknown }> } };
      const tool = body.result.tools.find((t) => t.name === TOOL)!;
      expect(tool).toBeDefined();
      expect(tool.outputSchema).toBeUndefined();
    }
  });

  it('one mismatch never drops a schema: a threshold of 1 counts as 2', async () => {
    expect(autoDropSettings({ SCHEMA_AUTODROP_THRESHOLD: '1' })?.threshold).toBe(2);
    const kv = new MemoryKv();
    const one = isolate(baseEnv({ CONFIG: kv as never, SCHEMA_AUTODROP_THRESHOLD: '1' }));
    expect(mismatched(await one.call())).toBe(true);
    expect(kv.values.has(DROPS_KEY)).toBe(false);
    expect((await one.listed()).outputSchema).toBeDefined();
    await one.call();
    expect(parseDrops(kv.values.get(DROPS_KEY) ?? null).list.tools[TOOL]?.reason).toBe('auto');
  });

  it('can be switched off', async () => {
    for (const off of ['0', 'off']) expect(autoDropSettings({ SCHEMA_AUTODROP_THRESHOLD: off })).toBeUndefined();
    const kv = new MemoryKv();
    const one = isolate(baseEnv({ CONFIG: kv as never, SCHEMA_AUTODROP_THRESHOLD: 'off' }));
    for (let i = 0; i < 6; i++) expect(mismatched(await one.call())).toBe(true);
    expect(kv.values.has(DROPS_KEY)).toBe(false);
    expect((await one.listed()).outputSchema).toBeDefined();
  });

  it('counts only mismatches inside the window', () => {
    const s = { threshold: 3, windowMs: 60_000 };
    let w = countMismatch([], { at: 0, error: '/a: x' }, s).window;
    w = countMismatch(w, { at: 30_000, error: '/b: x' }, s).window;
    const third = countMismatch(w, { at: 70_000, error: '/c: x' }, s);
    expect(third.reached).toBe(false);
    expect(third.window.map((m) => m.error)).toEqual(['/b: x', '/c: x']);
    const fourth = countMismatch(third.window, { at: 80_000, error: '/d: x' }, s);
    expect(fourth.reached).toBe(true);
    expect(autoDropSettings({})).toEqual({ threshold: 5, windowMs: 600_000 });
  });
});

describe('automatic schema drops, counted in the Durable Object', () => {
  it('mismatches from two isolates add up; both stop advertising the schema (TTL 0); /admin shows the auto drop; a restore brings it back', async () => {
    const env = baseEnv({
      KEYS: bindings.KEYS,
      SCHEMA_MISMATCH_COUNTER: bindings.SCHEMA_MISMATCH_COUNTER,
      SCHEMA_AUTODROP_THRESHOLD: '3',
      SCHEMA_DROPS_TTL_SECONDS: '0',
      ADMIN_TOKEN: ADMIN,
    });
    const a = isolate(env);
    const b = isolate(env);
    expect((await b.listed()).outputSchema).toBeDefined();
    expect(mismatched(await a.call())).toBe(true);
    expect(mismatched(await b.call())).toBe(true);
    expect(await bindings.KEYS!.get(DROPS_KEY)).toBeNull();
    expect(mismatched(await a.call())).toBe(true);
    expect(parseDrops(await bindings.KEYS!.get(DROPS_KEY)).list.tools[TOOL]).toMatchObject({ reason: 'auto', path: '/id' });
    for (const one of [a, b]) {
      expect((await one.listed()).outputSchema).toBeUndefined();
      expect((await one.call()).structuredContent).toBeUndefined();
    }

    const health = (await (await b.fetcher('http://127.0.0.1:8787/admin/schema-health', { headers: { authorization: `Bearer ${ADMIN}` } })).json()) as any;
    expect(health.autoDrop).toMatchObject({ enabled: true, threshold: 3, windowSeconds: 600, counter: 'durable_object' });
    expect(health.autoDrop.tools).toEqual([expect.objectContaining({ name: TOOL, mismatchPath: '/id' })]);
    expect(health.tools.find((t: any) => t.name === TOOL)).toMatchObject({ outputSchema: 'dropped_runtime', dropReason: 'auto', mismatchPath: '/id' });

    // What `npm run schema -- restore` does: the entry leaves the stored list; the counter starts afresh.
    await bindings.KEYS!.put(DROPS_KEY, JSON.stringify({ tools: {} }));
    for (const one of [a, b]) expect((await one.listed()).outputSchema).toBeDefined();
    expect(mismatched(await a.call())).toBe(true);
    expect(await bindings.KEYS!.get(DROPS_KEY)).toBe(JSON.stringify({ tools: {} }));
  });

  it('two tools reaching the threshold at once both end up on the stored list', async () => {
    const env = baseEnv({ KEYS: bindings.KEYS, SCHEMA_MISMATCH_COUNTER: bindings.SCHEMA_MISMATCH_COUNTER, SCHEMA_AUTODROP_THRESHOLD: '2' });
    const one = isolate(env);
    for (const name of TWINS) expect(mismatched(await one.call(name))).toBe(true);
    await Promise.all(TWINS.map((name) => one.call(name)));
    const stored = parseDrops(await bindings.KEYS!.get(DROPS_KEY)).list.tools;
    for (const name of TWINS) expect(stored[name]?.reason).toBe('auto');
  });
});
