// CORS policy for browser MCP clients (src/pipeline/cors.ts): ALLOWED_ORIGINS parsing, preflight answers, headers on
// real responses, that the OAuth library's reflect-any-origin headers are replaced by the one policy, and all of it
// through the app with the Host/Origin guard in front.
import { createExecutionContext } from 'cloudflare:test';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { env as bindings } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { AuthorizationServers } from '../../src/oauth/authorization-server.ts';
import { AllowedOriginsError, CORS_ALLOWED_HEADERS, isAllowedOrigin, parseAllowedOrigins, preflightResponse, withCors } from '../../src/pipeline/cors.ts';
import { readConfig } from '../../src/config.ts';
import { readOAuthSettings } from '../../src/oauth/settings.ts';
import type { Env } from '../../src/config.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';

const APP = 'http://localhost:5173';
const ALLOWED = parseAllowedOrigins(`${APP}, https://app.example.com/`);

const preflight = (origin: string, requestHeaders = 'authorization, content-type, mcp-protocol-version') =>
  new Request('http://127.0.0.1:8787/mcp', {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': requestHeaders },
  });

describe('ALLOWED_ORIGINS', () => {
  it('normalises origins as browsers send them', () => {
    expect(parseAllowedOrigins(' https://App.Example.com:443 ,http://127.0.0.1:3000/, https://app.example.com')).toEqual(['https://app.example.com', 'http://127.0.0.1:3000']);
    expect(parseAllowedOrigins(undefined)).toEqual([]);
    expect(parseAllowedOrigins(' , ')).toEqual([]);
  });

  it('refuses anything that is not exactly an origin, naming the entry', () => {
    expect(() => parseAllowedOrigins('*')).toThrow(AllowedOriginsError);
    expect(() => parseAllowedOrigins('https://a.example.com/app')).toThrow(/nothing after it; got "https:\/\/a.example.com\/app"/);
    expect(() => parseAllowedOrigins('app.example.com')).toThrow(/not an origin/);
    expect(() => parseAllowedOrigins('ftp://files.example.com')).toThrow(/scheme:\/\/host/);
    expect(() => parseAllowedOrigins('https://u:p@app.example.com')).toThrow(AllowedOriginsError);
  });

  it('matches exact origins only: scheme, host and port', () => {
    expect(isAllowedOrigin('https://app.example.com', ALLOWED)).toBe(true);
    expect(isAllowedOrigin('http://app.example.com', ALLOWED)).toBe(false);
    expect(isAllowedOrigin('http://localhost:5174', ALLOWED)).toBe(false);
    expect(isAllowedOrigin('https://app.example.com.evil.test', ALLOWED)).toBe(false);
    expect(isAllowedOrigin('null', ALLOWED)).toBe(false);
    expect(isAllowedOrigin(null, ALLOWED)).toBe(false);
  });
});

describe('preflight', () => {
  it('answers an allowed origin with the MCP headers, methods and a cache time, and no credentials', async () => {
    const res = preflightResponse(preflight(APP, 'authorization, content-type, mcp-protocol-version, mcp-session-id, mcp-method, mcp-name, mcp-param-region'), ALLOWED)!;
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    const allowedHeaders = res.headers.get('access-control-allow-headers')!.toLowerCase().split(', ');
    for (const h of ['authorization', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'mcp-method', 'mcp-name', 'mcp-param-region']) expect(allowedHeaders).toContain(h);
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-max-age')).toBe('7200');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('vary')).toContain('Origin');
  });

  it('does not echo arbitrary requested headers, only the per-tool Mcp-Param-* family', () => {
    const res = preflightResponse(preflight(APP, 'x-evil, mcp-param-owner'), ALLOWED)!;
    const list = res.headers.get('access-control-allow-headers')!.toLowerCase();
    expect(list).not.toContain('x-evil');
    expect(list).toContain('mcp-param-owner');
    expect(list.split(', ')).toHaveLength(CORS_ALLOWED_HEADERS.length + 1);
  });

  it('refuses other origins with 403 and no CORS headers', async () => {
    const res = preflightResponse(preflight('https://evil.example'), ALLOWED)!;
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('ALLOWED_ORIGINS');
  });

  it('leaves requests that are not preflights to the app', () => {
    expect(preflightResponse(new Request('http://127.0.0.1:8787/mcp', { method: 'OPTIONS' }), ALLOWED)).toBeUndefined();
    expect(preflightResponse(new Request('http://127.0.0.1:8787/mcp', { method: 'POST', headers: { origin: APP } }), ALLOWED)).toBeUndefined();
  });
});

describe('responses', () => {
  const post = (origin?: string) => new Request('http://127.0.0.1:8787/mcp', { method: 'POST', headers: origin ? { origin } : {} });

  it('gives an allowed origin Access-Control-Allow-Origin and exposes the session, challenge and retry headers', () => {
    const res = withCors(new Response('{}', { status: 401, headers: { 'www-authenticate': 'Bearer realm="mcp"', vary: 'Accept' } }), post(APP), ALLOWED);
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    expect(res.headers.get('access-control-expose-headers')).toBe('Mcp-Session-Id, WWW-Authenticate, Retry-After');
    expect(res.headers.get('vary')).toBe('Accept, Origin');
  });

  it('leaves same-origin and non-browser responses untouched', () => {
    const original = new Response('ok');
    expect(withCors(original, post(), ALLOWED)).toBe(original);
    expect(withCors(original, post('https://evil.example'), ALLOWED)).toBe(original);
  });

  it("replaces the OAuth library's reflect-any-origin headers with this policy", async () => {
    const env: Env = { KEYS: bindings.KEYS, KEY_RATE_LIMITER: bindings.KEY_RATE_LIMITER, OAUTH_KV: bindings.OAUTH_KV, API_KEY: 'mcp_test_corsoperator0000000000000000000000' };
    const config = readConfig(env, 'http://127.0.0.1:9');
    const server = (await new AuthorizationServers(() => config, ['read-only']).for('http://127.0.0.1:8787', readOAuthSettings(env, config.credentialMode)))!.main;
    const metadata = (origin: string) => new Request('http://127.0.0.1:8787/.well-known/oauth-authorization-server', { headers: { origin } });

    const fromLibrary = await server.fetch(metadata('https://evil.example'), env, createExecutionContext());
    expect(fromLibrary.headers.get('access-control-allow-origin')).toBe('https://evil.example');
    const stripped = withCors(fromLibrary, metadata('https://evil.example'), ALLOWED);
    expect([...stripped.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
    expect(((await stripped.json()) as { issuer: string }).issuer).toBe('http://127.0.0.1:8787');

    const allowed = withCors(await server.fetch(metadata(APP), env, createExecutionContext()), metadata(APP), ALLOWED);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(APP);
    expect(allowed.headers.get('access-control-allow-headers')).toBeNull();
  });
});

const fixtureText = await encodeCatalogue(fixtureCatalogue());

describe('through the app', () => {
  const KEY = 'mcp_test_corsappkey000000000000000000000000';
  const app = createApp(loadCatalogue(fixtureText));
  const env: Env = { KEYS: bindings.KEYS, KEY_RATE_LIMITER: bindings.KEY_RATE_LIMITER, OAUTH_KV: bindings.OAUTH_KV, API_KEY: KEY, UPSTREAM_URL: 'http://127.0.0.1:9', ALLOWED_ORIGINS: `${APP}, https://app.example.com` };
  const call = (path: string, init: RequestInit) => app.fetch(new Request(`http://127.0.0.1:8787${path}`, init), env);
  const cors = (res: Response) => Object.fromEntries([...res.headers].filter(([k]) => k.startsWith('access-control-')));
  const pre = (origin: string, headers = 'authorization, content-type, mcp-protocol-version, mcp-method, mcp-name') => ({
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': headers },
  });
  const rpc = (origin: string, key?: string): RequestInit => ({
    method: 'POST',
    headers: { origin, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'page', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } } }),
  });

  it('answers preflights for /mcp, its slices and the OAuth endpoints from a listed origin, even one outside ALLOWED_HOSTS', async () => {
    for (const path of ['/mcp', '/mcp/x/echo', '/mcp/discover', '/token', '/register', '/.well-known/oauth-protected-resource', '/.well-known/oauth-authorization-server']) {
      for (const origin of [APP, 'https://app.example.com']) {
        const res = await call(path, pre(origin));
        expect(res.status, `${path} ${origin}`).toBe(204);
        expect(res.headers.get('access-control-allow-origin')).toBe(origin);
        expect(res.headers.get('access-control-allow-headers')).toBe(CORS_ALLOWED_HEADERS.join(', '));
      }
    }
  });

  it('refuses every other origin: the guard for foreign hosts, the CORS step for unlisted local ones', async () => {
    const foreign = await call('/mcp', pre('https://evil.example'));
    expect(foreign.status).toBe(403);
    expect(cors(foreign)).toEqual({});
    const local = await call('/mcp', pre('http://localhost:5174'));
    expect(local.status).toBe(403);
    expect(cors(local)).toEqual({});
    expect((await call('/mcp', rpc('https://evil.example', KEY))).status).toBe(403);
  });

  it('gives responses to a listed origin its headers, the 401 challenge readable; strips the library\'s for others', async () => {
    const ok = await call('/mcp', rpc(APP, KEY));
    expect(ok.status).toBe(200);
    expect(cors(ok)).toEqual({ 'access-control-allow-origin': APP, 'access-control-expose-headers': 'Mcp-Session-Id, WWW-Authenticate, Retry-After' });
    const refused = await call('/mcp', rpc('https://app.example.com'));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(refused.headers.get('www-authenticate')).toContain('resource_metadata=');
    const unlisted = await call('/.well-known/oauth-authorization-server', { headers: { origin: 'http://localhost:5174' } });
    expect(unlisted.status).toBe(200);
    expect(cors(unlisted)).toEqual({});
    const listed = await call('/register', { method: 'POST', headers: { origin: APP, 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'page', redirect_uris: [`${APP}/cb`], token_endpoint_auth_method: 'none' }) });
    expect(listed.status).toBe(201);
    expect(cors(listed)).toEqual({ 'access-control-allow-origin': APP, 'access-control-expose-headers': 'Mcp-Session-Id, WWW-Authenticate, Retry-After' });
  });
});
