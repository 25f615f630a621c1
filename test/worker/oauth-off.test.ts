// OAUTH=off keeps the bearer-only Worker exactly: the same status, headers and bytes for the resource metadata,
// every 401, the routes OAuth would add (the app's 404), a preflight and a cross-origin POST. The expectations are
// the answers of the Worker before OAuth was mounted; with OAuth on the same requests are checked to differ only
// where OAuth adds something, so this file cannot pass by accident.
import { env as bindings } from 'cloudflare:workers';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { Env } from '../../src/config.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';

const ORIGIN = 'http://127.0.0.1:8787';
const KEY = 'mcp_test_oauthoff00000000000000000000000000';
const app = createApp(loadCatalogue(await encodeCatalogue(fixtureCatalogue())));
const base: Env = { KEYS: bindings.KEYS, KEY_RATE_LIMITER: bindings.KEY_RATE_LIMITER, OAUTH_KV: bindings.OAUTH_KV, API_KEY: KEY, CREDENTIAL_MODE: 'key', UPSTREAM_URL: 'http://127.0.0.1:9' };
const off: Env = { ...base, OAUTH: 'off' };
const on: Env = { ...base, OAUTH: 'on' };

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function answer(env: Env, path: string, init: RequestInit = {}): Promise<Answer> {
  const res = await app.fetch(new Request(ORIGIN + path, init), env);
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
}

const notFound = (method: string, path: string): Answer => ({
  status: 404,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ error: 'not_found', message: `No route for ${method} ${path}. The MCP endpoint is /mcp.` }),
});
const metadata = JSON.stringify({ resource: `${ORIGIN}/mcp`, bearer_methods_supported: ['header'], resource_name: 'Fixture API' });
const rpc = (headers: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
});
const challenge = (detail: string) => `Bearer realm="mcp",${detail} resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource"`;
const refusal = (error: string, description: string, detail: string): Answer => ({
  status: 401,
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store', 'www-authenticate': challenge(detail) },
  body: JSON.stringify({ error, error_description: description }),
});
const MALFORMED = 'The API key is malformed: keys start with mcp_live_ or mcp_test_ followed by at least 32 letters and digits.';

describe('OAUTH=off answers exactly as the bearer-only Worker did', () => {
  it('serves the resource metadata without authorization_servers', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      expect(await answer(off, path)).toEqual({ status: 200, headers: { 'content-type': 'application/json' }, body: metadata });
      expect(JSON.parse((await answer(on, path)).body)).toEqual({ ...JSON.parse(metadata), authorization_servers: [ORIGIN] });
    }
  });

  it('has none of the OAuth routes', async () => {
    const requests: Array<[string, string, RequestInit?]> = [
      ['GET', '/.well-known/oauth-authorization-server'],
      ['GET', '/.well-known/oauth-protected-resource/mcp/x/echo'],
      ['GET', '/authorize?response_type=code&client_id=x'],
      ['POST', '/token', { method: 'POST', body: 'grant_type=refresh_token' }],
      ['POST', '/register', { method: 'POST', body: '{}' }],
    ];
    for (const [method, path, init] of requests) {
      expect(await answer(off, path, init), path).toEqual(notFound(method, path.split('?')[0]!));
      expect((await answer(on, path, init)).status, path).not.toBe(404);
    }
  });

  it('refuses /mcp with the same 401s, an OAuth-shaped token included', async () => {
    const missing = refusal('missing_token', 'Send your API key as "Authorization: Bearer <key>".', '');
    const tokenShaped = refusal('invalid_token', MALFORMED, ` error="invalid_token", error_description="${MALFORMED}",`);
    for (const path of ['/mcp', '/mcp/x/echo', '/mcp/discover']) {
      expect(await answer(off, path, rpc({})), path).toEqual(missing);
      expect(await answer(off, path, rpc({ authorization: 'Bearer abc:def:ghi' })), path).toEqual(tokenShaped);
    }
    // With OAuth on, the same token is looked up as an access token and refused as one.
    expect((await answer(on, '/mcp', rpc({ authorization: 'Bearer abc:def:ghi' }))).body).toContain('The access token is invalid');
  });

  it('answers a preflight and a cross-origin POST as before: no CORS headers', async () => {
    const preflight = { method: 'OPTIONS', headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } };
    expect(await answer(off, '/mcp', preflight)).toEqual(refusal('missing_token', 'Send your API key as "Authorization: Bearer <key>".', ''));
    const post = await answer(off, '/mcp', rpc({ authorization: `Bearer ${KEY}`, origin: 'http://localhost:5173' }));
    expect(post.status).toBe(200);
    expect(Object.keys(post.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    expect((await answer(off, '/mcp', rpc({ origin: 'https://evil.example' }))).status).toBe(403);
  });
});
