// Upstream credentials per CREDENTIAL_MODE against the checking upstream (test/support/auth-upstream.ts): a caller's
// own token in passthrough placed as each operation's scheme says; per-key credentials by scheme name in customer
// mode, sealed in the key record; UPSTREAM_TOKEN and UPSTREAM_AUTH_HEADER as before; and what tools/list and the page
// say about a tool whose credential is missing.
import { env as bindings } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { importEncryptionKey, metadataOf, newKey, RECORD_PREFIX } from '../../src/auth/keys-core.ts';
import { createApp } from '../../src/app.ts';
import { bytesToBase64 } from '../../src/lib/bytes.ts';
import { AUTH_VALUES, call, clientSecretOf, envWith, lastSeen, rpc, secured, SECRET_VALUES, textOf, unique, USER_TOKEN } from './fixtures/secured.ts';

const ENC = bytesToBase64(crypto.getRandomValues(new Uint8Array(32)));
const logs: string[] = [];
beforeAll(() => {
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) vi.spyOn(console, level).mockImplementation((...a: unknown[]) => void logs.push(a.map(String).join(' ')));
});
afterAll(() => {
  vi.restoreAllMocks();
  for (const secret of [...SECRET_VALUES, USER_TOKEN]) expect(logs.join('\n')).not.toContain(secret);
});

async function customerKey(credentials: Record<string, string>) {
  const made = await newKey({ prefix: 'mcp_test_', customer: { id: `c-${unique()}`, name: 'Acme' }, upstreamCredentials: credentials, encryptionKey: await importEncryptionKey(ENC) });
  await bindings.KEYS!.put(RECORD_PREFIX + made.hash, JSON.stringify(made.record), { metadata: metadataOf(made.record) });
  return made;
}

describe('passthrough: the caller’s own token, placed as the scheme says', () => {
  const env = envWith({ CREDENTIAL_MODE: 'passthrough' });
  it('in the query for an apiKey-in-query operation, as a bearer for an OAuth one, as Basic for a basic one', async () => {
    expect((await call(env, 'query_key', {}, AUTH_VALUES.queryKey)).isError).toBeFalsy();
    expect((await lastSeen('/query')).url).toBe(`/query?api_key=${AUTH_VALUES.queryKey}`);
    expect((await call(env, 'user_token', {}, USER_TOKEN)).isError).toBeFalsy();
    expect((await lastSeen('/user')).headers.authorization).toBe(`Bearer ${USER_TOKEN}`);
    expect((await call(env, 'basic_auth', {}, AUTH_VALUES.basicAuth)).isError).toBeFalsy();
  });

  it('AND: the operator’s credential fills one scheme, the caller’s token the other', async () => {
    const both = envWith({ CREDENTIAL_MODE: 'passthrough', UPSTREAM_CREDENTIALS: JSON.stringify({ headerKey: AUTH_VALUES.headerKey }) });
    const r = await call(both, 'key_and_basic', {}, AUTH_VALUES.basicAuth);
    expect(r.isError, textOf(r)).toBeFalsy();
  });

  it('security: [] gets no token, not even the caller’s', async () => {
    expect((await call(env, 'public_status', {}, 'caller-own-token-123')).isError).toBeFalsy();
    expect((await lastSeen('/public')).headers.authorization).toBeUndefined();
  });
});

describe('customer mode: credentials by scheme name per key', () => {
  const env = envWith({ CREDENTIAL_MODE: 'customer', CREDENTIAL_ENCRYPTION_KEY: ENC, UPSTREAM_CREDENTIALS: JSON.stringify({ headerKey: AUTH_VALUES.headerKey }) });
  it('each key sends its own; the operator’s fill the schemes a key lacks', async () => {
    const client = `cust-${unique()}`;
    SECRET_VALUES.push(clientSecretOf(client));
    const { key, record } = await customerKey({ cookieKey: AUTH_VALUES.cookieKey, clientApp: `${client}:${clientSecretOf(client)}` });
    expect(JSON.stringify(record)).not.toContain(AUTH_VALUES.cookieKey);
    expect((await call(env, 'cookie_key', {}, key)).isError).toBeFalsy();
    expect((await call(env, 'client_credentials', {}, key)).isError).toBeFalsy();
    expect((await call(env, 'header_key', {}, key)).isError).toBeFalsy();
    const r = await call(env, 'basic_auth', {}, key);
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('npm run keys -- create … --credential basicAuth=<user:password>');
  });

  it('a sealed credentials field does not open under another key or in the single-credential field', async () => {
    const donor = await customerKey({ cookieKey: AUTH_VALUES.cookieKey });
    const thief = await newKey({ prefix: 'mcp_test_', customer: { id: 'thief', name: 'T' } });
    thief.record.upstreamCredentials = donor.record.upstreamCredentials;
    await bindings.KEYS!.put(RECORD_PREFIX + thief.hash, JSON.stringify(thief.record), { metadata: metadataOf(thief.record) });
    expect((await rpc(env, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, thief.key)).status).toBe(500);
    const moved = await newKey({ prefix: 'mcp_test_', customer: { id: 'moved', name: 'M' } });
    const own = await customerKey({ cookieKey: AUTH_VALUES.cookieKey });
    moved.record.upstreamCredential = own.record.upstreamCredentials;
    await bindings.KEYS!.put(RECORD_PREFIX + moved.hash, JSON.stringify(moved.record), { metadata: metadataOf(moved.record) });
    expect((await rpc(env, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, moved.key)).status).toBe(500);
  });
});

describe('UPSTREAM_TOKEN, with and without UPSTREAM_AUTH_HEADER', () => {
  it('without the header var it is placed as the operation’s scheme says', async () => {
    const env = envWith({ CREDENTIAL_MODE: 'gateway', UPSTREAM_TOKEN: AUTH_VALUES.queryKey });
    expect((await call(env, 'query_key')).isError).toBeFalsy();
    expect((await lastSeen('/query')).url).toBe(`/query?api_key=${AUTH_VALUES.queryKey}`);
  });

  it('UPSTREAM_AUTH_HEADER sends it in that header on every call that needs a credential, whatever the scheme', async () => {
    const env = envWith({ CREDENTIAL_MODE: 'gateway', UPSTREAM_TOKEN: AUTH_VALUES.headerKey, UPSTREAM_AUTH_HEADER: 'X-Api-Key' });
    expect((await call(env, 'header_key')).isError).toBeFalsy();
    expect((await lastSeen('/header')).headers['x-api-key']).toBe(AUTH_VALUES.headerKey);
  });
});

describe('what tools/list and the page say', () => {
  const list = async (env: ReturnType<typeof envWith>) => (await rpc(env, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).body.result.tools as Array<{ name: string; description: string }>;

  it('a tool whose credential is missing is listed, with one line naming the scheme; configured tools get nothing', async () => {
    const tools = await list(envWith({ credentials: { headerKey: AUTH_VALUES.headerKey } }));
    const byName = new Map(tools.map((t) => [t.name, t.description]));
    expect(byName.get('cookie_key')).toMatch(/\n\nUnavailable here: no upstream credential configured for cookieKey\.$/);
    expect(byName.get('bearer_or_query')).toMatch(/\n\nUnavailable here: no upstream credential configured for bearerAuth or queryKey\.$/);
    expect(byName.get('key_and_basic')).toMatch(/\n\nUnavailable here: no upstream credential configured for basicAuth and headerKey\.$/);
    expect(byName.get('header_key')).not.toMatch(/Unavailable/);
    expect(byName.get('public_status')).not.toMatch(/Unavailable/);
    expect(byName.get('optional_bearer')).not.toMatch(/Unavailable/);
    expect(tools.length).toBe(secured.count);
  });

  it('against a local mock (UPSTREAM_SECURITY=ignore) nothing is marked', async () => {
    const tools = await list(envWith({ UPSTREAM_SECURITY: 'ignore' }));
    expect(tools.some((t) => t.description.includes('Unavailable'))).toBe(false);
  });

  it('the page lists the schemes with their status, and each tool’s JSON says what it needs, never a value', async () => {
    const app = createApp(secured);
    const env = envWith({ credentials: { headerKey: AUTH_VALUES.headerKey } });
    const page = await (await app.fetch(new Request('http://127.0.0.1:8787/'), env)).text();
    expect(page).toContain('<h2>Upstream credentials</h2>');
    expect(page).toMatch(/<td><code>headerKey<\/code><\/td><td>API key in header X-Api-Key<\/td><td>configured on this server<\/td>/);
    expect(page).toMatch(/<td><code>cookieKey<\/code><\/td><td>API key in cookie session<\/td><td>not configured on this server<\/td>/);
    expect(page).not.toContain(AUTH_VALUES.headerKey);
    const detail = (await (await app.fetch(new Request('http://127.0.0.1:8787/catalogue/tools/client_credentials.json'), env)).json()) as { auth: string };
    expect(detail.auth).toBe('clientApp (OAuth 2 (clientCredentials), scopes read): not configured on this server');
    const open = (await (await app.fetch(new Request('http://127.0.0.1:8787/catalogue/tools/public_status.json'), env)).json()) as { auth: string };
    expect(open.auth).toMatch(/^none/);
  });

  it('code mode: api calls get their credentials in the host; the program sees only the (redacted) result', async () => {
    const env = envWith({ LOADER: bindings.LOADER, credentials: { queryKey: AUTH_VALUES.queryKey } });
    const code = 'const echoed = await api.echo_request();\nconst refused = await api.cookie_key().catch((e) => String(e.message ?? e));\nreturn { echoed, refused };';
    const { body } = await rpc(env, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'execute', arguments: { code } } }, undefined, '/mcp/code');
    const text = JSON.stringify(body);
    expect(body.result.isError, text).toBeFalsy();
    expect(text).toContain('/echo?api_key=[redacted]');
    expect(text).toContain('needs an upstream credential this server does not have: cookieKey');
    expect(text).not.toContain(AUTH_VALUES.queryKey);
  });

  it('a refused call is logged and metered as no_credential, naming no value', async () => {
    logs.length = 0;
    const r = await call(envWith(), 'cookie_key');
    expect(r.isError).toBe(true);
    const line = logs.find((l) => l.includes('"tool_call"') && l.includes('cookie_key'));
    expect(line).toContain('"outcome":"no_credential"');
  });
});
