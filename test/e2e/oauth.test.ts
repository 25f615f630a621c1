// The OAuth front door against a real `wrangler dev`, with the real SDK clients and the consent form driven over
// plain HTTP (the same flows run with the form filled in Chromium in page-oauth.test.ts): the v2 client with
// dynamic registration and the v1 client with a Client ID Metadata Document served from loopback https, each
// through discovery, consent, token, tools/list, a tools/call and a refresh; then every refusal with its OAuth
// error, and a static key on the same URL that is never challenged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstream } from '../support/upstream-server.ts';
import { ConsentSession, pkce } from '../support/oauth-consent.ts';
import { startWorker, type WranglerDev } from '../support/wrangler-dev.ts';
import { fixtureCatalogue } from '../worker/fixtures/catalogue.ts';
import { cimdServer, connectV1WithOAuth, connectV2WithOAuth, httpConsent, initializeWith, loopbackCertificate, MemoryProvider, RawOAuth } from './oauth-helpers.ts';

const REDIRECT = 'http://127.0.0.1:43117/callback';
let upstream: Awaited<ReturnType<typeof startUpstream>>;
let tls: Awaited<ReturnType<typeof loopbackCertificate>>;
let cimd: Awaited<ReturnType<typeof cimdServer>>;
let worker: WranglerDev;

beforeAll(async () => {
  [upstream, tls] = await Promise.all([startUpstream(), loopbackCertificate()]);
  cimd = await cimdServer(tls);
  // workerd trusts NODE_EXTRA_CA_CERTS for its outbound TLS, so the Worker can fetch the CIMD document from loopback.
  worker = await startWorker({ upstream: upstream.url, catalogue: fixtureCatalogue(), env: { NODE_EXTRA_CA_CERTS: tls.caFile } });
  raw = new RawOAuth(worker.url, REDIRECT);
}, 240_000);

afterAll(async () => {
  await worker?.stop();
  await cimd?.close();
  await upstream?.close();
  await tls?.cleanup();
});

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as Array<{ type: string; text?: string }>).find((b) => b.type === 'text')?.text ?? '';
}

let raw: RawOAuth;
const rpc = (path: string, bearer: string) => initializeWith(`${worker.url}${path}`, bearer);

describe('SDK clients through the OAuth flow', () => {
  it('v2 client: discovery, dynamic registration, consent, token, tools/list, tools/call, refresh', async () => {
    const provider = new MemoryProvider({ redirectUrl: REDIRECT, authorize: httpConsent(worker.apiKey, { toolsets: ['echo'] }) });
    const client = await connectV2WithOAuth(worker.endpoint, provider);
    try {
      expect(provider.clientId).toMatch(/^[A-Za-z0-9_-]{16,}$/);
      const opened = provider.opened[0]!;
      expect(`${opened.origin}${opened.pathname}`).toBe(`${worker.url}/authorize`);
      expect(opened.searchParams.get('code_challenge_method')).toBe('S256');
      expect(opened.searchParams.get('resource')).toBe(worker.endpoint);
      expect(provider.saved[0]!.scope).toBe('toolset:echo');

      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo_get']);
      const result = await client.callTool({ name: 'echo_get', arguments: { id: 'oauth-v2' } });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ method: 'GET', url: '/echo/oauth-v2' });

      // Refresh: a spoiled access token gets a 401; the SDK refreshes (the refresh token rotates) and retries.
      const before = provider.saved.length;
      provider.spoilAccessToken();
      const again = await client.callTool({ name: 'echo_get', arguments: { id: 'after-refresh' } });
      expect(again.structuredContent).toMatchObject({ url: '/echo/after-refresh' });
      expect(provider.saved.length).toBe(before + 1);
      const [previous, latest] = provider.saved.slice(-2);
      expect(latest!.refresh_token).toBeTruthy();
      expect(latest!.refresh_token).not.toBe(previous!.refresh_token);
      expect(latest!.access_token).not.toBe(previous!.access_token);
    } finally {
      await client.close();
    }
  });

  it('v1 client: a Client ID Metadata Document served from loopback instead of registration; list, call, refresh', async () => {
    const clientMetadataUrl = cimd.document('v1', [REDIRECT]);
    const provider = new MemoryProvider({ redirectUrl: REDIRECT, clientMetadataUrl, authorize: httpConsent(worker.apiKey) });
    const metadata = (await (await fetch(`${worker.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata.client_id_metadata_document_supported).toBe(true);
    const client = await connectV1WithOAuth(worker.endpoint, provider);
    try {
      expect(provider.clientId).toBe(clientMetadataUrl);
      expect(provider.opened[0]!.searchParams.get('client_id')).toBe(clientMetadataUrl);
      expect(cimd.fetched).toContain('/clients/v1.json');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['echo_get', 'echo_remove']);
      const result = await client.callTool({ name: 'echo_remove', arguments: { id: 'oauth-v1' } });
      expect(result.isError, textOf(result as { content?: unknown })).toBeFalsy();
      expect(JSON.parse(textOf(result as { content?: unknown }))).toMatchObject({ method: 'DELETE', url: '/echo/oauth-v1' });
      provider.spoilAccessToken();
      await client.listTools();
      expect(provider.saved.length).toBe(2);
      expect(provider.saved[1]!.refresh_token).not.toBe(provider.saved[0]!.refresh_token);
    } finally {
      await client.close();
    }
  });

  it('a static key on the same URL still works and is never challenged while OAuth is advertised', async () => {
    const md = (await (await fetch(`${worker.url}/.well-known/oauth-protected-resource`)).json()) as Record<string, unknown>;
    expect(md.authorization_servers).toEqual([worker.url]);
    for (const path of ['/mcp', '/mcp/x/echo', '/mcp/discover']) {
      const res = await rpc(path, worker.apiKey);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('www-authenticate'), path).toBeNull();
    }
  });
});

describe('refusals, each with its OAuth error', () => {
  it('a wrong key on the consent page: 403 and the form again, no redirect, the key not echoed', async () => {
    const { url } = await raw.authorizeUrl(await raw.register());
    const session = await new ConsentSession(fetch, url).open();
    const wrong = 'mcp_test_wrongwrongwrongwrongwrongwrong00';
    const { res, html } = await session.pasteKey(wrong);
    expect(res.status).toBe(403);
    expect(res.headers.get('location')).toBeNull();
    expect(html).toContain('That API key was not accepted');
    expect(html).not.toContain(wrong);
  });

  it('a reused code: invalid_grant, and the grant it made is revoked', async () => {
    const c = await raw.code(worker.apiKey);
    const first = await raw.exchange(c);
    expect(first.status).toBe(200);
    const reused = await raw.exchange(c);
    expect(reused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await rpc('/mcp', first.body.access_token!)).status).toBe(401);
  });

  it('a PKCE mismatch: invalid_grant', async () => {
    const c = await raw.code(worker.apiKey);
    expect(await raw.exchange(c, (await pkce()).verifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('a redirect to a host the client did not register: an error page, never a redirect', async () => {
    const { url } = await raw.authorizeUrl(await raw.register(), { redirect_uri: 'https://attacker.example/callback' });
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('Invalid redirect URI');
  });

  it('a refresh token used twice: invalid_grant, and the grant ends, the newest tokens with it', async () => {
    const c = await raw.code(worker.apiKey);
    const first = (await raw.exchange(c)).body;
    const second = await raw.refresh(c.clientId, first.refresh_token!);
    expect(second.status).toBe(200);
    const third = await raw.refresh(c.clientId, second.body.refresh_token!);
    expect(third.status).toBe(200);
    expect(await raw.refresh(c.clientId, first.refresh_token!)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await raw.refresh(c.clientId, third.body.refresh_token!)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await rpc('/mcp', third.body.access_token!)).status).toBe(401);
  });

  it('a token used on a slice outside its grant: 403 insufficient_scope naming the missing scope', async () => {
    const access = (await raw.exchange(await raw.code(worker.apiKey, { toolsets: ['echo'] }))).body.access_token!;
    expect((await rpc('/mcp/x/echo', access)).status).toBe(200);
    const res = await rpc('/mcp/x/admin', access);
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toMatch(/error="insufficient_scope".*scope="toolset:admin"/);
  });

  it('a form post without the browser binding cookie (CSRF): 400, no code', async () => {
    const { url } = await raw.authorizeUrl(await raw.register());
    const session = await new ConsentSession(fetch, url).open();
    const review = await session.pasteKey(worker.apiKey);
    const handle = /name="handle" value="([^"]+)"/.exec(review.html)![1]!;
    const forged = await session.post({ handle, step: 'review', decision: 'approve', toolset: ['echo', 'admin'] }, { cookies: false });
    expect(forged.status).toBe(400);
    expect(forged.headers.get('location')).toBeNull();
    expect(await forged.text()).toContain('not started in this browser');
  });

  it('a made-up access token: 401 invalid_token with the challenge naming the resource metadata', async () => {
    const res = await rpc('/mcp', 'someone:somegrant:notarealsecret');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer realm="mcp", error="invalid_token", error_description="The access token is invalid, expired or revoked. Refresh it or authorize again.", resource_metadata="${worker.url}/.well-known/oauth-protected-resource"`,
    );
  });
});
