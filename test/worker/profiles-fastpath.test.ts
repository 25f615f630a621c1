// tools/list from ready bytes: the fast path must be byte-identical to the SDK's own answer, for every era,
// profile and slice; it is enabled per (view, protocol version) only after a run-time proof against the SDK.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, inject, it } from 'vitest';
import catalogueText from 'catalog-data';
import { createApp } from '../../src/app.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import type { Env } from '../../src/config.ts';
import { hybridListing, overToolBudget } from '../../src/discovery/hybrid.ts';
import { PROFILES, type ProfileId } from '../../src/profiles/profiles.ts';
import { viewOf } from '../../src/profiles/view.ts';
import { answerFromReadyBytes, readyListKey, readyListState } from '../../src/protocol/ready-tools-list.ts';

const KEY = 'mcp_test_0123456789abcdef0123456789abcdef';
const BASE = 'http://127.0.0.1:8787';
const env: Env = { API_KEY: KEY, UPSTREAM_URL: inject('upstreamUrl'), CREDENTIAL_MODE: 'key' };
const loaded = loadCatalogue(catalogueText);
const app = createApp(loaded);
const appFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => app.fetch(new Request(input, init), env);

// The exact requests the real clients send (captured from @modelcontextprotocol/client 2.4.0 and the v1 SDK).
function listRequest(version: string, id: number | string, path = '/mcp/x/pulls', clientName = 'raw'): Request {
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream', authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'mcp-protocol-version': version };
  let body: Record<string, unknown> = { method: 'tools/list', jsonrpc: '2.0', id };
  if (version === '2026-07-28') {
    headers['mcp-method'] = 'tools/list';
    body = { ...body, params: { _meta: { 'io.modelcontextprotocol/protocolVersion': version, 'io.modelcontextprotocol/clientInfo': { name: clientName, version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } } };
  }
  return new Request(`${BASE}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
}

async function snapshot(res: Response) {
  return { status: res.status, headers: [...res.headers].sort(), body: await res.text() };
}

const VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2026-07-28'];

describe('tools/list fast path', () => {
  // Hybrid lists included: bare /mcp (101 tools) for Cursor, /mcp/x/all for Cursor, VS Code and OpenAI.
  for (const path of ['/mcp/x/pulls', '/mcp/x/repos_core+issues_core?readonly=1', '/mcp/x/all', '/mcp', '/mcp/x/all?mode=tools']) {
    for (const client of ['default', 'gemini', 'vscode', 'cursor', 'openai'] as ProfileId[]) {
      it(`${path} ?client=${client}: the fast answer equals the SDK's, byte for byte, in every protocol version`, async () => {
        const url = `${path}${path.includes('?') ? '&' : '?'}client=${client}`;
        // A catalogue of its own: its slices are cached apart from the other cases', so five full lists of all 1,223
        // tools (one per profile) never share one slice's cache budget here (docs/architecture.md, "Per-isolate caches").
        const loaded = loadCatalogue(catalogueText);
        const app = createApp(loaded);
        const appFetch = async (input: Request): Promise<Response> => app.fetch(input, env);
        for (const version of VERSIONS) {
          const first = await snapshot(await appFetch(listRequest(version, 7, url))); // the SDK answers (and proves the template)
          const second = await snapshot(await appFetch(listRequest(version, 7, url))); // ready bytes
          expect(first.status).toBe(200);
          expect(second).toEqual(first);
          // A different id is spliced in exactly.
          const third = await snapshot(await appFetch(listRequest(version, 'req-8', url)));
          expect(third.body).toBe(first.body.replace('"id":7}', '"id":"req-8"}'));
        }
        const route = path.split('?')[0]!;
        const toolsets = route === '/mcp' ? loaded.catalogue.defaultToolsets! : route.replace('/mcp/x/', '').split('+');
        const slice = sliceOf(loaded, { toolsets, readOnly: path.includes('readonly') });
        const profile = PROFILES[client];
        const hybrid = overToolBudget(slice, profile) && !path.includes('mode=tools');
        const list = hybrid ? hybridListing(loaded, slice, profile) : viewOf(loaded, slice, profile);
        if (hybrid) expect(list.tools.length).toBe(profile.maxTools);
        for (const version of VERSIONS) expect(readyListState(list, version)).toBe('verified');
      });
    }
  }

  it('real clients (v1 strict, v2 in both eras) list the same tools through the fast path', async () => {
    const names: string[][] = [];
    for (let i = 0; i < 2; i++) {
      const v1 = new ClientV1({ name: 'strict', version: '1' });
      await v1.connect(new TransportV1(new URL(`${BASE}/mcp/x/issues_core`), { fetch: appFetch, requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }));
      names.push((await v1.listTools()).tools.map((t) => t.name));
      await v1.close();
      for (const mode of ['legacy', { pin: '2026-07-28' }] as const) {
        const v2 = new ClientV2({ name: 'test-v2', version: '1' }, { versionNegotiation: { mode } });
        await v2.connect(new TransportV2(new URL(`${BASE}/mcp/x/issues_core`), { fetch: appFetch, requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }));
        names.push((await v2.listTools()).tools.map((t) => t.name));
        await v2.close();
      }
    }
    expect(names[0]!.length).toBe(29);
    for (const n of names) expect(n).toEqual(names[0]);
    const view = viewOf(loaded, sliceOf(loaded, { toolsets: ['issues_core'] }), PROFILES.default);
    expect(readyListState(view, '2025-11-25')).toBe('verified');
    expect(readyListState(view, '2026-07-28')).toBe('verified');
  });

  it('only plain requests qualify: a cursor, extra params, a batch or a missing header go to the SDK', () => {
    const plain = listRequest('2025-11-25', 1);
    const msg = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    expect(readyListKey(plain, msg)).toEqual({ era: '2025', version: '2025-11-25' });
    expect(readyListKey(plain, { ...msg, params: { cursor: 'x' } })).toBeUndefined();
    expect(readyListKey(plain, [msg])).toBeUndefined();
    expect(readyListKey(plain, { ...msg, method: 'tools/call' })).toBeUndefined();
    const withHeaders = (headers: Record<string, string>) => new Request(`${BASE}/mcp`, { method: 'POST', headers });
    expect(readyListKey(withHeaders({ accept: 'application/json', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' }), msg)).toBeUndefined();
    expect(readyListKey(withHeaders({ accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2024-11-05' }), msg)).toBeUndefined();
    expect(readyListKey(withHeaders({ accept: 'application/json, text/event-stream', 'content-type': 'application/json' }), msg)).toBeUndefined();
    const modern = listRequest('2026-07-28', 1);
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
    expect(readyListKey(modern, { ...msg, params: { _meta: meta } })).toEqual({ era: '2026', version: '2026-07-28' });
    expect(readyListKey(modern, { ...msg, params: { _meta: meta, cursor: 'c' } })).toBeUndefined();
    expect(readyListKey(modern, { ...msg, params: { _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } } })).toBeUndefined();
  });

  it('a template that differs from the SDK answer disables the fast path for that key', async () => {
    const list = { tools: [{ name: 'x' }] };
    const msg = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    let sdkCalls = 0;
    const sdk = async () => (sdkCalls++, new Response('event: message\ndata: {"different":true}\n\n', { headers: { 'content-type': 'text/event-stream' } }));
    const key = readyListKey(listRequest('2025-11-25', 1), msg)!;
    for (let i = 0; i < 3; i++) expect(await (await answerFromReadyBytes(key, 1, list, { name: 's', version: '1' }, sdk)).text()).toContain('different');
    expect(sdkCalls).toBe(3);
    expect(readyListState(list, '2025-11-25')).toBe('failed');
  });
});
