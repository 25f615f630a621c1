// tools/call fast path: differential tests against the SDK. For each protocol version and profile, the first plain
// call per (tool, result shape) is answered by the SDK (the proof), later ones by the fast path; every answer must be
// byte-identical, the tool must run once per request, and requests the fast path does not take (unknown tool,
// invalid params, _meta/progress) must get the SDK's own answer.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import type { Catalogue, CatalogueTool } from '../../src/catalogue/types.ts';
import { readConfig, type Env } from '../../src/config.ts';
import { PROFILES } from '../../src/profiles/profiles.ts';
import { viewOf } from '../../src/profiles/view.ts';
import { readyCallStates, readyToolsCall } from '../../src/protocol/ready-tools-call.ts';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';

const KEY = 'mcp_test_0123456789abcdef0123456789abcdef';
const BASE = 'http://127.0.0.1:8787';
// Automatic schema drops off: the mismatch case repeats on purpose, and a drop would change the catalogue mid-test.
const env: Env = { API_KEY: KEY, UPSTREAM_URL: inject('upstreamUrl'), CREDENTIAL_MODE: 'key', SCHEMA_AUTODROP_THRESHOLD: 'off' };
const VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2026-07-28'];

const readOnly = (title: string): CatalogueTool['annotations'] => ({ title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true });

// The fixture plus a wrapped JSON array, an upstream 404 (isError), a schema mismatch (isError with data) and an image.
function callCatalogue(): Catalogue {
  const c = fixtureCatalogue();
  const tool = (name: string, path: string, extra: Partial<CatalogueTool> = {}): CatalogueTool => ({
    name,
    title: name,
    description: `Calls ${path}.`,
    inputSchema: { type: 'object', properties: {} },
    annotations: readOnly(name),
    toolsets: ['echo'],
    http: { method: 'GET', path, params: [], accept: ['application/json'] },
    ...extra,
  });
  const object = { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } };
  c.tools = [
    ...c.tools,
    tool('items_list', '/json/array', { outputSchema: { type: 'object', properties: { result: { type: 'array', items: { type: 'object' } } } }, outputWrapped: true }),
    tool('missing_get', '/status/404', { outputSchema: object }),
    tool('drifted_get', '/json/mismatch', { outputSchema: object }),
    tool('picture_get', '/image.png', { http: { method: 'GET', path: '/image.png', params: [], accept: ['image/png'] } }),
  ].sort((a, b) => (a.name < b.name ? -1 : 1));
  return c;
}

const catalogueText = await encodeCatalogue(callCatalogue());
const loaded = loadCatalogue(catalogueText);

function callRequest(version: string, id: number | string, params: Record<string, unknown>, path = '/mcp/x/all', extraMeta: Record<string, unknown> = {}): Request {
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream', authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'mcp-protocol-version': version };
  let body: Record<string, unknown> = { method: 'tools/call', params, jsonrpc: '2.0', id };
  if (version === '2026-07-28') {
    headers['mcp-method'] = 'tools/call';
    if (typeof params.name === 'string') headers['mcp-name'] = params.name;
    const _meta = { 'io.modelcontextprotocol/protocolVersion': version, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {}, ...extraMeta };
    body = { ...body, params: { ...params, _meta } };
  } else if (Object.keys(extraMeta).length) {
    body = { ...body, params: { ...params, _meta: extraMeta } };
  }
  return new Request(`${BASE}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
}

async function snapshot(res: Response) {
  return { status: res.status, headers: [...res.headers].sort(), body: await res.text() };
}

let toolCalls: string[] = [];
beforeEach(() => {
  toolCalls = [];
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
    if (typeof line === 'string' && line.includes('"event":"tool_call"')) toolCalls.push(line);
  });
});
afterEach(() => vi.restoreAllMocks());

const CASES: Array<[string, Record<string, unknown>]> = [
  ['success', { name: 'echo_get', arguments: { id: 'x', limit: 3 } }],
  ['success, no arguments member', { name: 'items_list' }],
  ['isError: invalid arguments', { name: 'echo_get', arguments: { id: 5 } }],
  ['isError: upstream 404', { name: 'missing_get', arguments: {} }],
  ['isError: schema mismatch', { name: 'drifted_get', arguments: {} }],
  ['image content block', { name: 'picture_get', arguments: {} }],
  ['alias of a tool', { name: 'echo_old_name', arguments: { id: 'y' } }],
];

describe('tools/call fast path: byte-identical to the SDK', () => {
  for (const client of ['default', 'gemini', 'cursor'] as const) {
    for (const [label, params] of CASES) {
      it(`${label} (?client=${client}), every protocol version`, async () => {
        const app = createApp(loaded);
        const path = `/mcp/x/all?client=${client}`;
        const fetchApp = async (r: Request) => snapshot(await app.fetch(r, env));
        for (const version of VERSIONS) {
          toolCalls = [];
          const first = await fetchApp(callRequest(version, 7, params, path)); // the SDK answers and proves the bytes
          const second = await fetchApp(callRequest(version, 7, params, path)); // the fast path
          const third = await fetchApp(callRequest(version, 'req-8', params, path));
          expect(first.status).toBe(200);
          expect(second).toEqual(first);
          expect(third.body).toBe(first.body.replace('"id":7}', '"id":"req-8"}'));
          expect(toolCalls).toHaveLength(3); // once per request, the proof included
        }
        const view = viewOf(loaded, sliceOf(loaded, {}), PROFILES[client]);
        const states = Object.entries(readyCallStates(view, params.name as string));
        expect(states.length).toBeGreaterThanOrEqual(VERSIONS.length);
        for (const [key, state] of states) expect(state, key).toBe('verified');
      });
    }
  }

  it('unknown tool and invalid params: the SDK answers, the same every time, and no tool runs; a tool outside the slice is refused by name', async () => {
    const own = loadCatalogue(catalogueText); // views (and their proofs) of its own
    const app = createApp(own);
    const bad: Array<[string, Record<string, unknown>]> = [
      ['/mcp/x/all', { name: 'nope', arguments: {} }],
      ['/mcp/x/all', { name: 'echo_get', arguments: 'x' }],
      ['/mcp/x/all', { name: 5, arguments: {} }],
      ['/mcp/x/all', { arguments: {} }],
    ];
    for (const version of VERSIONS) {
      for (const [path, params] of bad) {
        const a = await snapshot(await app.fetch(callRequest(version, 1, params, path), env));
        const b = await snapshot(await app.fetch(callRequest(version, 1, params, path), env));
        expect(b).toEqual(a);
        expect(a.body).toMatch(/"error":\{"code":-32/);
      }
      // A catalogue tool outside the slice: an isError result that names the slice, the same from either path.
      const outside = callRequest(version, 1, { name: 'echo_get', arguments: { id: 'x' } }, '/mcp/x/admin');
      const a = await snapshot(await app.fetch(outside, env));
      const b = await snapshot(await app.fetch(callRequest(version, 1, { name: 'echo_get', arguments: { id: 'x' } }, '/mcp/x/admin'), env));
      expect(b).toEqual(a);
      expect(a.body).toContain('echo_get is outside this endpoint, which serves the toolsets admin.');
      expect(a.body).toContain('"isError":true');
    }
    // No tool ran: the only tool_call lines are the refusals, one per request.
    expect(toolCalls).toHaveLength(2 * VERSIONS.length);
    expect(toolCalls.every((l) => l.includes('"outcome":"out_of_scope"'))).toBe(true);
    expect(readyCallStates(viewOf(own, sliceOf(own, {}), PROFILES.default), 'echo_get')).toEqual({});
  });

  it('_meta with a progress token goes to the SDK, whose answer equals the fast answer to the plain call', async () => {
    const app = createApp(loaded);
    const params = { name: 'echo_get', arguments: { id: 'p' } };
    for (const version of VERSIONS) {
      await app.fetch(callRequest(version, 3, params), env); // proof
      const fast = await snapshot(await app.fetch(callRequest(version, 3, params), env));
      toolCalls = [];
      const withProgress = await snapshot(await app.fetch(callRequest(version, 3, params, '/mcp/x/all', { progressToken: 'tok-1' }), env));
      expect(withProgress).toEqual(fast);
      expect(toolCalls).toHaveLength(1);
    }
  });

  it('a template the SDK disagrees with is refused for that key: the SDK keeps answering, the tool still runs once', async () => {
    const slice = sliceOf(loaded, { toolsets: ['echo'] });
    const scope = { catalogue: loaded, config: readConfig(env, loaded.catalogue.defaultUpstream), caller: { id: 'key:test', scope: {}, upstream: {} }, slice, profile: PROFILES.default, mode: 'tools' as const };
    const params = { name: 'echo_get', arguments: { id: 'z' } };
    let sdkAnswers = 0;
    const sdk = async (answered?: { answer: Promise<unknown> }) => {
      await answered?.answer;
      sdkAnswers++;
      return new Response('event: message\ndata: {"different":true}\n\n', { headers: { 'content-type': 'text/event-stream' } });
    };
    for (let i = 0; i < 3; i++) {
      const res = await readyToolsCall(scope, callRequest('2025-11-25', 1, params), { jsonrpc: '2.0', id: 1, method: 'tools/call', params }, sdk as never)!;
      expect(await res.text()).toContain('different');
    }
    expect(sdkAnswers).toBe(3);
    expect(toolCalls).toHaveLength(3);
    const states = Object.values(readyCallStates(viewOf(loaded, slice, PROFILES.default), 'echo_get'));
    expect(states).toEqual(['failed']);
  });
});

describe('tools/call fast path with real clients', () => {
  it('the strict v1 client and the v2 client get the same results from the SDK and from the fast path', async () => {
    const app = createApp(loaded);
    const fetchApp = async (input: string | URL | Request, init?: RequestInit) => app.fetch(new Request(input, init), env);
    const v1 = new ClientV1({ name: 'strict', version: '1.0.0' });
    await v1.connect(new TransportV1(new URL(`${BASE}/mcp/x/all`), { fetch: fetchApp, requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }));
    const v2 = new ClientV2({ name: 'v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await v2.connect(new TransportV2(new URL(`${BASE}/mcp/x/all`), { fetch: fetchApp, requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }));
    try {
      for (const client of [v1, v2] as Array<{ callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown> }>) {
        await (client as ClientV1).listTools?.(); // the strict client checks structuredContent against the listed outputSchema
        for (const [name, args] of [['echo_get', { id: 'c' }], ['items_list', {}], ['drifted_get', {}]] as const) {
          const viaSdk = await client.callTool({ name, arguments: args });
          const viaFast = await client.callTool({ name, arguments: args });
          expect(viaFast).toEqual(viaSdk);
        }
      }
    } finally {
      await v1.close();
      await v2.close();
    }
  });
});
