// Per-user OAuth to the upstream, the consent side (docs/oauth.md, "Per-user OAuth to the upstream"): the consent page
// offers "Connect your Secured API account" where the operator set the scheme's OAuth client, sends the browser to the
// upstream's sign-in with PKCE S256 and a state bound to this consent and browser, and comes back to the step it was
// at. The grant's calls then send the user's own token; a static key gets a clear refusal. The upstream here is a
// real authorization server on loopback (test/support/auth-code-server.ts), never a stand-in for the Worker.
import { describe, expect, it } from 'vitest';
import { ConsentSession, handleOf, signInAtUpstream } from '../support/oauth-consent.ts';
import { credentialProblem } from '../../src/auth/upstream-schemes.ts';
import { authorizeUrl, harness, nextIp, pkce, registerClient } from './fixtures/oauth.ts';
import { call, envWith, hits, lastSeen, OPERATOR_KEY, rpc, secured, textOf } from './fixtures/secured.ts';
import { codeStats, connectAccount, finishConsent, newClient, noSecretsInLogs, storedTokens, upstreamOAuth } from './fixtures/upstream-oauth.ts';

noSecretsInLogs();
const client = newClient;

describe('configuring it', () => {
  it('the operator’s client_id:client_secret for an authorization-code scheme is its OAuth client; a key’s is refused, naming why', () => {
    const security = secured.catalogue.security!;
    expect(credentialProblem(security, 'userCode', 'app:secret')).toBeUndefined();
    expect(credentialProblem(security, 'userCode', 'app:secret', 'key')).toBe(
      'scheme userCode is OAuth 2 (authorizationCode): each user connects their own account through the operator’s OAuth client (UPSTREAM_CREDENTIALS), not through a key; give the key an access token as "Bearer <token>" instead'.replace('operator’s', "operator's"),
    );
    expect(credentialProblem(security, 'userCode', 'Bearer abc', 'key')).toBeUndefined();
    expect(credentialProblem(security, 'userCode', 'no-colon')).toMatch(/its credential is client_id:client_secret/);
  });
});

describe('the consent page offers to connect the account', () => {
  it('beside the key field where the OAuth client is configured, with the upstream sign-in allowed by the CSP; not otherwise', async () => {
    const h = upstreamOAuth(client('offer'), { API_KEY: OPERATOR_KEY });
    const session = await new ConsentSession(h.fetch, authorizeUrl(await registerClient(h), (await pkce()).challenge), nextIp()).open();
    expect(session.html).toContain('<button name="connect" value="userCode" formnovalidate>Connect your Secured API account</button>');
    expect(session.html).toContain('An API key is still needed to continue.');
    // Enter in the key field submits the first button: Continue comes before Connect.
    expect(session.html.indexOf('value="continue"')).toBeLessThan(session.html.indexOf('name="connect"'));
    const upstreamOrigin = new URL(h.config.upstreamUrl).origin;
    expect(session.page.headers.get('content-security-policy')).toContain(`form-action 'self' http://127.0.0.1:33418 ${upstreamOrigin};`);

    const plain = harness(secured, envWith({ API_KEY: OPERATOR_KEY, OAUTH: 'on', OAUTH_KV: h.env.OAUTH_KV, CLIENT_ADDRESS: 'cloudflare' }));
    const without = await new ConsentSession(plain.fetch, authorizeUrl(await registerClient(plain), (await pkce()).challenge), nextIp()).open();
    expect(without.html).not.toContain('name="connect"');
  });

  it('sends the browser to the upstream with code, PKCE S256, the spec’s scopes and a state; the code comes back and is exchanged once', async () => {
    const id = client('flow');
    const c = await connectAccount(upstreamOAuth(id, { API_KEY: OPERATOR_KEY }), { user: 'robin' });
    const to = new URL(c.started.headers.get('location')!);
    expect(Object.fromEntries(to.searchParams)).toMatchObject({ response_type: 'code', client_id: id, redirect_uri: 'http://127.0.0.1:8787/authorize/upstream', scope: 'profile rides.read', code_challenge_method: 'S256' });
    expect(to.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(to.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The state's binding cookie for this browser, beside the consent's own.
    expect(c.started.headers.getSetCookie().join('\n')).toMatch(/__Host-oauth-upstream-[0-9a-f]{16}=[0-9a-f]{64}; Path=\/; Secure; HttpOnly; SameSite=Lax/);
    expect(c.page.status).toBe(200);
    expect(c.html).toContain('✓ Your Secured API account is connected.');
    expect(c.html).toContain(`action="/authorize?${new URL(c.session.url, 'http://x').search.slice(1).replace(/&/g, '&amp;')}"`);
    expect(c.html).not.toMatch(/ua-|ur-/);
    expect((await codeStats(id)).codes).toBe(1);
  });

  it('the scopes asked for are the operator’s when UPSTREAM_OAUTH_SCOPES names the scheme', async () => {
    const c = await connectAccount(upstreamOAuth(client('scopes'), { API_KEY: OPERATOR_KEY, UPSTREAM_OAUTH_SCOPES: '{"userCode": "rides.write profile"}' }));
    expect(new URL(c.started.headers.get('location')!).searchParams.get('scope')).toBe('rides.write profile');
  });

  it('after a key was accepted, Connect on the review step comes back to the review step', async () => {
    const c = await connectAccount(upstreamOAuth(client('keyfirst'), { API_KEY: OPERATOR_KEY }), { key: OPERATOR_KEY });
    expect(c.html).toContain('name="step" value="review"');
    expect(c.html).toContain('✓ Your Secured API account is connected.');
    const g = await finishConsent(c, undefined);
    expect((await call(c.h.env, 'user_token', {}, g.access)).structuredContent).toMatchObject({ user: 'pat' });
  });
});

describe('calls with the grant send the user’s own token', () => {
  it('each grant its own account; the scheme’s other operations are untouched; a static key is refused, naming the scheme', async () => {
    const h = upstreamOAuth(client('calls'), { API_KEY: OPERATOR_KEY });
    const robin = await finishConsent(await connectAccount(h, { user: 'robin' }), OPERATOR_KEY);
    const sam = await finishConsent(await connectAccount(h, { user: 'sam' }), OPERATOR_KEY);
    const r1 = await call(h.env, 'user_token', {}, robin.access);
    expect(r1.isError, textOf(r1)).toBeFalsy();
    expect(r1.structuredContent).toMatchObject({ user: 'robin' });
    expect((await lastSeen('/user')).headers.authorization).toMatch(/^Bearer ua-calls-/);
    expect((await call(h.env, 'user_token', {}, sam.access)).structuredContent).toMatchObject({ user: 'sam' });
    // The operator's header key still goes on its own operations for the same grant.
    expect((await call(h.env, 'header_key', {}, robin.access)).isError).toBeFalsy();

    const before = await hits('/user');
    const refused = await call(h.env, 'user_token', {}, OPERATOR_KEY);
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe(
      `user_token acts as the user's own account at the API (scheme userCode), and this request has not connected one. Nothing was sent to the API. Sign in to this server with OAuth (add it as a connector) and choose "Connect your account" on its consent page; an API key alone cannot carry it.`,
    );
    expect(await hits('/user')).toBe(before);
  });

  it('tools/list says a static key must connect the account for user_token, and says nothing to a connected grant', async () => {
    const h = upstreamOAuth(client('list'), { API_KEY: OPERATOR_KEY });
    const note = (r: { body: { result: { tools: Array<{ name: string; description: string }> } } }) => r.body.result.tools.find((t) => t.name === 'user_token')!.description;
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    expect(note(await rpc(h.env, list))).toContain('Unavailable until you connect your account for userCode (sign in to this server with OAuth).');
    const g = await finishConsent(await connectAccount(h), OPERATOR_KEY);
    expect(note(await rpc(h.env, list, g.access))).not.toContain('Unavailable');
  });

  it('the catalogue page says each user connects their own account', async () => {
    const h = upstreamOAuth(client('page'), { API_KEY: OPERATOR_KEY });
    const page = await (await h.fetch('/')).text();
    expect(page).toContain('<td><code>userCode</code></td><td>OAuth 2 (authorizationCode)</td><td>each user connects their own account when signing in with OAuth</td>');
  });
});

describe('what goes wrong is said on the page, and nothing is connected', () => {
  it('the user denies at the upstream', async () => {
    const h = upstreamOAuth(client('deny'), { API_KEY: OPERATOR_KEY });
    const c = await connectAccount(h, { decision: 'deny' });
    expect(c.page.status).toBe(200);
    expect(c.html).toContain(`You did not allow access at ${new URL(h.config.upstreamUrl).host}, so your Secured API account is not connected.`);
    expect(c.html).toContain('>Connect your Secured API account</button>');
    // The consent goes on with the key alone: the grant holds no account, and user_token says to connect one.
    const g = await finishConsent(c, OPERATOR_KEY);
    expect(await storedTokens(g)).toBeNull();
    expect(textOf(await call(h.env, 'user_token', {}, g.access))).toContain('has not connected one');
  });

  it('the upstream’s token endpoint refuses the code exchange', async () => {
    const c = await connectAccount(upstreamOAuth(client('fail'), { API_KEY: OPERATOR_KEY }));
    expect(c.html).toMatch(/Your Secured API account could not be connected\. Could not get an access token for scheme userCode&#39;s token endpoint http:\/\/127\.0\.0\.1:\d+\/oauth\/token: HTTP 401 invalid_client \(Client authentication failed\.\)\./);
    expect(c.html).not.toContain('✓');
  });

  it('a callback in another browser, a replayed one, and a Connect without the consent’s cookie are refused', async () => {
    const h = upstreamOAuth(client('csrf'), { API_KEY: OPERATOR_KEY });
    const c = await connectAccount(h);
    // Replayed: the state worked once.
    const again = await h.fetch(c.back, { headers: { cookie: c.session.jar.header() } });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('not started in this browser');

    // Another browser (no binding cookie) holding a fresh callback URL.
    const started = await new ConsentSession(h.fetch, authorizeUrl(await registerClient(h), (await pkce()).challenge), nextIp()).open();
    const press = await started.post({ handle: handleOf(started.html), step: 'key', connect: 'userCode' });
    const back = await signInAtUpstream(press.headers.get('location')!);
    const elsewhere = await h.fetch(back);
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.text()).toContain('This authorization was not started in this browser');

    // Connect needs the consent's own binding cookie: nothing is stored, nobody is sent anywhere.
    const other = await new ConsentSession(h.fetch, authorizeUrl(await registerClient(h), (await pkce()).challenge), nextIp()).open();
    const forged = await other.post({ handle: handleOf(other.html), step: 'key', connect: 'userCode' }, { cookies: false });
    expect(forged.status).toBe(400);
    expect(forged.headers.get('location')).toBeNull();
    // An unknown scheme is not connectable.
    expect((await other.post({ handle: handleOf(other.html), step: 'key', connect: 'headerKey' })).status).toBe(400);
  });
});
