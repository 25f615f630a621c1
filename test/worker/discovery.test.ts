// Typed discovery mode (/mcp/discover, ?mode=discover) inside workerd, with real v1 (strict) and v2 clients.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, inject, it } from 'vitest';
import catalogueText from 'catalog-data';
import { createApp } from '../../src/app.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import type { Catalogue, CatalogueTool, JsonSchema } from '../../src/catalogue/types.ts';
import { validate } from '../../src/catalogue/validator.ts';
import type { Env } from '../../src/config.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';

const KEY = 'mcp_test_0123456789abcdef0123456789abcdef';
const BASE = 'http://127.0.0.1:8787';
const env: Env = { API_KEY: KEY, UPSTREAM_URL: inject('upstreamUrl'), CREDENTIAL_MODE: 'key' };
const auth = { Authorization: `Bearer ${KEY}` };

// The fixture plus a tool whose JSON result is an array (wrapped as {result: [...]}).
function discoveryCatalogue(): Catalogue {
  const c = fixtureCatalogue();
  const list: CatalogueTool = {
    name: 'items_list',
    title: 'List items',
    description: 'Lists the items.',
    inputSchema: { type: 'object', properties: {} },
    outputSchema: { type: 'object', properties: { result: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] } } }, required: ['result'] },
    outputWrapped: true,
    annotations: { title: 'List items', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    toolsets: ['echo'],
    http: { method: 'GET', path: '/json/array', params: [], accept: ['application/json'] },
  };
  c.tools = [...c.tools, list].sort((a, b) => (a.name < b.name ? -1 : 1));
  return c;
}

const app = createApp(loadCatalogue(await encodeCatalogue(discoveryCatalogue())));
const appFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => app.fetch(new Request(input, init), env);
const github = createApp(loadCatalogue(catalogueText));
const ghFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => github.fetch(new Request(input, init), env);

type Fetch = typeof appFetch;
async function v1(url: string, fetchImpl: Fetch = appFetch) {
  const client = new ClientV1({ name: 'strict', version: '1.0.0' });
  await client.connect(new TransportV1(new URL(url), { fetch: fetchImpl, requestInit: { headers: auth } }));
  return client;
}
async function v2(url: string, mode: 'legacy' | { pin: string }, fetchImpl: Fetch = appFetch) {
  const client = new ClientV2({ name: 'test-v2', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new TransportV2(new URL(url), { fetch: fetchImpl, requestInit: { headers: auth } }));
  return client;
}
type AnyClient = Awaited<ReturnType<typeof v1>> | Awaited<ReturnType<typeof v2>>;
const call = async (client: AnyClient, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: Record<string, unknown>; content: Array<{ type: string; text?: string }> };

describe('discovery mode', () => {
  it('/mcp/discover lists the three meta-tools; the strict client accepts them', async () => {
    const client = await v1(`${BASE}/mcp/discover`);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['call_tool', 'describe_tool', 'search_tools']);
    // call_tool has no fixed outputSchema: its structured result is the inner tool's.
    expect(tools.find((t) => t.name === 'call_tool')?.outputSchema).toBeUndefined();
    expect(client.getInstructions()).toContain('search_tools');
    await client.close();
  });

  for (const era of ['v1 (2025)', 'v2 2026-07-28', 'v2 legacy'] as const) {
    it(`${era}: call_tool's structuredContent matches the outputSchema describe_tool returned`, async () => {
      const url = `${BASE}/mcp?mode=discover`;
      const client = era === 'v1 (2025)' ? await v1(url) : await v2(url, era === 'v2 legacy' ? 'legacy' : { pin: '2026-07-28' });
      for (const [name, args] of [['echo_get', { id: 'd1' }], ['items_list', {}]] as const) {
        const described = await call(client, 'describe_tool', { name });
        expect(described.isError).toBeFalsy();
        const schema = described.structuredContent!.outputSchema as JsonSchema;
        expect(schema).toMatchObject({ type: 'object' });
        expect(described.structuredContent!.inputSchema).toMatchObject({ type: 'object' });
        const result = await call(client, 'call_tool', { name, arguments: args });
        expect(result.isError).toBeFalsy();
        expect(validate(schema, result.structuredContent).errors).toEqual([]);
        // The text block carries the same data for content-only readers.
        expect(JSON.parse(result.content.find((b) => b.type === 'text')!.text!)).toEqual(result.structuredContent);
      }
      const listed = await call(client, 'call_tool', { name: 'items_list', arguments: {} });
      expect(listed.structuredContent).toEqual({ result: [{ id: 1 }, { id: 2 }] });
      await client.close();
    });
  }

  it('search_tools ranks by name, title and summary', async () => {
    const client = await v1(`${BASE}/mcp/discover`);
    const r = await call(client, 'search_tools', { query: 'echo a request' });
    const results = r.structuredContent!.results as Array<{ name: string; title: string; summary: string }>;
    expect(results[0]).toEqual({ name: 'echo_get', title: 'Echo a request', summary: 'Returns what the upstream received.' });
    expect(((await call(client, 'search_tools', { query: 'list items' })).structuredContent!.results as Array<{ name: string }>)[0]!.name).toBe('items_list');
    expect((await call(client, 'search_tools', { query: 'echo', toolset: 'admin' })).structuredContent!.results).toMatchObject([{ name: 'echo_remove' }]);
    const bad = await call(client, 'search_tools', { query: 'x', toolset: 'nope' });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]!.text).toContain('Valid toolsets: admin, echo');
    await client.close();
  });

  it('call_tool validates arguments through the tools/call path and respects the slice', async () => {
    const client = await v1(`${BASE}/mcp/x/echo?mode=discover`);
    const invalid = await call(client, 'call_tool', { name: 'echo_get', arguments: { limit: 500 } });
    expect(invalid.isError).toBe(true);
    expect(invalid.structuredContent).toBeUndefined();
    expect(invalid.content[0]!.text).toContain('Invalid arguments for echo_get');
    // echo_remove is outside /mcp/x/echo: refused by name, saying which slice refused it; never found by search.
    const outside = await call(client, 'call_tool', { name: 'echo_remove', arguments: { id: 'x' } });
    expect(outside.isError).toBe(true);
    expect(outside.content[0]!.text).toBe('echo_remove is outside this endpoint, which serves the toolsets echo. Use search_tools to find an operation you can call. It belongs to the toolset admin.');
    const described = await call(client, 'describe_tool', { name: 'echo_remove' });
    expect(described.isError).toBe(true);
    expect(described.content[0]!.text).toMatch(/^echo_remove is outside this endpoint/);
    expect((await call(client, 'call_tool', { name: 'no_such_tool', arguments: {} })).content[0]!.text).toBe('Unknown tool: no_such_tool. Use search_tools to find tool names.');
    const found = (await call(client, 'search_tools', { query: 'delete echo route' })).structuredContent!.results as Array<{ name: string }>;
    expect(found.map((h) => h.name)).not.toContain('echo_remove');
    // Aliases resolve like in tools/call.
    expect((await call(client, 'call_tool', { name: 'echo_old_name', arguments: { id: 'al' } })).structuredContent).toMatchObject({ url: '/echo/al' });
    await client.close();
  });

  it('gemini discovery: content only (no outputSchemas, no structuredContent)', async () => {
    const client = await v1(`${BASE}/mcp/discover?client=gemini`);
    const { tools } = await client.listTools();
    expect(tools.every((t) => t.outputSchema === undefined)).toBe(true);
    const r = await call(client, 'call_tool', { name: 'echo_get', arguments: { id: 'gm' } });
    expect(r.structuredContent).toBeUndefined();
    expect(JSON.parse(r.content[0]!.text!)).toMatchObject({ url: '/echo/gm' });
    expect((await call(client, 'describe_tool', { name: 'echo_get' })).structuredContent).toBeUndefined();
    await client.close();
  });
});

describe('discovery over the embedded GitHub catalogue', () => {
  it('finds real operations and describes them with schemas the strict validator accepts', async () => {
    const client = await v1(`${BASE}/mcp/discover`, ghFetch);
    const top = async (query: string) => ((await call(client, 'search_tools', { query })).structuredContent!.results as Array<{ name: string }>).slice(0, 3).map((h) => h.name);
    expect(await top('list open pull requests')).toContain('pulls_list');
    expect(await top('create an issue comment')).toContain('issues_create_comment');
    const d = await call(client, 'describe_tool', { name: 'pulls_list' });
    expect(d.structuredContent!.inputSchema).toMatchObject({ properties: { owner: { type: 'string' }, state: { enum: ['open', 'closed', 'all'] } } });
    expect(d.structuredContent!.outputSchema).toMatchObject({ type: 'object', properties: { result: { type: ['array', 'null'] } } });
    await client.close();
  });
});
