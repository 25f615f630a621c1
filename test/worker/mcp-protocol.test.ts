// The MCP endpoint inside workerd, driven by the real v2 client (both eras) and the v1 strict client.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, inject, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { Env } from '../../src/config.ts';
import { sha256Hex } from '../../src/lib/bytes.ts';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';

const textOf = (r: unknown) => ((r as { content?: Array<{ text?: string }> }).content ?? [])[0]?.text;

const KEY = 'mcp_test_0123456789abcdef0123456789abcdef';
const fixtureText = await encodeCatalogue(fixtureCatalogue());
const app = createApp(loadCatalogue(fixtureText));
const env: Env = { API_KEY: KEY, UPSTREAM_URL: inject('upstreamUrl'), CREDENTIAL_MODE: 'key' };
const URL_MCP = 'http://127.0.0.1:8787/mcp';
const appFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => app.fetch(new Request(input, init), env);
const auth = { Authorization: `Bearer ${KEY}` };

async function v2Client(mode: 'legacy' | { pin: string }, url = URL_MCP) {
  const client = new ClientV2({ name: 'test-v2', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new TransportV2(new URL(url), { fetch: appFetch, requestInit: { headers: auth } }));
  return client;
}

async function v1Client(url = URL_MCP) {
  const client = new ClientV1({ name: 'test-v1', version: '1.0.0' });
  await client.connect(new TransportV1(new URL(url), { fetch: appFetch, requestInit: { headers: auth } }));
  return client;
}

function rpc(body: unknown, headers: Record<string, string> = {}) {
  return appFetch(URL_MCP, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...auth, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('MCP clients', () => {
  it('v2 client pinned to 2026-07-28 lists and calls a tool', async () => {
    const client = await v2Client({ pin: '2026-07-28' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo_get', 'echo_remove']);
    expect(tools[0]?.outputSchema).toMatchObject({ type: 'object' });
    const result = await client.callTool({ name: 'echo_get', arguments: { id: 'abc', limit: 5 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ method: 'GET', url: '/echo/abc?limit=5' });
    const text = (result.content as Array<{ type: string; text?: string }>).find((b) => b.type === 'text')?.text;
    expect(JSON.parse(text ?? 'null')).toEqual(result.structuredContent);
    await client.close();
  });

  it('v2 client on the 2025 era (initialize handshake) gets the same tools', async () => {
    const client = await v2Client('legacy');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo_get', 'echo_remove']);
    const result = await client.callTool({ name: 'echo_get', arguments: { id: 'x' } });
    expect(result.structuredContent).toMatchObject({ url: '/echo/x' });
    await client.close();
  });

  it('v1 strict client lists, validates and calls', async () => {
    const client = await v1Client();
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(2);
    const result = await client.callTool({ name: 'echo_get', arguments: { id: 'a/b' } });
    // The slash is encoded, so the value stays inside its path segment.
    expect(result.structuredContent).toMatchObject({ url: '/echo/a%2Fb' });
    await client.close();
  });

  it('invalid arguments come back as an isError result the model can act on', async () => {
    const client = await v1Client();
    const result = await client.callTool({ name: 'echo_get', arguments: { limit: 500 } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    const text = (result.content as Array<{ text: string }>)[0]?.text ?? '';
    expect(text).toContain('Invalid arguments for echo_get');
    expect(text).toMatch(/id/);
    expect(text).toMatch(/limit/);
    await client.close();
  });

  it('an alias from a rename still resolves', async () => {
    const client = await v1Client();
    const result = await client.callTool({ name: 'echo_old_name', arguments: { id: 'z' } });
    expect(result.structuredContent).toMatchObject({ url: '/echo/z' });
    await client.close();
  });

  it('an unknown tool is a JSON-RPC invalid-params error', async () => {
    const client = await v1Client();
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool: no_such_tool/);
    await client.close();
  });
});

describe('slices by URL', () => {
  it('/mcp/x/<toolset> serves only that toolset', async () => {
    const client = await v1Client('http://127.0.0.1:8787/mcp/x/admin');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo_remove']);
    await client.close();
  });

  it('?readonly=1 keeps only read-only tools and refuses the others, saying the URL made the endpoint read-only', async () => {
    const client = await v2Client({ pin: '2026-07-28' }, `${URL_MCP}?readonly=1`);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo_get']);
    const refused = await client.callTool({ name: 'echo_remove', arguments: { id: 'x' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^echo_remove changes data, and this endpoint is read-only \(\?readonly=1 in its URL\)/);
    await client.close();
  });

  it('?tools= picks tools and combines with toolsets (intersection)', async () => {
    const client = await v1Client(`http://127.0.0.1:8787/mcp/x/echo+admin?tools=echo_remove`);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo_remove']);
    await client.close();
  });

  it('an unknown toolset or tool is HTTP 400 listing the valid names', async () => {
    const res = await appFetch('http://127.0.0.1:8787/mcp/x/nope', { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: '{}' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { message: string; valid: string[] };
    expect(body.valid).toEqual(['all', 'admin', 'echo']);
    expect(body.message).toContain('Unknown toolset: nope');
    expect(body.message).not.toContain('Did you mean');
    const near = await appFetch('http://127.0.0.1:8787/mcp/x/ehco', { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: '{}' });
    expect(((await near.json()) as { message: string }).message).toMatch(/^Unknown toolset: ehco\. Did you mean echo\? Valid toolset names: all, admin, echo$/);
    const res2 = await appFetch(`${URL_MCP}?tools=echo_get,bogus`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: '{}' });
    expect(res2.status).toBe(400);
    const text2 = await res2.text();
    expect(text2).toContain('bogus');
    const res3 = await appFetch(`${URL_MCP}?tools=echo_gte`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: '{}' });
    expect(await res3.text()).toContain('Unknown tool: echo_gte. Did you mean echo_get?');
  });
});

describe('HTTP edge', () => {
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

  it('refuses a request without a key with 401 and a Bearer challenge', async () => {
    const res = await appFetch(URL_MCP, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(initialize) });
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain('resource_metadata="http://127.0.0.1:8787/.well-known/oauth-protected-resource"');
    expect(await res.json()).toMatchObject({ error: 'missing_token' });
  });

  it('refuses a wrong key with 401 and does not echo it', async () => {
    const res = await rpc(initialize, { Authorization: 'Bearer mcp_test_wrongwrongwrongwrongwrongwrong00' });
    expect(res.status).toBe(401);
    const body = await res.text();
    expect(body).not.toContain('wrongwrong');
    expect(body).toContain('invalid_token');
  });

  it('refuses a foreign Host and a foreign Origin (DNS rebinding)', async () => {
    const badHost = await appFetch('http://evil.example/mcp', { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(initialize) });
    expect(badHost.status).toBe(403);
    const badOrigin = await rpc(initialize, { origin: 'http://evil.example' });
    expect(badOrigin.status).toBe(403);
    const goodOrigin = await rpc(initialize, { origin: 'http://localhost:3000' });
    expect(goodOrigin.status).toBe(200);
  });

  it('answers GET with 405 (no server-initiated stream)', async () => {
    const res = await appFetch(URL_MCP, { method: 'GET', headers: { accept: 'text/event-stream', ...auth } });
    expect(res.status).toBe(405);
  });

  it('answers malformed JSON with a JSON-RPC parse error', async () => {
    const res = await rpc('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error?: { code: number } };
    expect(body.error?.code).toBe(-32700);
  });

  it('refuses a body over 4 MiB with 413, and reads no body before the key is checked', async () => {
    const huge = JSON.stringify({ ...initialize, params: { ...initialize.params, padding: 'x'.repeat(4 * 1024 * 1024) } });
    const res = await rpc(huge);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('Payload Too Large') }, id: null });
    const unauthenticated = await appFetch(URL_MCP, { method: 'POST', headers: { 'content-type': 'application/json' }, body: huge });
    expect(unauthenticated.status).toBe(401);
  });

  it('leaves a body that is not JSON to the SDK, which answers 415', async () => {
    const res = await appFetch(URL_MCP, { method: 'POST', headers: { 'content-type': 'text/plain', accept: 'application/json, text/event-stream', ...auth }, body: 'hello' });
    expect(res.status).toBe(415);
  });

  it("serves healthz with version and the catalogue hash: SHA-256 of the header's other fields and everything after it", async () => {
    const res = await appFetch('http://127.0.0.1:8787/healthz');
    const body = (await res.json()) as { version: string; catalogue: { hash: string; tools: number } };
    expect(body.version).toMatch(/^\d+\.\d+\.\d+/);
    const end = fixtureText.indexOf('\n');
    const { hash, ...fields } = JSON.parse(fixtureText.slice(0, end)) as { hash: string };
    expect(body.catalogue.hash).toBe(hash);
    expect(hash).toBe((await sha256Hex(JSON.stringify(fields) + fixtureText.slice(end))).slice(0, 32));
    expect(body.catalogue.tools).toBe(2);
    expect(JSON.stringify(body)).not.toContain(KEY);
  });

  it('serves RFC 9728 protected-resource metadata', async () => {
    const res = await appFetch('http://127.0.0.1:8787/.well-known/oauth-protected-resource');
    expect(await res.json()).toMatchObject({ resource: 'http://127.0.0.1:8787/mcp', bearer_methods_supported: ['header'] });
  });
});
