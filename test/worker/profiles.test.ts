// Client profiles (?client= or inferred from clientInfo.name) inside workerd, driven by real v1/v2 MCP clients.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Ajv from 'ajv';
import { describe, expect, inject, it } from 'vitest';
import catalogueText from 'catalog-data';
import { createApp } from '../../src/app.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import type { Catalogue, CatalogueTool } from '../../src/catalogue/types.ts';
import type { Env } from '../../src/config.ts';
import { inferProfile, PROFILES } from '../../src/profiles/profiles.ts';
import { viewOf } from '../../src/profiles/view.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';

const KEY = 'mcp_test_0123456789abcdef0123456789abcdef';
const BASE = 'http://127.0.0.1:8787';
const env: Env = { API_KEY: KEY, UPSTREAM_URL: inject('upstreamUrl'), CREDENTIAL_MODE: 'key' };
const auth = { Authorization: `Bearer ${KEY}` };

// A 45-char name (over Cursor's and Claude's budgets), and an inputSchema with $defs/$ref and additionalProperties.
const LONG = 'echo_get_with_a_rather_long_generated_name_xy';
function profileCatalogue(): Catalogue {
  const c = fixtureCatalogue();
  const echo = c.tools[0]!;
  const long: CatalogueTool = { ...echo, name: LONG, aliases: undefined, toolsets: ['echo'] };
  const refs: CatalogueTool = {
    ...echo,
    name: 'echo_refs',
    aliases: undefined,
    title: 'Echo with refs',
    inputSchema: {
      type: 'object',
      properties: { id: { $ref: '#/$defs/Id' }, labels: { type: 'object', additionalProperties: { type: 'string' } }, tags: { type: 'array' } },
      required: ['id'],
      $defs: { Id: { type: 'string', description: 'Item id' } },
    },
  };
  c.tools = [...c.tools, long, refs].sort((a, b) => (a.name < b.name ? -1 : 1));
  return c;
}

const loaded = loadCatalogue(await encodeCatalogue(profileCatalogue()));
const app = createApp(loaded);
const appFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => app.fetch(new Request(input, init), env);

async function v1(url: string, name = 'test-v1') {
  const client = new ClientV1({ name, version: '1.0.0' });
  await client.connect(new TransportV1(new URL(url), { fetch: appFetch, requestInit: { headers: auth } }));
  return client;
}

async function v2(url: string, mode: 'legacy' | { pin: string }, name = 'test-v2', fetchImpl = appFetch) {
  const client = new ClientV2({ name, version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new TransportV2(new URL(url), { fetch: fetchImpl, requestInit: { headers: auth } }));
  return client;
}

const walk = (node: unknown, visit: (key: string, value: unknown) => void): void => {
  if (Array.isArray(node)) node.forEach((n) => walk(n, visit));
  else if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) (visit(k, v), walk(v, visit));
};

describe('client profiles', () => {
  it('?client=gemini: no $ref/$defs/additionalProperties, no outputSchema, data in content only', async () => {
    const client = await v1(`${BASE}/mcp?client=gemini`);
    const { tools } = await client.listTools();
    const keys = new Set<string>();
    walk(tools, (k) => keys.add(k));
    for (const k of ['$ref', '$defs', 'definitions', 'additionalProperties', 'outputSchema']) expect(keys.has(k)).toBe(false);
    expect(tools.find((t) => t.name === 'echo_refs')?.inputSchema.properties).toMatchObject({ id: { type: 'string' } });
    const result = await client.callTool({ name: 'echo_get', arguments: { id: 'g' } });
    expect(result.structuredContent).toBeUndefined();
    const text = (result.content as Array<{ type: string; text: string }>).find((b) => b.type === 'text')?.text ?? '';
    expect(JSON.parse(text)).toMatchObject({ url: '/echo/g' });
    await client.close();
  });

  it('?client=vscode: every inputSchema is draft-07 valid and uses definitions, not $defs', async () => {
    const client = await v1(`${BASE}/mcp?client=vscode`);
    const { tools } = await client.listTools();
    const ajv = new Ajv({ strict: false });
    for (const t of tools) expect(ajv.validateSchema(t.inputSchema), `${t.name}: ${ajv.errorsText()}`).toBe(true);
    const refs = tools.find((t) => t.name === 'echo_refs')!.inputSchema as Record<string, unknown>;
    expect(refs.$defs).toBeUndefined();
    expect(refs.definitions).toMatchObject({ Id: { type: 'string' } });
    expect(JSON.stringify(refs)).toContain('#/definitions/Id');
    // Arrays always carry items (OpenAI and VS Code reject arrays without them).
    expect((refs.properties as Record<string, Record<string, unknown>>).tags?.items).toEqual({});
    const result = await client.callTool({ name: 'echo_refs', arguments: { id: 'v' } });
    expect(result.structuredContent).toMatchObject({ url: '/echo/v' });
    await client.close();
  });

  it('one name per tool: every profile lists the catalogue name unchanged (45 characters included) and calls it; an alias still works', async () => {
    for (const id of ['default', 'cursor', 'claude', 'openai', 'gemini', 'vscode'] as const) {
      const client = await v1(`${BASE}/mcp?client=${id}`);
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      expect(names, id).toEqual([...loaded.names()].sort());
      const call = async (name: string, idArg: string) => {
        const r = await client.callTool({ name, arguments: { id: idArg } });
        const text = (r.content as Array<{ type: string; text: string }>).find((b) => b.type === 'text')?.text ?? '';
        return (r.structuredContent ?? JSON.parse(text)) as { url: string };
      };
      expect((await call(LONG, 'n')).url, id).toBe('/echo/n');
      expect((await call('echo_old_name', 'm')).url, id).toBe('/echo/m');
      await client.close();
    }
  });

  it('an unknown ?client= is HTTP 400 listing the valid profiles', async () => {
    const res = await appFetch(`${BASE}/mcp?client=netscape`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...auth }, body: '{}' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { valid: string[]; message: string };
    expect(body.valid).toEqual(['cursor', 'claude', 'openai', 'gemini', 'vscode']);
    expect(body.message).toContain('netscape');
  });

  it('infers the profile from clientInfo.name: per request on 2026-07-28 (_meta), at initialize on the 2025 era', async () => {
    expect(inferProfile('gemini-cli-mcp-client').id).toBe('gemini');
    expect(inferProfile('Visual Studio Code').id).toBe('vscode');
    expect(inferProfile('claude-ai').id).toBe('claude');
    expect(inferProfile('cursor-vscode').id).toBe('cursor');
    expect(inferProfile('some-client').id).toBe('default');
    // 2026-07-28: every request names its client, so tools/list follows the Gemini profile.
    const modern = await v2(`${BASE}/mcp`, { pin: '2026-07-28' }, 'gemini-cli-mcp-client');
    const tools = (await modern.listTools()).tools;
    expect(tools.every((t) => t.outputSchema === undefined)).toBe(true);
    const result = await modern.callTool({ name: 'echo_get', arguments: { id: 'i' } });
    expect(result.structuredContent).toBeUndefined();
    await modern.close();
    // A default client on the same URL keeps typed outputs.
    const plain = await v2(`${BASE}/mcp`, { pin: '2026-07-28' }, 'test-v2');
    expect((await plain.listTools()).tools.find((t) => t.name === 'echo_get')?.outputSchema).toMatchObject({ type: 'object' });
    await plain.close();
  });

  it('views are computed once per isolate per (slice, profile)', () => {
    const slice = sliceOf(loaded, {});
    expect(viewOf(loaded, slice, PROFILES.gemini)).toBe(viewOf(loaded, slice, PROFILES.gemini));
    expect(viewOf(loaded, slice, PROFILES.gemini)).not.toBe(viewOf(loaded, slice, PROFILES.default));
    expect(viewOf(loaded, sliceOf(loaded, {}), PROFILES.default).tools).toBe(viewOf(loaded, slice, PROFILES.default).tools);
  });

  it('compact listings only loosen: a real result still matches the advertised outputSchema in the strict client', async () => {
    const client = await v1(`${BASE}/mcp`);
    const { tools } = await client.listTools();
    const echo = tools.find((t) => t.name === 'echo_get')!;
    expect(echo.annotations).toEqual({ title: 'Echo a request', readOnlyHint: true, destructiveHint: false, openWorldHint: true });
    const result = await client.callTool({ name: 'echo_get', arguments: { id: 'c' } });
    expect(result.structuredContent).toMatchObject({ url: '/echo/c' });
    await client.close();
  });
});

describe('tool-count budgets and cache hints (embedded GitHub catalogue)', () => {
  // The v1 client compiles every listed outputSchema with Ajv: ~13 s for the whole catalogue on an idle 2-core box.
  const WHOLE_CATALOGUE_V1_MS = 120_000;
  const github = createApp(loadCatalogue(catalogueText));
  const ghFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => github.fetch(new Request(input, init), env);

  it('?mode=tools keeps the full list: Cursor on the whole catalogue gets every tool and a warning line; a small slice neither', async () => {
    const big = new ClientV1({ name: 'cursor-vscode', version: '1.0.0' });
    await big.connect(new TransportV1(new URL(`${BASE}/mcp/x/all?mode=tools`), { fetch: ghFetch, requestInit: { headers: auth } }));
    expect(big.getInstructions()).toMatch(/Warning: this endpoint lists 1\d{3} tools but Cursor uses at most 40/);
    expect((await big.listTools()).tools.length).toBe(loadCatalogue(catalogueText).count);
    await big.close();
    const small = new ClientV1({ name: 'x', version: '1.0.0' });
    await small.connect(new TransportV1(new URL(`${BASE}/mcp/x/pulls?client=cursor&mode=tools`), { fetch: ghFetch, requestInit: { headers: auth } }));
    expect(small.getInstructions()).not.toContain('Warning');
    expect((await small.listTools()).tools.length).toBeLessThanOrEqual(40);
    await small.close();
  }, WHOLE_CATALOGUE_V1_MS);

  it('with the recommended DEFAULT_TOOLSETS, bare /mcp serves the default toolsets and /mcp/x/all the whole catalogue', async () => {
    const withDefaults: Env = { ...env, DEFAULT_TOOLSETS: 'repos_core,issues_core,pulls,search' };
    const f = async (input: string | URL | Request, init?: RequestInit) => github.fetch(new Request(input, init), withDefaults);
    const count = async (path: string) => {
      const client = new ClientV1({ name: 'strict', version: '1.0.0' });
      await client.connect(new TransportV1(new URL(`${BASE}${path}`), { fetch: f, requestInit: { headers: auth } }));
      const n = (await client.listTools()).tools.length;
      await client.close();
      return n;
    };
    expect(await count('/mcp')).toBe(101);
    expect(await count('/mcp/x/all')).toBe(loadCatalogue(catalogueText).count);
  }, WHOLE_CATALOGUE_V1_MS);

  it('2026-07-28 tools/list carries cache hints (ttlMs, cacheScope); the 2025 era does not', async () => {
    const bodies: string[] = [];
    const capture = async (input: string | URL | Request, init?: RequestInit) => {
      const res = await ghFetch(input, init);
      const request = new Request(input, init);
      if (request.method === 'POST' && String(init?.body ?? '').includes('"tools/list"')) bodies.push(await res.clone().text());
      return res;
    };
    const modern = await v2(`${BASE}/mcp/x/pulls`, { pin: '2026-07-28' }, 'test-v2', capture);
    await modern.listTools();
    await modern.close();
    const legacy = await v2(`${BASE}/mcp/x/pulls`, 'legacy', 'test-v2', capture);
    await legacy.listTools();
    await legacy.close();
    expect(bodies).toHaveLength(2);
    const [m, l] = bodies.map((b) => JSON.parse(b.startsWith('{') ? b : b.split('\n').find((x) => x.startsWith('data:'))!.slice(5)) as { result: Record<string, unknown> });
    expect(m!.result).toMatchObject({ ttlMs: 300_000, cacheScope: 'private' });
    expect(l!.result.ttlMs).toBeUndefined();
  });
});
