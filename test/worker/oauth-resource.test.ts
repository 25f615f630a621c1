// /mcp, /mcp/x/…, /mcp/discover and /mcp/code with OAuth on, through the real app: a static key is never challenged; an access
// token from the consent page works with both SDK clients and reaches the upstream; a toolset outside the grant is
// 403 insufficient_scope; a revoked key, another origin's token and a made-up token are 401 invalid_token.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { env as bindings } from 'cloudflare:workers';
import { describe, expect, inject, it } from 'vitest';
import { metadataOf, newKey, RECORD_PREFIX, type NewKeyOptions } from '../../src/auth/keys-core.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';
import { harness, issueTokens, oauthEnv, ORIGIN, revokeStoredKey } from './fixtures/oauth.ts';

const upstreamUrl = inject('upstreamUrl');
const OPERATOR_KEY = 'mcp_test_resourceoperator0000000000000000';
const h = harness(loadCatalogue(await encodeCatalogue(fixtureCatalogue())), oauthEnv({ API_KEY: OPERATOR_KEY, UPSTREAM_URL: upstreamUrl, LOADER: bindings.LOADER }));

async function makeKey(opts: Partial<NewKeyOptions> = {}) {
  const made = await newKey({ prefix: 'mcp_test_', customer: { id: 'initech', name: 'Initech' }, ...opts });
  await bindings.KEYS.put(RECORD_PREFIX + made.hash, JSON.stringify(made.record), { metadata: metadataOf(made.record) });
  return made;
}

const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } } };
const rpc = (path: string, bearer: string | undefined, body: unknown = list) =>
  h.fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify(body),
  });
const appFetch = (input: string | URL | Request, init?: RequestInit) => h.fetch(input instanceof Request ? input.url : String(input), init);

describe('static keys with OAuth on', () => {
  it('are never challenged, on any MCP route', async () => {
    const { key } = await makeKey();
    for (const bearer of [OPERATOR_KEY, key]) {
      for (const path of ['/mcp', '/mcp/x/echo', '/mcp/discover']) {
        const res = await rpc(path, bearer);
        expect(res.status, path).toBe(200);
        expect(res.headers.get('www-authenticate'), path).toBeNull();
      }
    }
  });
});

describe('access tokens', () => {
  it('list and call through the v2 and v1 SDK clients on every MCP route; the upstream never sees the token', async () => {
    const { key } = await makeKey({ toolsets: ['echo', 'admin'] });
    const tokens = await issueTokens(h, key, { toolsets: ['echo'] });
    expect(tokens.scope).toBe('toolset:echo');
    const headers = { authorization: `Bearer ${tokens.access_token}` };

    const v2 = new ClientV2({ name: 'oauth-v2', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await v2.connect(new TransportV2(new URL(`${ORIGIN}/mcp`), { fetch: appFetch, requestInit: { headers } }));
    expect((await v2.listTools()).tools.map((t) => t.name)).toEqual(['echo_get']);
    const called = await v2.callTool({ name: 'echo_get', arguments: { id: 'via-token' } });
    expect(called.structuredContent).toMatchObject({ method: 'GET', url: '/echo/via-token' });
    expect(JSON.stringify(called)).not.toContain(tokens.access_token);
    await v2.close();

    const seen = (await (await fetch(`${upstreamUrl}/__last?path=${encodeURIComponent('/echo/via-token')}`)).json()) as { headers: Record<string, string> };
    expect(JSON.stringify(seen.headers)).not.toContain(tokens.access_token);

    const v1 = new ClientV1({ name: 'oauth-v1', version: '1' });
    await v1.connect(new TransportV1(new URL(`${ORIGIN}/mcp/x/echo`), { fetch: appFetch, requestInit: { headers } }));
    expect((await v1.listTools()).tools.map((t) => t.name)).toEqual(['echo_get']);
    await v1.close();

    const discover = await rpc('/mcp/discover', tokens.access_token);
    expect(discover.status).toBe(200);
    expect(await discover.text()).toContain('search_tools');
  });

  it('work in code mode: /mcp/code lists search and execute, and api calls run with the grant\'s narrowed scope', async () => {
    const { key } = await makeKey({ toolsets: ['echo', 'admin'] });
    const tokens = await issueTokens(h, key, { toolsets: ['echo'] });
    const client = new ClientV2({ name: 'oauth-code', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new TransportV2(new URL(`${ORIGIN}/mcp/code`), { fetch: appFetch, requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } } }));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['search', 'execute']);
    const text = async (code: string) => {
      const r = (await client.callTool({ name: 'execute', arguments: { code } })) as { content: Array<{ text?: string }>; isError?: boolean };
      return { text: r.content.map((b) => b.text ?? '').join('\n'), isError: r.isError === true };
    };
    const echoed = await text(`const r = await api.echo_get({ id: "code-token" }); return r.url;`);
    expect(echoed).toEqual({ text: '"/echo/code-token"', isError: false });
    // echo_remove is in the key's scope but not in the grant's narrowing.
    const outside = await text(`try { await api.echo_remove({ id: "x" }); return "called"; } catch (e) { return e.message; }`);
    expect(outside.text).toMatch(/api\.echo_remove is not available with this key: its scope is toolsets echo\./);
    await client.close();
  });

  it('are refused with 403 insufficient_scope on a toolset outside the grant, naming the scope that would do', async () => {
    const { key } = await makeKey();
    const tokens = await issueTokens(h, key, { toolsets: ['echo'] });
    const res = await rpc('/mcp/x/admin+echo', tokens.access_token);
    expect(res.status).toBe(403);
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer realm="mcp", error="insufficient_scope", .*scope="toolset:admin", resource_metadata="http:\/\/127\.0\.0\.1:8787\/\.well-known\/oauth-protected-resource"$/);
    expect(await res.json()).toMatchObject({ error: 'insufficient_scope', scope: 'toolset:admin' });
    // "all" names no toolset: it is whatever the grant allows.
    expect((await rpc('/mcp/x/all', tokens.access_token)).status).toBe(200);
  });

  it('end with their key: revoking it gives 401 invalid_token on the next request', async () => {
    const made = await makeKey();
    const tokens = await issueTokens(h, made.key);
    expect((await rpc('/mcp', tokens.access_token)).status).toBe(200);
    await revokeStoredKey(bindings.KEYS, made.record);
    const res = await rpc('/mcp', tokens.access_token);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    // The static key is refused the same way.
    expect((await rpc('/mcp', made.key)).status).toBe(401);
  });

  it("are refused when made up or issued for another origin (the token's audience is this origin's /mcp)", async () => {
    const tokens = await issueTokens(h, OPERATOR_KEY);
    const [user, grant] = tokens.access_token.split(':');
    const forged = await rpc('/mcp', `${user}:${grant}:${'A'.repeat(43)}`);
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({ error: 'invalid_token' });
    const elsewhere = await h.fetch('http://localhost:8787/mcp', { method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(list) });
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers.get('www-authenticate')).toContain('resource_metadata="http://localhost:8787/.well-known/oauth-protected-resource"');
  });
});

describe('metadata with OAuth on', () => {
  it('names this origin as the authorization server, also at the path-aware URL of a slice', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource/mcp/x/echo']) {
      const md = (await (await h.fetch(path)).json()) as Record<string, unknown>;
      expect(md, path).toEqual({ resource: `${ORIGIN}/mcp`, bearer_methods_supported: ['header'], resource_name: 'Fixture API', authorization_servers: [ORIGIN] });
    }
    const as = (await (await h.fetch('/.well-known/oauth-authorization-server')).json()) as Record<string, unknown>;
    expect(as.issuer).toBe(ORIGIN);
  });

  it('refuses the OAuth routes for a Host outside ALLOWED_HOSTS, before any server exists for it', async () => {
    const res = await h.fetch('https://evil.example/.well-known/oauth-authorization-server');
    expect(res.status).toBe(403);
    expect((await h.fetch('https://evil.example/authorize?client_id=x')).status).toBe(403);
  });
});
