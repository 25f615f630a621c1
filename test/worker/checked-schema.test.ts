// structuredContent is checked against the outputSchema the client was shown; the catalogue's full schema only on
// sampled calls, where a difference is logged (schema_drift) and counted, never returned as an error.
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { Catalogue } from '../../src/catalogue/types.ts';
import { SAMPLE_EVERY } from '../../src/schema-health/sampling.ts';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';

const KEY = 'mcp_test_0123456789abcdef0123456789abcdef';
const ADMIN = 'admin-secret-0123456789';
const BASE = 'http://127.0.0.1:8787';
const env = { API_KEY: KEY, UPSTREAM_URL: inject('upstreamUrl'), CREDENTIAL_MODE: 'key', ADMIN_TOKEN: ADMIN };

// echo_get answers {"method":"GET","headers":{"accept":"application/json",…},…}; this copy's full schema allows one
// other accept header only. Listings keep the top level of an outputSchema and list deeper objects as their bare
// type (src/profiles/output-bound.ts), which only loosens: its listed schema stops above `headers.accept` and accepts
// the answer, and the full one does not. 45 more reads (two required arguments each, so they rank after
// echo_strict) put the slice over Cursor's 40 tools: a hybrid list.
function strictCatalogue(): Catalogue {
  const c = fixtureCatalogue();
  const echo = c.tools.find((t) => t.name === 'echo_get')!;
  const outputSchema = { type: 'object', properties: { method: { type: 'string' }, url: { type: 'string' }, headers: { type: 'object', properties: { accept: { type: 'string', enum: ['text/never'] } } } } };
  const strict = { ...echo, name: 'echo_strict', aliases: undefined, outputSchema };
  const fillers = Array.from({ length: 45 }, (_, i) => ({
    ...echo,
    name: `filler_${String(i).padStart(2, '0')}`,
    aliases: undefined,
    inputSchema: { type: 'object', properties: { id: { type: 'string' }, other: { type: 'string' } }, required: ['id', 'other'] },
  }));
  c.tools = [...c.tools, strict, ...fillers].sort((a, b) => (a.name < b.name ? -1 : 1));
  return c;
}

const text = await encodeCatalogue(strictCatalogue());
let lines: string[] = [];
beforeEach(() => {
  lines = [];
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
});
afterEach(() => vi.restoreAllMocks());
const events = (name: string) => lines.filter((l) => l.includes(`"event":"${name}"`)).map((l) => JSON.parse(l) as Record<string, unknown>);

async function strictClient(app: ReturnType<typeof createApp>, path: string): Promise<ClientV1> {
  const client = new ClientV1({ name: 'strict', version: '1.0.0' });
  const fetchApp = async (input: string | URL | Request, init?: RequestInit) => app.fetch(new Request(input, init), env as never);
  await client.connect(new TransportV1(new URL(`${BASE}${path}`), { fetch: fetchApp, requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }));
  await client.listTools(); // the strict client validates structuredContent against this listing
  return client;
}

describe('the outputSchema structuredContent is checked against', () => {
  it('tools mode: the listed one; the full one on the first call and 1 in SAMPLE_EVERY, logged and counted as drift', async () => {
    const app = createApp(loadCatalogue(text));
    const client = await strictClient(app, '/mcp/x/all');
    try {
      for (let i = 0; i <= SAMPLE_EVERY; i++) {
        const r = (await client.callTool({ name: 'echo_strict', arguments: { id: `n${i}` } })) as { isError?: boolean; structuredContent?: { method: string } };
        expect(r.isError).toBeUndefined();
        expect(r.structuredContent?.method).toBe('GET');
      }
    } finally {
      await client.close();
    }
    const drift = events('schema_drift');
    expect(drift).toHaveLength(2); // call 1 and call SAMPLE_EVERY + 1
    expect(drift[0]).toMatchObject({ tool: 'echo_strict' });
    expect(String(drift[0]!.errors)).toMatch(/accept/);
    expect(events('tool_call').every((e) => e.outcome === 'ok')).toBe(true);
    const health = (await (await app.fetch(new Request(`${BASE}/admin/schema-health`, { headers: { authorization: `Bearer ${ADMIN}` } }), env as never)).json()) as { tools: Array<{ name: string; drift: number; mismatches: number }> };
    expect(health.tools.find((t) => t.name === 'echo_strict')).toMatchObject({ drift: 2, mismatches: 0 });
  });

  it('content-only profiles (gemini): the default listing\'s, so the data still arrives as text, not as an error', async () => {
    const app = createApp(loadCatalogue(text));
    const client = await strictClient(app, '/mcp/x/all?client=gemini');
    try {
      const r = (await client.callTool({ name: 'echo_strict', arguments: { id: 'g' } })) as { isError?: boolean; content: Array<{ text: string }>; structuredContent?: unknown };
      expect(r.isError).toBeUndefined();
      expect(r.structuredContent).toBeUndefined();
      expect(JSON.parse(r.content[0]!.text)).toMatchObject({ method: 'GET' });
    } finally {
      await client.close();
    }
  });

  it('hybrid lists: the one the hybrid list advertised for a listed tool', async () => {
    const app = createApp(loadCatalogue(text));
    const client = await strictClient(app, '/mcp/x/all?client=cursor');
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).slice(0, 3)).toEqual(['search_tools', 'describe_tool', 'call_tool']);
      const listed = tools.find((t) => t.name === 'echo_strict');
      // Listed, with the bounded schema (no `headers.accept` enum); the catalogue's own would refuse the echo.
      expect(listed?.outputSchema).toBeDefined();
      expect(JSON.stringify(listed?.outputSchema)).not.toContain('text/never');
      const r = (await client.callTool({ name: 'echo_strict', arguments: { id: 'h' } })) as { isError?: boolean; structuredContent?: Record<string, unknown> };
      expect(r.isError).toBeUndefined();
      expect(r.structuredContent).toMatchObject({ method: 'GET' });
      expect(r.structuredContent).not.toHaveProperty('as_returned');
      // An unlisted tool of the same slice is checked as from call_tool: against the catalogue's own schema.
      expect(tools.some((t) => t.name === 'filler_44')).toBe(false);
      const unlisted = (await client.callTool({ name: 'filler_44', arguments: { id: 'u', other: 'o' } })) as { structuredContent?: Record<string, unknown> };
      expect(unlisted.structuredContent).toMatchObject({ method: 'GET' });
    } finally {
      await client.close();
    }
    expect(events('tool_call').filter((e) => e.tool === 'echo_strict').map((e) => e.outcome)).toEqual(['ok']);
  });

  it("discovery's call_tool: the catalogue's own, which describe_tool hands out", async () => {
    const app = createApp(loadCatalogue(text));
    const client = await strictClient(app, '/mcp/discover');
    try {
      // Checked against the full schema, the echo fails it; the call succeeded, so the data goes beside the empty
      // structured result with a note instead of an error (src/upstream/beside-schema.ts).
      const r = (await client.callTool({ name: 'call_tool', arguments: { name: 'echo_strict', arguments: { id: 'd' } } })) as { isError?: boolean; structuredContent?: Record<string, unknown> };
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent?.as_returned).toMatchObject({ method: 'GET' });
      expect(String(r.structuredContent?.note)).toMatch(/did not match the declared output schema of tool echo_strict/);
    } finally {
      await client.close();
    }
    expect(events('schema_drift')).toHaveLength(0);
  });
});
