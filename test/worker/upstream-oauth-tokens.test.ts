// Per-user OAuth to the upstream, the token side: a connected account's access token is refreshed when it expires and
// once after a 401, concurrent calls share one refresh, a refresh the upstream refuses says to reconnect; the tokens
// are stored sealed and never logged; revoking the grant (the operator's /admin/grants, the client's RFC 7009
// revocation, a new grant replacing it) deletes them, and a revoked key stops them; and OAUTH_SIGN_IN=key-or-account
// lets the connected account alone authorize. Against the loopback authorization server of test/support/auth-code-server.ts.
import { env as bindings } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { metadataOf, newKey, RECORD_PREFIX } from '../../src/auth/keys-core.ts';
import { revokeStoredKey, tokenRequest } from './fixtures/oauth.ts';
import { call, OPERATOR_KEY, rpc, textOf } from './fixtures/secured.ts';
import { codeStats, connectAccount, finishConsent, newClient, noSecretsInLogs, revokeAtUpstream, storedTokens, upstreamOAuth, type Granted } from './fixtures/upstream-oauth.ts';

const ADMIN = 'upstream-oauth-admin-0123456789';
const keys: string[] = [];
noSecretsInLogs(() => keys);
const client = newClient;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const userCall = (h: ReturnType<typeof upstreamOAuth>, g: Granted) => call(h.env, 'user_token', {}, g.access);

describe('refresh', () => {
  it('an expired access token is refreshed before the call, once; the next call uses the new one', async () => {
    const id = client('ttl2');
    const h = upstreamOAuth(id, { API_KEY: OPERATOR_KEY });
    const g = await finishConsent(await connectAccount(h), OPERATOR_KEY);
    expect((await userCall(h, g)).isError).toBeFalsy();
    expect((await codeStats(id)).refreshes).toBe(0);
    await sleep(2_100);
    const r = await userCall(h, g);
    expect(r.isError, textOf(r)).toBeFalsy();
    expect((await codeStats(id)).refreshes).toBe(1);
    expect((await userCall(h, g)).isError).toBeFalsy();
    expect((await codeStats(id)).refreshes).toBe(1);
  });

  it('a 401 renews the token once and sends the call again; 8 concurrent calls share one refresh', async () => {
    const id = client('renew');
    const h = upstreamOAuth(id, { API_KEY: OPERATOR_KEY });
    const g = await finishConsent(await connectAccount(h), OPERATOR_KEY);
    expect((await userCall(h, g)).isError).toBeFalsy();
    await revokeAtUpstream(id, 'access');
    const r = await userCall(h, g);
    expect(r.isError, textOf(r)).toBeFalsy();
    expect((await codeStats(id)).refreshes).toBe(1);

    const expiring = client('ttl1');
    const h2 = upstreamOAuth(expiring, { API_KEY: OPERATOR_KEY });
    const g2 = await finishConsent(await connectAccount(h2), OPERATOR_KEY);
    await sleep(1_100);
    const results = await Promise.all(Array.from({ length: 8 }, () => userCall(h2, g2)));
    expect(results.filter((x) => x.isError)).toEqual([]);
    expect((await codeStats(expiring)).refreshes).toBe(1);
  });

  it('a refresh the upstream refuses (access withdrawn there) says to reconnect, sends nothing, and forgets the tokens', async () => {
    const id = client('withdrawn');
    const h = upstreamOAuth(id, { API_KEY: OPERATOR_KEY });
    const g = await finishConsent(await connectAccount(h), OPERATOR_KEY);
    const sealed = await storedTokens(g);
    await revokeAtUpstream(id, 'all');
    const r = await userCall(h, g);
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/Unauthorized: the upstream did not accept the token of the account you connected for scheme userCode \(renewing it did not help\)\. .*sign in to this server again and reconnect the account\./);
    expect(await storedTokens(g)).toBeNull();
    expect(sealed).not.toBeNull();
    const again = await userCall(h, g);
    expect(textOf(again)).toBe('The account you connected for scheme userCode is no longer connected here. Nothing was sent to the API; sign in to this server again (authorize it anew) and connect the account on its consent page.');
  });

  it('without a refresh token, an expired token says to reconnect', async () => {
    const h = upstreamOAuth(client('ttl1-norefresh'), { API_KEY: OPERATOR_KEY });
    const g = await finishConsent(await connectAccount(h), OPERATOR_KEY);
    await sleep(1_100);
    expect(textOf(await userCall(h, g))).toContain('has expired, and the API gave no refresh token to renew it. Nothing was sent to the API; sign in to this server again');
  });
});

describe('storage and revocation', () => {
  it('stores the tokens sealed under the grant’s own key: no token in KV, and a record under another grant’s name does not open', async () => {
    const h = upstreamOAuth(client('sealed'), { API_KEY: OPERATOR_KEY });
    const a = await finishConsent(await connectAccount(h), OPERATOR_KEY);
    const b = await finishConsent(await connectAccount(h), OPERATOR_KEY);
    const stored = (await storedTokens(a))!;
    expect(stored).toMatch(/^[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(stored).not.toMatch(/u[ar]-/);
    // b's record replaced by a's sealed value: b's key and name do not open it, so b is simply not connected.
    await bindings.OAUTH_KV!.put(`upstream-tokens:${b.userId}:${b.grantId}`, stored);
    expect(textOf(await userCall(h, b))).toContain('is no longer connected here');
    expect((await userCall(h, a)).isError).toBeFalsy();
  });

  it('/admin/grants DELETE, the client’s own revocation (RFC 7009) and a new grant replacing the old delete the tokens', async () => {
    const h = upstreamOAuth(client('revoke'), { API_KEY: OPERATOR_KEY, ADMIN_TOKEN: ADMIN });
    const byAdmin = await finishConsent(await connectAccount(h), OPERATOR_KEY);
    expect(await storedTokens(byAdmin)).not.toBeNull();
    const res = await h.fetch(`/admin/grants/${byAdmin.grantId}?key=${byAdmin.userId}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } });
    expect(res.status).toBe(200);
    expect(await storedTokens(byAdmin)).toBeNull();

    const byClient = await finishConsent(await connectAccount(h), OPERATOR_KEY);
    const revoked = await h.fetch('/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: byClient.refresh, token_type_hint: 'refresh_token', client_id: byClient.clientId }) });
    expect(revoked.status).toBe(200);
    expect(await storedTokens(byClient)).toBeNull();

    const old = await finishConsent(await connectAccount(h), OPERATOR_KEY);
    const replacing = await finishConsent(await connectAccount(h, { clientId: old.clientId }), OPERATOR_KEY);
    expect(await storedTokens(old)).toBeNull();
    expect(await storedTokens(replacing)).not.toBeNull();
    expect((await rpc(h.env, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, old.access)).status).toBe(401);
  });

  it('a revoked key stops its grant’s account tokens with it', async () => {
    const h = upstreamOAuth(client('keyrev'), { API_KEY: OPERATOR_KEY });
    const made = await newKey({ prefix: 'mcp_test_', customer: { id: 'initech', name: 'Initech' } });
    keys.push(made.key);
    await bindings.KEYS!.put(RECORD_PREFIX + made.hash, JSON.stringify(made.record), { metadata: metadataOf(made.record) });
    const g = await finishConsent(await connectAccount(h), made.key);
    expect(g.userId).toBe(made.record.id);
    expect((await userCall(h, g)).isError).toBeFalsy();
    await revokeStoredKey(bindings.KEYS!, made.record);
    expect((await rpc(h.env, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'user_token', arguments: {} } }, g.access)).status).toBe(401);
  });
});

describe('OAUTH_SIGN_IN=key-or-account', () => {
  it('a connected account alone authorizes: no key on the page, one owner for such grants, listed for the operator', async () => {
    const h = upstreamOAuth(client('alone'), { API_KEY: OPERATOR_KEY, OAUTH_SIGN_IN: 'key-or-account', ADMIN_TOKEN: ADMIN });
    const c = await connectAccount(h, { user: 'kim' });
    expect(c.html).toContain('(optional: your account is connected)');
    expect(c.html).not.toMatch(/id="key" name="key" type="password" required/);
    const g = await finishConsent(c, undefined);
    expect(g.userId).toBe('accounts');
    expect((await userCall(h, g)).structuredContent).toMatchObject({ user: 'kim' });
    // The grant holds no key, so operator credentials stay the operator's: the header key's operations still work.
    expect((await call(h.env, 'header_key', {}, g.access)).isError).toBeFalsy();
    const listed = (await (await h.fetch('/admin/grants?key=accounts', { headers: { authorization: `Bearer ${ADMIN}` } })).json()) as { grants: Array<{ id: string }> };
    expect(listed.grants.map((x) => x.id)).toContain(g.grantId);
    // Another person's grant of the same client does not replace this one.
    const other = await finishConsent(await connectAccount(h, { user: 'lee', clientId: g.clientId }), undefined);
    expect((await userCall(h, g)).structuredContent).toMatchObject({ user: 'kim' });
    expect((await userCall(h, other)).structuredContent).toMatchObject({ user: 'lee' });

    // The operator turns it off: such grants stop, and a refresh is refused.
    const off = upstreamOAuth(client('alone-off'), { API_KEY: OPERATOR_KEY });
    expect((await rpc(off.env, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, g.access)).status).toBe(401);
    expect((await tokenRequest(off, { grant_type: 'refresh_token', refresh_token: g.refresh, client_id: g.clientId })).body).toMatchObject({ error: 'invalid_grant' });
  });

  it('with the default (key), an empty key with a connected account still asks for the key', async () => {
    const c = await connectAccount(upstreamOAuth(client('needkey'), { API_KEY: OPERATOR_KEY }));
    const res = await c.session.post({ handle: /name="handle" value="([^"]+)"/.exec(c.html)![1]!, step: 'key', decision: 'continue', key: '' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('Paste your API key to continue.');
  });
});
