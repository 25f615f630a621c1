// OAuth abuse suite, part 2: stolen, replayed, forged and confused tokens and codes, over HTTP through the real app and
// library in workerd. Spent refresh tokens end the grant (issue point 7, RFC 9700 §4.14.2) except for a same-client
// retry within the window; a code survives no failed exchange (point 11); code_challenge is checked (point 11);
// a toolset-scoped key's grant carries its toolsets, so a URL outside them is 403 (point 9).
import { env as bindings } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { metadataOf, newKey, RECORD_PREFIX, type NewKeyOptions } from '../../src/auth/keys-core.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sha256Hex } from '../../src/lib/bytes.ts';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { ConsentSession, redirectParams } from '../support/oauth-consent.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';
import { authorizeUrl, harness, issueTokens, nextIp, oauthEnv, pkce, REDIRECT, registerClient, RESOURCE, tokenRequest, type Harness } from './fixtures/oauth.ts';

const loaded = loadCatalogue(await encodeCatalogue(fixtureCatalogue()));
const OPERATOR_KEY = 'mcp_test_abusetokens0000000000000000000000';
/** No retry window: every reuse of a spent token ends the grant. */
const strict = harness(loaded, oauthEnv({ API_KEY: OPERATOR_KEY, OAUTH_REFRESH_RETRY_SECONDS: '0' }));
/** The default window (30 s). */
const retrying = harness(loaded, oauthEnv({ API_KEY: OPERATOR_KEY }));
const shortWindow = harness(loaded, oauthEnv({ API_KEY: OPERATOR_KEY, OAUTH_REFRESH_RETRY_SECONDS: '1' }));

const refresh = (h: Harness, clientId: string, token: string, extra: Record<string, string> = {}) => tokenRequest(h, { grant_type: 'refresh_token', refresh_token: token, client_id: clientId, ...extra });
const mcpStatus = async (h: Harness, bearer: string, path = '/mcp') =>
  (
    await h.fetch(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'abuse', version: '1' } } }),
    })
  ).status;
const grantExists = async (access: string) => {
  const [userId, grantId] = access.split(':');
  return (await bindings.OAUTH_KV.get(`grant:${userId}:${grantId}`)) !== null;
};

async function makeKey(opts: Partial<NewKeyOptions> = {}) {
  const made = await newKey({ prefix: 'mcp_test_', customer: { id: 'umbrella', name: 'Umbrella' }, ...opts });
  await bindings.KEYS.put(RECORD_PREFIX + made.hash, JSON.stringify(made.record), { metadata: metadataOf(made.record) });
  return made;
}

describe('spent refresh tokens end the grant', () => {
  it('the first refresh token replayed after the client refreshed: invalid_grant, and the grant ends with its newest tokens', async () => {
    const t = await issueTokens(strict, OPERATOR_KEY);
    const client = await refresh(strict, t.clientId, t.refresh_token);
    expect(client.status).toBe(200);
    const replay = await refresh(strict, t.clientId, t.refresh_token);
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: expect.stringMatching(/already used, so the authorization was ended/) } });
    expect(await grantExists(t.access_token)).toBe(false);
    expect((await refresh(strict, t.clientId, client.body.refresh_token as string)).status).toBe(400);
    expect(await mcpStatus(strict, client.body.access_token as string)).toBe(401);
    // Replaying again and again never mints a token.
    for (let i = 0; i < 5; i++) expect((await refresh(strict, t.clientId, t.refresh_token)).status).toBe(400);
  });

  it('any earlier token of the chain ends it, not only the one before the newest', async () => {
    const t = await issueTokens(strict, OPERATOR_KEY);
    const chain = [t.refresh_token];
    for (let i = 0; i < 3; i++) {
      const r = await refresh(strict, t.clientId, chain.at(-1)!);
      expect(r.status).toBe(200);
      chain.push(r.body.refresh_token as string);
    }
    expect((await refresh(strict, t.clientId, chain[1]!)).body.error).toBe('invalid_grant');
    expect((await refresh(strict, t.clientId, chain[3]!)).status).toBe(400);
  });

  it('a retry within the window, from the same client, gets the same answer and the client keeps working', async () => {
    const t = await issueTokens(retrying, OPERATOR_KEY);
    const first = await refresh(retrying, t.clientId, t.refresh_token);
    const retry = await refresh(retrying, t.clientId, t.refresh_token);
    expect(retry).toEqual(first);
    // What makes the retry possible is stored sealed: no token of the answer is readable in storage.
    const stored = (await bindings.OAUTH_KV.get(`refresh-spent:${await sha256Hex(t.refresh_token)}`))!;
    for (const secret of [first.body.refresh_token as string, first.body.access_token as string, t.refresh_token]) expect(stored).not.toContain(secret.split(':')[2]);
    expect(await mcpStatus(retrying, first.body.access_token as string)).toBe(200);
    const next = await refresh(retrying, t.clientId, first.body.refresh_token as string);
    expect(next.status).toBe(200);
    // Its successor is used, so the client did get the answer: the same token again is a reuse.
    expect((await refresh(retrying, t.clientId, t.refresh_token)).body.error).toBe('invalid_grant');
    expect((await refresh(retrying, t.clientId, next.body.refresh_token as string)).status).toBe(400);
  });

  it('a retry from another client, or after the window, ends the grant', async () => {
    const t = await issueTokens(shortWindow, OPERATOR_KEY);
    expect((await refresh(shortWindow, t.clientId, t.refresh_token)).status).toBe(200);
    const thief = await registerClient(shortWindow, 'Thief');
    expect((await refresh(shortWindow, thief, t.refresh_token)).body.error).toBe('invalid_grant');
    expect(await grantExists(t.access_token)).toBe(false);

    const u = await issueTokens(shortWindow, OPERATOR_KEY);
    const first = await refresh(shortWindow, u.clientId, u.refresh_token);
    await new Promise((r) => setTimeout(r, 1_300));
    expect((await refresh(shortWindow, u.clientId, u.refresh_token)).body.error).toBe('invalid_grant');
    expect((await refresh(shortWindow, u.clientId, first.body.refresh_token as string)).status).toBe(400);
  });

  it('a forged token naming a real grant, an access token as refresh token, or another client, ends nothing and mints nothing', async () => {
    const t = await issueTokens(strict, OPERATOR_KEY);
    const [userId, grantId] = t.refresh_token.split(':');
    expect((await refresh(strict, t.clientId, `${userId}:${grantId}:${'A'.repeat(32)}`)).body.error).toBe('invalid_grant');
    expect((await refresh(strict, t.clientId, t.access_token)).body.error).toBe('invalid_grant');
    const other = await registerClient(strict, 'Other client');
    expect((await refresh(strict, other, t.refresh_token)).body.error).toBe('invalid_grant');
    // A refresh token is not an access token either.
    expect(await mcpStatus(strict, t.refresh_token)).toBe(401);
    expect(await grantExists(t.access_token)).toBe(true);
    expect((await refresh(strict, t.clientId, t.refresh_token)).status).toBe(200);
  });

  it('a refresh cannot widen the scope the customer approved', async () => {
    const { key } = await makeKey();
    const t = await issueTokens(strict, key, { toolsets: ['echo'] });
    expect((await refresh(strict, t.clientId, t.refresh_token, { scope: 'toolset:admin' })).body.error).toBe('invalid_scope');
    const narrowed = await refresh(strict, t.clientId, t.refresh_token, { scope: 'toolset:echo toolset:admin' });
    expect(narrowed.body.scope).toBe('toolset:echo');
    expect(await mcpStatus(strict, narrowed.body.access_token as string, '/mcp/x/admin')).toBe(403);
  });

  it('a token asked for with a narrower scope than its grant is held to that scope', async () => {
    const { key } = await makeKey({ toolsets: ['echo', 'admin'] });
    const t = await issueTokens(strict, key, { toolsets: ['echo', 'admin'] });
    expect(await mcpStatus(strict, t.access_token, '/mcp/x/admin')).toBe(200);
    const narrower = await refresh(strict, t.clientId, t.refresh_token, { scope: 'toolset:echo' });
    expect(narrower.body.scope).toBe('toolset:echo');
    expect(await mcpStatus(strict, narrower.body.access_token as string, '/mcp/x/admin')).toBe(403);
    expect(await mcpStatus(strict, narrower.body.access_token as string, '/mcp/x/echo')).toBe(200);
  });
});

describe('authorization codes', () => {
  async function code(h: Harness, key = OPERATOR_KEY) {
    const clientId = await registerClient(h, 'Code test');
    const { verifier, challenge } = await pkce();
    const session = await new ConsentSession(h.fetch, authorizeUrl(clientId, challenge), nextIp()).open();
    return { clientId, verifier, code: redirectParams(await session.consent(key)).get('code')! };
  }
  const exchange = (c: { clientId: string; verifier: string; code: string }, extra: Record<string, string> = {}) =>
    tokenRequest(strict, { grant_type: 'authorization_code', code: c.code, redirect_uri: REDIRECT, client_id: c.clientId, code_verifier: c.verifier, resource: RESOURCE, ...extra });

  it('code_challenge=abc, and every challenge that is not 43 base64url characters, goes back as invalid_request', async () => {
    const clientId = await registerClient(strict, 'Challenge test');
    const good = (await pkce()).challenge;
    for (const challenge of ['abc', good.slice(1), `${good}A`, `${good.slice(0, 42)}+`, `${good.slice(0, 42)}=`, `${good.slice(0, 41)}==`, ' '.repeat(43)]) {
      const res = await strict.fetch(authorizeUrl(clientId, challenge), { headers: { 'cf-connecting-ip': nextIp() }, redirect: 'manual' });
      expect(res.status, challenge).toBe(302);
      const params = new URL(res.headers.get('location')!).searchParams;
      expect(params.get('error'), challenge).toBe('invalid_request');
      expect(params.get('error_description')).toMatch(/43 characters/);
      expect(res.headers.getSetCookie()).toEqual([]);
    }
    const plainUrl = authorizeUrl(clientId, good).replace('code_challenge_method=S256', 'code_challenge_method=plain');
    expect(plainUrl).toContain('code_challenge_method=plain');
    const plain = await strict.fetch(plainUrl, { headers: { 'cf-connecting-ip': nextIp() }, redirect: 'manual' });
    expect(plain.status).toBe(302);
    const refused = new URL(plain.headers.get('location')!).searchParams;
    expect(refused.get('error')).toBe('invalid_request');
    expect(refused.get('error_description')).toMatch(/plain PKCE method is not allowed/);
    expect(plain.headers.getSetCookie()).toEqual([]);
  });

  it('parameter pollution: a repeated authorization parameter is a 400 page that stores nothing and redirects nowhere', async () => {
    const clientId = await registerClient(strict, 'Pollution test');
    const { challenge } = await pkce();
    const url = authorizeUrl(clientId, challenge);
    const before = (await bindings.OAUTH_KV.list({ prefix: 'transaction:' })).keys.length;
    const polluted = { redirect_uri: 'https://evil.example/cb', code_challenge_method: 'plain', client_id: 'another', state: 'second', code_challenge: 'A'.repeat(43), response_type: 'token' };
    for (const [name, value] of Object.entries(polluted)) {
      const res = await strict.fetch(`${url}&${name}=${encodeURIComponent(value)}`, { headers: { 'cf-connecting-ip': nextIp() }, redirect: 'manual' });
      expect(res.status, name).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.getSetCookie()).toEqual([]);
      expect(await res.text()).toContain(`gives ${name} more than once`);
    }
    const posted = await strict.fetch(`${url}&state=again`, { method: 'POST', headers: { 'cf-connecting-ip': nextIp(), 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=deny&handle=x', redirect: 'manual' });
    expect(posted.status).toBe(400);
    expect((await bindings.OAUTH_KV.list({ prefix: 'transaction:' })).keys.length).toBe(before);
    // The token endpoint refuses the same (the library's own check).
    const token = await tokenRequest(strict, { grant_type: 'refresh_token', client_id: clientId, refresh_token: 'a:b:c' });
    expect(token.status).toBe(400);
    const twice = await strict.fetch('/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=refresh_token&grant_type=authorization_code&refresh_token=a:b:c&client_id=${clientId}` });
    expect(await twice.json()).toEqual({ error: 'invalid_request', error_description: 'Request parameter "grant_type" must not be repeated' });
  });

  it('a failed verifier uses up the code: the right verifier afterwards gets invalid_grant', async () => {
    const c = await code(strict);
    expect((await exchange(c, { code_verifier: (await pkce()).verifier })).body.error).toBe('invalid_grant');
    expect((await exchange(c)).body.error).toBe('invalid_grant');
  });

  it('so does any refused exchange of a real code: another client, another redirect URI', async () => {
    const a = await code(strict);
    const thief = await registerClient(strict, 'Code thief');
    expect((await exchange(a, { client_id: thief })).status).toBe(400);
    expect((await exchange(a)).body.error).toBe('invalid_grant');
    const b = await code(strict);
    expect((await exchange(b, { redirect_uri: 'http://127.0.0.1:33418/elsewhere' })).status).toBe(400);
    expect((await exchange(b)).body.error).toBe('invalid_grant');
  });

  it('a made-up code naming a real grant burns nothing', async () => {
    const c = await code(strict);
    const [userId, grantId] = c.code.split(':');
    expect((await exchange({ ...c, code: `${userId}:${grantId}:${'B'.repeat(32)}` })).body.error).toBe('invalid_grant');
    expect((await exchange(c)).status).toBe(200);
  });
});

describe('a toolset-scoped key', () => {
  it("with the consent page's defaults left as they are, its grant carries the key's toolsets: a URL outside them is 403", async () => {
    const { key } = await makeKey({ toolsets: ['echo'] });
    const t = await issueTokens(strict, key);
    expect(t.scope).toBe('toolset:echo');
    const res = await strict.fetch('/mcp/x/admin', {
      method: 'POST',
      headers: { authorization: `Bearer ${t.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="mcp", error="insufficient_scope", error_description="[^"]+", scope="toolset:admin", resource_metadata="http:\/\/127\.0\.0\.1:8787\/\.well-known\/oauth-protected-resource"$/);
    expect(await res.json()).toMatchObject({ error: 'insufficient_scope', scope: 'toolset:admin' });
    expect(await mcpStatus(strict, t.access_token, '/mcp/x/echo')).toBe(200);
    expect(await mcpStatus(strict, t.access_token, '/mcp/x/all')).toBe(200);
    expect(await mcpStatus(strict, t.access_token, '/mcp/x/echo+admin')).toBe(403);
  });

  it('an unscoped key with every toolset chosen keeps an unnarrowed grant', async () => {
    const t = await issueTokens(strict, OPERATOR_KEY);
    expect(t.scope).toBe('');
    expect(await mcpStatus(strict, t.access_token, '/mcp/x/admin')).toBe(200);
  });
});
