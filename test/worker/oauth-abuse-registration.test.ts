// OAuth abuse suite, part 1: what anyone with the URL can make the server store or show, over HTTP through the real
// app and library in workerd. Registration floods and oversized or spoofing metadata (issue: 200 × POST /register,
// 1,000,000-character client_name, U+202E on the consent page), consent-page floods, registrations that are never
// used, and authorization server metadata that must match what registration accepts.
import { env as bindings } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { ConsentSession } from '../support/oauth-consent.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';
import { authorizeUrl, harness, issueTokens, oauthEnv, pkce, REDIRECT, registerClient } from './fixtures/oauth.ts';

const loaded = loadCatalogue(await encodeCatalogue(fixtureCatalogue()));
const OPERATOR_KEY = 'mcp_test_abuseregistration000000000000000';
const h = harness(loaded, oauthEnv({ API_KEY: OPERATOR_KEY }));
const DAY = 86_400;

let ipCounter = 0;
/** Addresses no other test file uses, one per test that counts (the limiter's windows live in the Durable Object). */
const freshIp = () => `203.0.113.${++ipCounter}`;

const metadata = (extra: Record<string, unknown> = {}) => ({ client_name: 'Abuse test', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', ...extra });

function register(body: unknown, ip = freshIp(), init: RequestInit = {}): Promise<Response> {
  return h.fetch('/register', { method: 'POST', headers: { 'content-type': 'application/json', 'cf-connecting-ip': ip }, body: typeof body === 'string' ? body : JSON.stringify(body), ...init });
}

async function refusal(res: Response): Promise<{ status: number; error: string; description: string }> {
  const body = (await res.json()) as { error: string; error_description: string };
  return { status: res.status, error: body.error, description: body.error_description };
}

/** The expiry KV holds for a key (KV's own TTL, which is what deletes a record). */
async function expirationOf(kv: KVNamespace, key: string): Promise<number | undefined> {
  return (await kv.list({ prefix: key })).keys.find((k) => k.name === key)?.expiration;
}

describe('registration floods', () => {
  it('200 × POST /register from one address: the first 60 (OAUTH_REGISTER_RATE, 60/hour) are stored, the rest get 429', { timeout: 180_000 }, async () => {
    const ip = freshIp();
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) statuses.push((await register(metadata({ client_name: `flood ${i}` }), ip)).status);
    expect(statuses.slice(0, 60).every((s) => s === 201)).toBe(true);
    expect(statuses.slice(60).every((s) => s === 429)).toBe(true);
    const limited = await register(metadata(), ip);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refusal(limited)).toMatchObject({ error: 'rate_limited', description: expect.stringMatching(/Too many client registrations from your network/) });
    // Another address is not affected.
    expect((await register(metadata())).status).toBe(201);
  });

  it('counts an IPv6 /64 as one address', async () => {
    const limited = harness(loaded, oauthEnv({ API_KEY: OPERATOR_KEY, OAUTH_REGISTER_RATE: '2/hour' }));
    const send = (ip: string) => limited.fetch('/register', { method: 'POST', headers: { 'content-type': 'application/json', 'cf-connecting-ip': ip }, body: JSON.stringify(metadata()) });
    expect((await send('2001:db8:77:1::1')).status).toBe(201);
    expect((await send('2001:db8:77:1:ffff::2')).status).toBe(201);
    expect((await send('2001:db8:77:1:abcd:1:2:3')).status).toBe(429);
    expect((await send('2001:db8:77:2::1')).status).toBe(201);
  });

  it('on a local server (a loopback host, CLIENT_ADDRESS unset) a new CF-Connecting-IP per request resets nothing: registrations, key attempts and consent pages share one bucket', async () => {
    // The default, auto: the harness's origin is 127.0.0.1, as under wrangler dev, which passes a client's own header through.
    const local = harness(loaded, oauthEnv({ API_KEY: OPERATOR_KEY, CLIENT_ADDRESS: undefined, OAUTH_REGISTER_RATE: '2/hour', OAUTH_AUTHORIZE_RATE: '3/hour' }));
    const send = () => local.fetch('/register', { method: 'POST', headers: { 'content-type': 'application/json', 'cf-connecting-ip': freshIp() }, body: JSON.stringify(metadata()) });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await send()).status);
    expect(statuses).toEqual([201, 201, 429, 429, 429]);
    // Consent pages opened: the same, whatever address each request claims.
    const url = authorizeUrl(await registerClient(h, 'Local consent'), (await pkce()).challenge);
    const pages = [];
    for (let i = 0; i < 5; i++) pages.push((await local.fetch(url, { headers: { 'cf-connecting-ip': freshIp() }, redirect: 'manual' })).status);
    expect(pages).toEqual([200, 200, 200, 429, 429]);
    // CLIENT_ADDRESS=shared does the same whatever Host the request names (the local scripts set it).
    const shared = harness(loaded, oauthEnv({ API_KEY: OPERATOR_KEY, CLIENT_ADDRESS: 'shared', OAUTH_REGISTER_RATE: '2/hour' }));
    const viaHost = () => shared.fetch('/register', { method: 'POST', headers: { 'content-type': 'application/json', 'cf-connecting-ip': freshIp(), host: 'mcp.example.workers.dev' }, body: JSON.stringify(metadata()) });
    expect((await viaHost()).status).toBe(429); // the shared bucket above is already spent
  });

  it('fails closed without the limiter: 503, nothing stored', async () => {
    const unbound = harness(loaded, oauthEnv({ API_KEY: OPERATOR_KEY, KEY_RATE_LIMITER: undefined }));
    const before = (await bindings.OAUTH_KV.list({ prefix: 'client:' })).keys.length;
    const res = await unbound.fetch('/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata()) });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('60');
    expect((await bindings.OAUTH_KV.list({ prefix: 'client:' })).keys.length).toBe(before);
  });
});

describe('registration metadata', () => {
  it('20 registrations with a 1,000,000-character client_name: all refused, none stored', async () => {
    const before = (await bindings.OAUTH_KV.list({ prefix: 'client:' })).keys.length;
    const huge = JSON.stringify(metadata({ client_name: 'A'.repeat(1_000_000) }));
    for (let i = 0; i < 20; i++) {
      const res = await register(huge);
      expect(res.status).toBe(413);
      expect((await refusal(res)).description).toMatch(/at most 16384 bytes/);
    }
    expect((await bindings.OAUTH_KV.list({ prefix: 'client:' })).keys.length).toBe(before);
  });

  it('bounds the body whether or not it declares its length', async () => {
    const body = JSON.stringify(metadata({ software_statement: 'x'.repeat(17_000) }));
    expect((await register(body)).status).toBe(413);
    const stream = new Blob([body]).stream();
    const chunked = await register('', freshIp(), { body: stream, duplex: 'half' } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it('client_name: at most 100 characters, and no control, formatting or bidirectional characters', async () => {
    expect((await register(metadata({ client_name: 'n'.repeat(100) }))).status).toBe(201);
    expect((await register(metadata({ client_name: '名'.repeat(100) }))).status).toBe(201);
    expect(await refusal(await register(metadata({ client_name: 'n'.repeat(101) })))).toMatchObject({ status: 400, error: 'invalid_client_metadata', description: 'client_name may be at most 100 characters; got 101.' });
    for (const spoof of ['Claude\u202Emoc.live', 'Cla\u200Bude', 'Claude\nOfficial', 'Claude\u2066x\u2069', 'Tab\tbed', 'bell\u0007', 'C\u{E0041}laude', 'line\u2028sep', 'priv\uE000ate']) {
      const res = await refusal(await register(metadata({ client_name: spoof })));
      expect(res, JSON.stringify(spoof)).toMatchObject({ status: 400, error: 'invalid_client_metadata', description: 'client_name may not contain control, formatting or bidirectional characters.' });
    }
    // A language-tagged name is held to the same rules.
    expect(await refusal(await register(metadata({ 'client_name#ar': 'x\u202Ey' })))).toMatchObject({ status: 400, description: expect.stringMatching(/^client_name#ar may not contain/) });
    expect((await register(metadata({ client_name: 42 }))).status).toBe(400);
  });

  it('redirect URIs, URIs and contacts have count and length limits', async () => {
    const uris = (n: number) => Array.from({ length: n }, (_, i) => `http://127.0.0.1:${40000 + i}/callback`);
    expect((await register(metadata({ redirect_uris: uris(10) }))).status).toBe(201);
    expect(await refusal(await register(metadata({ redirect_uris: uris(11) })))).toMatchObject({ status: 400, error: 'invalid_redirect_uri', description: 'redirect_uris may list at most 10 URIs; got 11.' });
    expect(await refusal(await register(metadata({ redirect_uris: [`${REDIRECT}?${'q'.repeat(2000)}`] })))).toMatchObject({ status: 400, error: 'invalid_redirect_uri' });
    expect(await refusal(await register(metadata({ logo_uri: `https://example.com/${'l'.repeat(2000)}` })))).toMatchObject({ status: 400, description: 'logo_uri may be at most 2000 characters.' });
    expect((await register(metadata({ contacts: Array.from({ length: 11 }, (_, i) => `c${i}@example.com`) }))).status).toBe(400);
    expect((await register(metadata({ software_id: 's'.repeat(513) }))).status).toBe(400);
    expect((await register(metadata({ grant_types: Array.from({ length: 17 }, () => 'authorization_code') }))).status).toBe(400);
  });
});

describe('registrations that are never used', () => {
  it('expire after 24 h; the first token answer extends one to the full 90 days', async () => {
    const clientId = await registerClient(h, 'Expiry test');
    const unused = await expirationOf(bindings.OAUTH_KV, `client:${clientId}`);
    const now = Math.floor(Date.now() / 1000);
    expect(unused).toBeGreaterThan(now + DAY - 300);
    expect(unused).toBeLessThanOrEqual(now + DAY + 5);

    const tokens = await issueTokens(h, OPERATOR_KEY);
    const used = await expirationOf(bindings.OAUTH_KV, `client:${tokens.clientId}`);
    expect(used).toBeGreaterThan(now + 89 * DAY);
  });

  it('tells a confidential client the lifetime it keeps by using its registration', async () => {
    const res = await register(metadata({ token_endpoint_auth_method: 'client_secret_post' }));
    expect(res.status).toBe(201);
    const body = (await res.json()) as { client_id_issued_at: number; client_secret_expires_at: number };
    expect(body.client_secret_expires_at - body.client_id_issued_at).toBe(90 * DAY);
  });
});

describe('consent page floods', () => {
  it('200 × GET /authorize from one address: 60 consent transactions (OAUTH_AUTHORIZE_RATE, 60/hour), then 429', { timeout: 180_000 }, async () => {
    const clientId = await registerClient(h, 'Authorize flood');
    const { challenge } = await pkce();
    const url = authorizeUrl(clientId, challenge);
    const ip = freshIp();
    const before = (await bindings.OAUTH_KV.list({ prefix: 'transaction:' })).keys.length;
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) statuses.push((await h.fetch(url, { headers: { 'cf-connecting-ip': ip }, redirect: 'manual' })).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.slice(60).every((s) => s === 429)).toBe(true);
    expect((await bindings.OAUTH_KV.list({ prefix: 'transaction:' })).keys.length - before).toBe(60);
    const limited = await h.fetch(url, { headers: { 'cf-connecting-ip': ip }, redirect: 'manual' });
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await limited.text()).toContain('Too many authorizations were started from your network');
    expect((await h.fetch(url, { headers: { 'cf-connecting-ip': freshIp() }, redirect: 'manual' })).status).toBe(200);
  });
});

describe('the consent page shows a client name safely', () => {
  it('a stored name with a right-to-left override, zero-width characters and 1 MB is shown cleaned and cut to 100 characters', async () => {
    // A record as the library stores it, with a name registration would refuse today (stored before the rule, or
    // by another tool): the page must still never show it raw.
    const clientId = 'legacyspoofclient';
    const name = `Trusted\u202Eexe.evil\u200B ${'B'.repeat(1_000_000)}`;
    await bindings.OAUTH_KV.put(`client:${clientId}`, JSON.stringify({ clientId, redirectUris: [REDIRECT], clientName: name, tokenEndpointAuthMethod: 'none', grantTypes: ['authorization_code', 'refresh_token'], responseTypes: ['code'], registrationDate: 0 }));
    const { challenge } = await pkce();
    const session = await new ConsentSession(h.fetch, authorizeUrl(clientId, challenge), freshIp()).open();
    expect(session.page.status).toBe(200);
    expect(session.html).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B-\u200F]/);
    expect(session.html).not.toContain('B'.repeat(100));
    const shown = /<h1>Connect (.*?) to /.exec(session.html)![1]!;
    expect(shown).toBe(`Trustedexe.evil ${'B'.repeat(83)}…`);
    expect([...shown]).toHaveLength(100);
  });
});

describe('authorization server metadata matches registration', () => {
  it('every advertised client authentication method, grant type and response type registers', async () => {
    const md = (await (await h.fetch('/.well-known/oauth-authorization-server')).json()) as Record<string, string[]>;
    expect(md.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post', 'none']);
    expect(md).not.toHaveProperty('token_endpoint_auth_signing_alg_values_supported');
    for (const method of md.token_endpoint_auth_methods_supported!) {
      const res = await register(metadata({ token_endpoint_auth_method: method, grant_types: md.grant_types_supported, response_types: md.response_types_supported }));
      expect(res.status, method).toBe(201);
      expect(((await res.json()) as { token_endpoint_auth_method: string }).token_endpoint_auth_method).toBe(method);
    }
    // What it does not advertise, registration refuses.
    expect((await register(metadata({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://example.com/jwks.json' }))).status).toBe(400);
    expect((await register(metadata({ grant_types: ['client_credentials'] }))).status).toBe(400);
    expect(md.code_challenge_methods_supported).toEqual(['S256']);
  });
});

describe('values longer than a KV key', () => {
  it('a client_id, code or refresh token past 512 bytes is a 400, not the 500 of a KV lookup that cannot be made', async () => {
    const long = 'c'.repeat(600);
    const page = await h.fetch(`/authorize?client_id=${long}&redirect_uri=${encodeURIComponent(REDIRECT)}&response_type=code&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256`, { headers: { 'cf-connecting-ip': freshIp() } });
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('client_id is 600 characters long');
    for (const [field, error] of [['client_id', 'invalid_client'], ['code', 'invalid_grant'], ['refresh_token', 'invalid_grant']] as const) {
      const form = new URLSearchParams({ grant_type: field === 'refresh_token' ? 'refresh_token' : 'authorization_code', code: 'a:b:c', client_id: 'x', redirect_uri: REDIRECT, code_verifier: 'v', [field]: long });
      const res = await h.fetch('/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
      expect(await refusal(res), field).toMatchObject({ status: 400, error });
    }
  });
});
