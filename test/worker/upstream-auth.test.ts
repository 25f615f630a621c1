// Upstream credentials as the spec's security says, in workerd against a real loopback upstream that refuses wrong,
// misplaced or extra credentials (test/support/auth-upstream.ts), with real token endpoints and an OpenID Connect
// discovery document: every scheme type, per operation, AND, OR, `{}` and `security: []`; the client-credentials
// token fetched once per lifetime and renewed once on a 401; clear refusals that send nothing.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { clearTokenCache } from '../../src/auth/oauth-tokens.ts';
import { AUTH_VALUES, allCredentials, call, secured, clientSecretOf, envWith, hits, lastSeen, revokeTokens, SECRET_VALUES, textOf, tokenRequests, unique } from './fixtures/secured.ts';

const logs: string[] = [];
beforeAll(() => {
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) vi.spyOn(console, level).mockImplementation((...a: unknown[]) => void logs.push(a.map(String).join(' ')));
});
afterAll(() => {
  vi.restoreAllMocks();
  // No credential value ever reached a log line.
  for (const secret of SECRET_VALUES) expect(logs.join('\n')).not.toContain(secret);
});
beforeEach(() => clearTokenCache());

describe('each scheme, placed where the spec says', () => {
  const env = envWith({ credentials: allCredentials({ clientApp: `cc-${unique()}`, postApp: `post-${unique()}`, oidc: `oidc-${unique()}` }) });
  const cases: Array<[string, string]> = [
    ['header_key', 'apiKey in a header (the global requirement)'],
    ['query_key', 'apiKey in the query'],
    ['cookie_key', 'apiKey in a cookie'],
    ['basic_auth', 'HTTP basic'],
    ['bearer_auth', 'HTTP bearer'],
    ['token_scheme', 'another HTTP scheme (Token)'],
    ['client_credentials', 'OAuth 2 client credentials, HTTP Basic client authentication'],
    ['form_client_credentials', 'OAuth 2 client credentials at an endpoint that takes them only in the form'],
    ['openid_connect', 'OpenID Connect through its discovery document'],
    ['key_and_basic', 'AND: a header key and HTTP basic together'],
  ];
  for (const [tool, what] of cases) {
    it(`${tool}: ${what}`, async () => {
      const r = await call(env, tool);
      expect(textOf(r), textOf(r)).not.toMatch(/error/i);
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ ok: true });
      for (const s of SECRET_VALUES) expect(JSON.stringify(r)).not.toContain(s);
    });
  }

  it('the query key travels in the URL, not as a header or an argument of the tool', async () => {
    expect((await call(env, 'query_key')).isError).toBeFalsy();
    const seen = await lastSeen('/query');
    expect(seen.url).toBe(`/query?api_key=${AUTH_VALUES.queryKey}`);
    expect(seen.headers.authorization).toBeUndefined();
    // The spec also declares api_key as a query parameter: the generator left it out of the tool's arguments.
    const listed = secured.tool(secured.indexOf('query_key')!).inputSchema as { properties: Record<string, unknown> };
    expect(Object.keys(listed.properties)).not.toContain('api_key');
  });

  it('an upstream that echoes the credential back: the result has it redacted', async () => {
    const r = await call(env, 'echo_request');
    expect(r.isError).toBeFalsy();
    expect(JSON.stringify(r)).not.toContain(AUTH_VALUES.queryKey);
    expect((r.structuredContent as { url: string }).url).toBe('/echo?api_key=[redacted]');
  });

  it('security: [] sends nothing, though every credential is configured', async () => {
    const r = await call(env, 'public_status');
    expect(r.isError).toBeFalsy();
    const seen = await lastSeen('/public');
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.headers['x-api-key']).toBeUndefined();
  });
});

describe('alternatives (OR) and optional credentials', () => {
  it('the first requirement whose credentials are configured: bearer when both are, the query key when only it is', async () => {
    expect((await call(envWith({ credentials: { bearerAuth: AUTH_VALUES.bearerAuth, queryKey: AUTH_VALUES.queryKey } }), 'bearer_or_query')).isError).toBeFalsy();
    expect((await lastSeen('/or')).headers.authorization).toBe(`Bearer ${AUTH_VALUES.bearerAuth}`);
    expect((await call(envWith({ credentials: { queryKey: AUTH_VALUES.queryKey } }), 'bearer_or_query')).isError).toBeFalsy();
    expect((await lastSeen('/or')).url).toBe(`/or?api_key=${AUTH_VALUES.queryKey}`);
  });

  it('`{}` among the alternatives: sent when configured, and the call goes without one otherwise', async () => {
    expect((await call(envWith({ credentials: { bearerAuth: AUTH_VALUES.bearerAuth } }), 'optional_bearer')).isError).toBeFalsy();
    expect((await lastSeen('/optional')).headers.authorization).toBe(`Bearer ${AUTH_VALUES.bearerAuth}`);
    expect((await call(envWith(), 'optional_bearer')).isError).toBeFalsy();
    expect((await lastSeen('/optional')).headers.authorization).toBeUndefined();
  });
});

describe('refusals that send nothing', () => {
  it('a tool whose scheme has no credential: isError naming the scheme and how to configure it', async () => {
    const before = await hits('/cookie');
    const r = await call(envWith({ credentials: { headerKey: AUTH_VALUES.headerKey } }), 'cookie_key');
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/cookie_key needs an upstream credential this server does not have: cookieKey \(API key in cookie session\)/);
    expect(textOf(r)).toContain('UPSTREAM_CREDENTIALS as {"cookieKey": "<the key>"}');
    expect(textOf(r)).toContain('--credential cookieKey=');
    expect(await hits('/cookie')).toBe(before);
  });

  it('OR with neither configured names both alternatives', async () => {
    const r = await call(envWith(), 'bearer_or_query');
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/one of bearerAuth \(HTTP bearer\); or queryKey \(API key in query parameter api_key\)/);
  });

  it('an unsupported scheme (mutualTLS) is refused by name', async () => {
    const r = await call(envWith({ credentials: allCredentials() }), 'mutual_tls');
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/mtls \(mutualTLS, which this server cannot send\)/);
    expect(await hits('/mtls')).toBe(0);
  });

  it('a malformed credential (basic without a colon) is refused at call time, naming the scheme, never quoting it', async () => {
    const before = await hits('/basic');
    const r = await call(envWith({ credentials: { basicAuth: 'no-colon-password-value' } }), 'basic_auth');
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/scheme basicAuth is HTTP basic: its credential is user:password/);
    expect(textOf(r)).not.toContain('no-colon-password-value');
    expect(await hits('/basic')).toBe(before);
  });

  it('a token endpoint that refuses the client: isError naming the scheme and the endpoint, nothing sent to the API', async () => {
    const client = `fail-${unique()}`;
    const before = await hits('/cc');
    const r = await call(envWith({ credentials: { clientApp: `${client}:${clientSecretOf(client)}` } }), 'client_credentials');
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/Could not get an access token for scheme clientApp's token endpoint http:\/\/127\.0\.0\.1:\d+\/oauth\/token: HTTP 401 invalid_client \(Client authentication failed\.\)/);
    expect(textOf(r)).not.toContain(clientSecretOf(client));
    expect(await hits('/cc')).toBe(before);
  });
});

describe('a token endpoint that quotes the client secret in its refusal', () => {
  it('the refusal the model reads has the secret redacted, and nothing is sent to the API', async () => {
    const client = `quote-${unique()}`;
    const before = await hits('/cc');
    const r = await call(envWith({ credentials: { clientApp: `${client}:${clientSecretOf(client)}` } }), 'client_credentials');
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/Could not get an access token for scheme clientApp's token endpoint .*: HTTP 401 invalid_client \(unknown client_secret \[redacted\]\)/);
    expect(textOf(r)).not.toContain(clientSecretOf(client));
    expect(await hits('/cc')).toBe(before);
  });
});

describe('an upstream 401 says what was sent', () => {
  it('names the scheme whose credential it refused', async () => {
    const r = await call(envWith({ credentials: { headerKey: 'hk-wrong-value-1234' } }), 'header_key');
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('Unauthorized: the upstream did not accept the credential of scheme headerKey (API key in header X-Api-Key)');
    expect(textOf(r)).not.toContain('hk-wrong-value-1234');
  });

  it('says that none was configured when none was sent', async () => {
    const r = await call(envWith({ UPSTREAM_SECURITY: 'ignore' }), 'header_key');
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/the upstream wants credentials, and this server sent no credential: this server applies none of the spec's security schemes \(UPSTREAM_SECURITY=ignore/);
  });
});

describe('client credentials: one token per lifetime, shared by the isolate', () => {
  it('20 calls, 10 of them at once, fetch one token', async () => {
    const client = `once-${unique()}`;
    const env = envWith({ credentials: { clientApp: `${client}:${clientSecretOf(client)}` } });
    for (let i = 0; i < 10; i++) expect((await call(env, 'client_credentials')).isError).toBeFalsy();
    const together = await Promise.all(Array.from({ length: 10 }, () => call(env, 'client_credentials')));
    expect(together.every((r) => !r.isError)).toBe(true);
    expect(await tokenRequests(client)).toBe(1);
    // The scope the requirement names was asked for.
    expect((await lastSeen('/cc')).headers.authorization).toMatch(/^Bearer at-token-once-/);
  });

  it('concurrent first calls share one fetch (a slow token endpoint)', async () => {
    const client = `slow-${unique()}`;
    const env = envWith({ credentials: { clientApp: `${client}:${clientSecretOf(client)}` } });
    const results = await Promise.all(Array.from({ length: 8 }, () => call(env, 'client_credentials')));
    expect(results.every((r) => !r.isError)).toBe(true);
    expect(await tokenRequests(client)).toBe(1);
  });

  it('a token is not used past its expiry: a 1 s token is fetched again after it lapsed', async () => {
    const client = `ttl1-${unique()}`;
    const env = envWith({ credentials: { clientApp: `${client}:${clientSecretOf(client)}` } });
    expect((await call(env, 'client_credentials')).isError).toBeFalsy();
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await call(env, 'client_credentials')).isError).toBeFalsy();
    expect(await tokenRequests(client)).toBe(2);
  });

  it('a token the upstream refuses (revoked early) is renewed once, and the call, body included, goes through', async () => {
    const client = `renew-${unique()}`;
    const env = envWith({ credentials: { clientApp: `${client}:${clientSecretOf(client)}` } });
    expect((await call(env, 'client_credentials')).isError).toBeFalsy();
    await revokeTokens(client);
    const r = await call(env, 'client_credentials_write', { note: 'sent twice' });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(await tokenRequests(client)).toBe(2);
    expect(JSON.parse((await lastSeen('/cc-write')).body)).toEqual({ note: 'sent twice' });
  });
});

describe('UPSTREAM_SECURITY=ignore (a local mock)', () => {
  it('refuses nothing for want of a credential and sends none', async () => {
    const env = envWith({ UPSTREAM_SECURITY: 'ignore', credentials: { cookieKey: AUTH_VALUES.cookieKey } });
    const r = await call(env, 'public_status');
    expect(r.isError).toBeFalsy();
    const refusedOrSent = await call(env, 'cookie_key');
    // The checking upstream refuses it (no cookie was sent); the Worker did not refuse it itself.
    expect(textOf(refusedOrSent)).toMatch(/^Upstream error: HTTP 401/);
    expect((await lastSeen('/cookie')).headers.cookie).toBeUndefined();
  });
});
