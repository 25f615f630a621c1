// The consent page (/authorize) with the real OAuth library in workerd: rendering (CSP, escaping, nothing about the
// key echoed), wrong and right keys, narrowing, CSRF (a form post without the browser's binding cookie), deny,
// the per-IP key attempt limit, and the code/token/refresh legs that prove what the grant carries.
import { env as bindings } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { metadataOf, newKey, RECORD_PREFIX, type KeyRecord, type NewKeyOptions } from '../../src/auth/keys-core.ts';
import { clearKeyCache } from '../../src/auth/store.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { validateAccessToken } from '../../src/oauth/authorization-server.ts';
import { callerFromGrant } from '../../src/oauth/grant-caller.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';
import { ConsentSession, redirectParams, type ConsentChoice } from '../support/oauth-consent.ts';
import { authorizeUrl, handleOf, harness, nextIp, oauthEnv, ORIGIN, pkce, REDIRECT, registerClient, RESOURCE, revokeStoredKey, tokenRequest, type Harness } from './fixtures/oauth.ts';

const loaded = loadCatalogue(await encodeCatalogue(fixtureCatalogue()));
const OPERATOR_KEY = 'mcp_test_consentoperator000000000000000000';
const h: Harness = harness(loaded, oauthEnv({ API_KEY: OPERATOR_KEY, OAUTH_KEY_ATTEMPTS: '4/min' }));
const secrets: string[] = [OPERATOR_KEY];
const logLines: string[] = [];

beforeAll(() => {
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logLines.push(args.map(String).join(' ')));
  }
});
afterAll(() => {
  for (const line of logLines) for (const s of secrets) expect(line).not.toContain(s);
});

async function makeKey(opts: Partial<NewKeyOptions> = {}) {
  const made = await newKey({ prefix: 'mcp_test_', customer: { id: 'acme', name: 'Acme & <Co>' }, ...opts });
  await bindings.KEYS!.put(RECORD_PREFIX + made.hash, JSON.stringify(made.record), { metadata: metadataOf(made.record) });
  secrets.push(made.key, made.hash.slice(12));
  return made;
}

interface Flow {
  session: ConsentSession;
  clientId: string;
  verifier: string;
  url: string;
  ip: string;
  page: Response;
  html: string;
  jar: ConsentSession['jar'];
}

async function start(extra: Record<string, string> = {}, clientName?: string): Promise<Flow> {
  const clientId = await registerClient(h, clientName);
  const { verifier, challenge } = await pkce();
  const session = await new ConsentSession(h.fetch, authorizeUrl(clientId, challenge, extra), nextIp()).open();
  return { session, clientId, verifier, url: session.url, ip: session.ip!, page: session.page, html: session.html, jar: session.jar };
}

const post = (flow: Flow, fields: Record<string, string | string[]>, opts: { cookies?: boolean } = {}) => flow.session.post(fields, opts);
const pasteKey = (flow: Flow, key: string) => flow.session.pasteKey(key);
const consent = (flow: Flow, key: string, choice: ConsentChoice = {}) => flow.session.consent(key, choice);

function codeOf(res: Response): string {
  const params = redirectParams(res);
  expect(params.get('state')).toBe('st-123');
  expect(params.get('iss')).toBe(ORIGIN);
  expect(`${new URL(res.headers.get('location')!).origin}${new URL(res.headers.get('location')!).pathname}`).toBe(REDIRECT);
  return params.get('code')!;
}

async function exchange(flow: Flow, code: string) {
  return tokenRequest(h, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: flow.clientId, code_verifier: flow.verifier, resource: RESOURCE });
}

describe('authorization server metadata', () => {
  it('advertises our endpoints, S256 only, DCR and the toolset scopes', async () => {
    const md = (await (await h.fetch('/.well-known/oauth-authorization-server')).json()) as Record<string, unknown>;
    expect(md.issuer).toBe(ORIGIN);
    expect(md.authorization_endpoint).toBe(`${ORIGIN}/authorize`);
    expect(md.token_endpoint).toBe(`${ORIGIN}/token`);
    expect(md.registration_endpoint).toBe(`${ORIGIN}/register`);
    expect(md.code_challenge_methods_supported).toEqual(['S256']);
    expect(md.scopes_supported).toEqual(['read-only', 'toolset:admin', 'toolset:echo']);
    // CIMD is advertised only with the global_fetch_strictly_public compatibility flag (set in wrangler.toml).
    expect(md.client_id_metadata_document_supported).toBe(true);
  });
});

describe('step 1: the key form', () => {
  it('renders with a strict CSP, a browser-bound handle and the client named safely', async () => {
    const flow = await start();
    expect(flow.page.status).toBe(200);
    const csp = flow.page.headers.get('content-security-policy')!;
    expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; img-src data:; form-action 'self' http:\/\/127\.0\.0\.1:33418; base-uri 'none'; frame-ancestors 'none'$/);
    expect(flow.page.headers.get('cache-control')).toBe('no-store');
    expect(flow.page.headers.get('x-frame-options')).toBe('DENY');
    // no-referrer would make Chromium send `Origin: null` with the form posts, which the Host/Origin guard refuses.
    expect(flow.page.headers.get('referrer-policy')).toBe('same-origin');
    expect(flow.jar.size).toBe(1);
    expect(flow.page.headers.getSetCookie()[0]).toMatch(/^__Host-oauth-consent-[0-9a-f]{16}=[0-9a-f]{64}; Path=\/; Secure; HttpOnly; SameSite=Lax/);
    expect(flow.html).toContain('Connect Test &lt;b&gt;client&lt;/b&gt; to Fixture API');
    expect(flow.html).not.toContain('<b>client</b>');
    expect(flow.html).toContain('an app on this computer');
    expect(flow.html).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)/);
  });

  it('sends a request without PKCE back to the client with invalid_request', async () => {
    const clientId = await registerClient(h);
    const res = await h.fetch(authorizeUrl(clientId, undefined));
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toMatch(/PKCE/);
    expect(location.searchParams.get('state')).toBe('st-123');
  });

  it('never redirects to a host the client did not register', async () => {
    const clientId = await registerClient(h);
    const { challenge } = await pkce();
    const res = await h.fetch(authorizeUrl(clientId, challenge, { redirect_uri: 'https://attacker.example/cb' }));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('Invalid redirect URI');
  });

  it('answers a URL client_id whose metadata document cannot be fetched with an error page, not a 500', async () => {
    const { challenge } = await pkce();
    // Nothing listens on port 9 here, so the CIMD fetch fails as it would for a document that is gone.
    const res = await h.fetch(authorizeUrl('https://127.0.0.1:9/oauth/metadata.json', challenge));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('This app could not be verified');
  });

  it('refuses a wrong key without echoing it and keeps the same handle usable', async () => {
    const { key } = await makeKey();
    const flow = await start();
    const wrong = `${key.slice(0, -4)}XXXX`;
    secrets.push(wrong);
    const first = await pasteKey(flow, wrong);
    expect(first.res.status).toBe(403);
    expect(first.html).toContain('That API key was not accepted');
    expect(first.html).not.toContain(wrong);
    expect(first.html).not.toContain(wrong.slice(9, 17));
    expect(handleOf(first.html)).toBe(handleOf(flow.html));
    const second = await pasteKey(flow, key);
    expect(second.res.status).toBe(200);
  });
});

describe('step 2: review and narrow', () => {
  it("shows the key's customer, scope and rate, never the key or its hint", async () => {
    const { key, record } = await makeKey({ toolsets: ['echo'], rate: { limit: 100, period: 'minute' }, expiresAt: '2031-01-02T00:00:00.000Z' });
    const flow = await start();
    const { res, html } = await pasteKey(flow, key);
    expect(res.status).toBe(200);
    expect(html).toContain('Acme &amp; &lt;Co&gt;');
    expect(html).toContain(record.id);
    expect(html).toContain('toolsets echo');
    expect(html).toContain('at most 100/min');
    expect(html).toContain('expires 2031-01-02');
    expect(html).toMatch(/name="toolset" value="echo" checked/);
    expect(html).not.toContain('value="admin"');
    for (const leak of [key, record.hint, key.slice(9, 17), record.hash]) expect(html).not.toContain(leak);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('pre-selects what the client asked for, and refuses toolsets outside the key', async () => {
    const { key } = await makeKey();
    const flow = await start({ scope: 'toolset:admin read-only offline_access' });
    const review = await pasteKey(flow, key);
    expect(review.html).toMatch(/value="admin" checked/);
    expect(review.html).toMatch(/value="echo">/);
    expect(review.html).toMatch(/name="readonly" value="1" checked/);

    const narrow = await makeKey({ toolsets: ['echo'] });
    const other = await start();
    const reviewed = await pasteKey(other, narrow.key);
    const res = await post(other, { handle: handleOf(reviewed.html), step: 'review', decision: 'approve', toolset: ['echo', 'admin'] });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('This key does not allow admin.');
  });
});

describe('approve, CSRF and deny', () => {
  it('refuses the approving post without the binding cookie, then approves with it', async () => {
    const { key } = await makeKey();
    const flow = await start();
    const review = await pasteKey(flow, key);
    const fields = { handle: handleOf(review.html), step: 'review', decision: 'approve', toolset: ['echo'] };
    const forged = await post(flow, fields, { cookies: false });
    expect(forged.status).toBe(400);
    expect(forged.headers.get('location')).toBeNull();
    expect(await forged.text()).toContain('not started in this browser');
    const code = codeOf(await post(flow, fields));
    expect(code).toBeTruthy();
    expect(flow.jar.size).toBe(0);
  });

  it('sends Deny back to the client as access_denied', async () => {
    const flow = await start();
    const res = await post(flow, { handle: handleOf(flow.html), step: 'key', decision: 'deny' });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('st-123');
  });
});

describe('the grant', () => {
  it('carries the key by hash and id plus the narrowing, and re-derives the caller until the key is revoked', async () => {
    const { key, record } = await makeKey({ toolsets: ['echo', 'admin'] });
    const flow = await start();
    const { status, body } = await exchange(flow, codeOf(await consent(flow, key, { toolsets: ['echo'], readonly: true })));
    expect(status).toBe(200);
    const access = body.access_token as string;
    secrets.push(access, body.refresh_token as string);
    expect(body.scope).toBe('toolset:echo read-only');

    const server = (await h.servers.for(ORIGIN, h.settings))!.main;
    const validated = (await validateAccessToken(server, ORIGIN, access, h.env))!;
    expect(validated.userId).toBe(record.id);
    expect(validated.props).toEqual({ v: 1, key: { kind: 'record', hash: record.hash, id: record.id }, scope: { toolsets: ['echo'], readOnly: true } });
    expect(JSON.stringify(validated.props)).not.toContain(key);

    const request = new Request(RESOURCE, { method: 'POST' });
    const before = await callerFromGrant(request, validated.props, access, h.config, { env: h.env });
    expect(before.ok && before.caller.scope).toEqual({ toolsets: ['echo'], readOnly: true });

    await revokeStoredKey(bindings.KEYS!, record);
    const after = await callerFromGrant(request, validated.props, access, h.config, { env: h.env });
    expect(after.ok).toBe(false);
    if (!after.ok) {
      expect(after.response.status).toBe(401);
      expect(after.response.headers.get('www-authenticate')).toMatch(/error="invalid_token".*resource_metadata="http:\/\/127\.0\.0\.1:8787\/\.well-known\/oauth-protected-resource"/);
    }
    const refresh = await tokenRequest(h, { grant_type: 'refresh_token', refresh_token: body.refresh_token as string, client_id: validated.clientId });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('gives the operator key its own grant owner and refuses it after API_KEY changes', async () => {
    const flow = await start();
    const { body } = await exchange(flow, codeOf(await consent(flow, OPERATOR_KEY)));
    secrets.push(body.access_token as string);
    const validated = (await validateAccessToken((await h.servers.for(ORIGIN, h.settings))!.main, ORIGIN, body.access_token as string, h.env))!;
    expect(validated.userId).toMatch(/^operator-[0-9a-f]{8}$/);
    expect(validated.props.key?.kind).toBe('operator');
    const rotated = { ...h.config, apiKey: 'mcp_test_rotated00000000000000000000000000' };
    const outcome = await callerFromGrant(new Request(RESOURCE), validated.props, body.access_token as string, rotated, { env: h.env });
    expect(outcome.ok).toBe(false);
  });

  it('rejects a reused code (and revokes what it issued) and a PKCE mismatch', async () => {
    const { key } = await makeKey();
    const flow = await start();
    const code = codeOf(await consent(flow, key));
    const first = await exchange(flow, code);
    expect(first.status).toBe(200);
    secrets.push(first.body.refresh_token as string);
    expect((await exchange(flow, code)).body.error).toBe('invalid_grant');
    // OAuth 2.1: a replayed code revokes the grant it made, so the first exchange's refresh token is dead too.
    const clientId = flow.clientId;
    expect((await tokenRequest(h, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string, client_id: clientId })).body.error).toBe('invalid_grant');

    const other = await start();
    const otherCode = codeOf(await consent(other, key));
    other.verifier = (await pkce()).verifier;
    expect((await exchange(other, otherCode)).body.error).toBe('invalid_grant');
  });

  it('rotates refresh tokens: the previous one works until its successor is used, then never again', async () => {
    const { key } = await makeKey();
    const flow = await start();
    const first = await exchange(flow, codeOf(await consent(flow, key)));
    const clientId = flow.clientId;
    const refresh = (token: string) => tokenRequest(h, { grant_type: 'refresh_token', refresh_token: token, client_id: clientId });
    const r1 = first.body.refresh_token as string;
    const second = await refresh(r1);
    expect(second.status).toBe(200);
    const r2 = second.body.refresh_token as string;
    secrets.push(r1, r2);
    expect(r2).not.toBe(r1);
    expect(second.body.access_token).not.toBe(first.body.access_token);
    expect((await refresh(r2)).status).toBe(200);
    expect((await refresh(r1)).body.error).toBe('invalid_grant');
  });
});

describe('failed key attempts', () => {
  it('limits key submissions per client IP before the key is checked, and only for that IP', async () => {
    clearKeyCache(bindings.KEYS);
    const { key } = await makeKey();
    const flow = await start();
    const blocked = flow.ip;
    for (let i = 0; i < 4; i++) expect((await pasteKey(flow, `mcp_test_wrong${i}0000000000000000000000000000000`)).res.status).toBe(403);
    const limited = await pasteKey(flow, key);
    expect(limited.res.status).toBe(429);
    expect(Number(limited.res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.html).toContain('Too many keys tried');
    expect(limited.html).not.toContain('Allow Test');

    const elsewhere = await start();
    expect(elsewhere.ip).not.toBe(blocked);
    expect((await pasteKey(elsewhere, key)).res.status).toBe(200);
  });
});

export type { KeyRecord };
