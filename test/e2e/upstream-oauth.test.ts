// Per-user OAuth to the upstream end to end: a real `wrangler dev` serving the Secured API (test/support/secured-api.json)
// with its `userCode` scheme's OAuth client in UPSTREAM_CREDENTIALS (a private .dev.vars), the loopback upstream
// whose sign-in page and token endpoint are a real authorization server (test/support/auth-code-server.ts) and whose
// /user checks the bearer, and the v2 SDK client with an authProvider going through the consent page: Connect, sign
// in at the upstream, back, paste the key, allow. Then calls with the user's own token, the upstream token refreshed
// after it expired and the MCP token refreshed by the SDK, and revocation by the operator (/admin/grants) and by
// revoking the key (the keys CLI), each deleting the stored tokens. The same flow runs in Chromium in
// page-upstream-oauth.test.ts.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../scripts/catalog/build.ts';
import { repoRoot } from '../../scripts/lib/proc.ts';
import { WranglerKv } from '../../scripts/keys/kv.ts';
import { startAuthUpstream } from '../support/auth-upstream.ts';
import { AUTH_VALUES, clientSecretOf } from '../support/auth-values.ts';
import { ConsentSession, handleOf, redirectParams, signInAtUpstream } from '../support/oauth-consent.ts';
import { startWorker, type WranglerDev } from '../support/wrangler-dev.ts';
import { keysCli } from './helpers.ts';
import { connectV2WithOAuth, MemoryProvider, type Authorize } from './oauth-helpers.ts';

const REDIRECT = 'http://127.0.0.1:43119/callback';
const ADMIN = 'e2e-upstream-oauth-admin-000000';
/** The Worker's OAuth client at the upstream: its access tokens live 3 s, so a refresh happens within the test. */
const CLIENT = 'ttl3-e2e-worker';

let upstream: Awaited<ReturnType<typeof startAuthUpstream>>;
let worker: WranglerDev;
let state: string;
let key: { key: string; id: string };
let oauthKv: WranglerKv;

beforeAll(async () => {
  state = await mkdtemp(join(tmpdir(), 'mcp-upstream-oauth-e2e-'));
  upstream = await startAuthUpstream();
  const created = await keysCli(['create', '--name', 'Acme', '--persist-to', state]);
  expect(created.code, created.stderr).toBe(0);
  key = { key: /^key: (\S+)$/m.exec(created.stdout)![1]!, id: /^id: (\S+)$/m.exec(created.stdout)![1]! };
  const { text } = await buildCatalogue('test/support/secured-api.json', { sweep: false });
  worker = await startWorker({
    upstream: upstream.url,
    catalogue: text,
    persistTo: state,
    vars: { ADMIN_TOKEN: ADMIN, KEY_CACHE_TTL_SECONDS: '1' },
    secrets: { UPSTREAM_CREDENTIALS: { userCode: `${CLIENT}:${clientSecretOf(CLIENT)}`, headerKey: AUTH_VALUES.headerKey } },
  });
  oauthKv = new WranglerKv({ remote: false, persistTo: state, config: join(repoRoot, 'wrangler.toml') }, 'OAUTH_KV');
}, 240_000);

afterAll(async () => {
  await worker?.stop();
  await upstream?.close();
  if (state) await rm(state, { recursive: true, force: true });
});

/** The consent page over HTTP as a browser would: Connect, sign in at the upstream as `user`, back, paste the key, allow. */
function consentWithAccount(apiKey: string, user: string): Authorize {
  return async (url) => {
    const session = await new ConsentSession(fetch, url.href).open();
    expect(session.html).toContain('>Connect your Secured API account</button>');
    const press = await session.post({ handle: handleOf(session.html), step: 'key', connect: 'userCode' });
    expect(press.status).toBe(303);
    const back = await signInAtUpstream(press.headers.get('location')!, 'approve', user);
    expect(back.startsWith(`${worker.url}/authorize/upstream?`)).toBe(true);
    const page = session.jar.take(await fetch(back, { headers: { cookie: session.jar.header() }, redirect: 'manual' }));
    expect(await page.text()).toContain('✓ Your Secured API account is connected.');
    return redirectParams(await session.consent(apiKey));
  };
}

const codeStats = async () => (await (await fetch(`${upstream.url}/__code?client=${CLIENT}`)).json()) as { refreshes: number; codes: number };
const storedTokens = async () => (await oauthKv.list('upstream-tokens:')).map((e) => e.name);
const textOf = (r: { content?: unknown }) => ((r.content ?? []) as Array<{ text?: string }>).map((b) => b.text ?? '').join('\n');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('per-user OAuth to the upstream through wrangler dev', () => {
  it('v2 client: connects the account on the consent page, calls with it, refreshes both tokens; the operator revokes the grant', { timeout: 300_000 }, async () => {
    const provider = new MemoryProvider({ redirectUrl: REDIRECT, authorize: consentWithAccount(key.key, 'robin') });
    const client = await connectV2WithOAuth(worker.endpoint, provider);
    try {
      const grantId = provider.saved[0]!.access_token.split(':')[1]!;
      expect(await storedTokens()).toContain(`upstream-tokens:${key.id}:${grantId}`);
      const tool = (await client.listTools()).tools.find((t) => t.name === 'user_token')!;
      expect(tool.description).not.toContain('Unavailable');
      const first = await client.callTool({ name: 'user_token', arguments: {} });
      expect(first.isError, textOf(first)).toBeFalsy();
      expect(first.structuredContent).toMatchObject({ user: 'robin' });
      expect((await codeStats()).codes).toBe(1);

      // The upstream's 3 s access token lapses: the next call refreshes it first.
      const before = (await codeStats()).refreshes;
      await sleep(3_100);
      const refreshed = await client.callTool({ name: 'user_token', arguments: {} });
      expect(refreshed.structuredContent).toMatchObject({ user: 'robin' });
      expect((await codeStats()).refreshes).toBe(before + 1);
      // The MCP access token refreshed by the SDK opens the same grant, and with it the account's tokens.
      provider.spoilAccessToken();
      expect((await client.callTool({ name: 'user_token', arguments: {} })).structuredContent).toMatchObject({ user: 'robin' });
      expect(provider.saved.length).toBe(2);

      const revoked = await fetch(`${worker.url}/admin/grants/${grantId}?key=${key.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } });
      expect(revoked.status).toBe(200);
      expect(await storedTokens()).not.toContain(`upstream-tokens:${key.id}:${grantId}`);
      const after = await fetch(worker.endpoint, { method: 'POST', headers: { authorization: `Bearer ${provider.saved.at(-1)!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
      expect(after.status).toBe(401);
    } finally {
      await client.close();
    }
  });

  it('a static key gets a clear refusal for the account’s operations, and nothing reaches the upstream', { timeout: 120_000 }, async () => {
    const client = new Client({ name: 'static', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(worker.endpoint), { requestInit: { headers: { authorization: `Bearer ${key.key}` } } }));
    try {
      const before = ((await (await fetch(`${upstream.url}/__hits?path=/user`)).json()) as { count: number }).count;
      const tool = (await client.listTools()).tools.find((t) => t.name === 'user_token')!;
      expect(tool.description).toContain('Unavailable until you connect your account for userCode');
      const r = await client.callTool({ name: 'user_token', arguments: {} });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toContain('acts as the user\'s own account at the API (scheme userCode), and this request has not connected one. Nothing was sent to the API.');
      expect(((await (await fetch(`${upstream.url}/__hits?path=/user`)).json()) as { count: number }).count).toBe(before);
    } finally {
      await client.close();
    }
  });

  it('revoking the key (npm run keys -- revoke) deletes its grants’ account tokens', { timeout: 300_000 }, async () => {
    const provider = new MemoryProvider({ redirectUrl: REDIRECT, authorize: consentWithAccount(key.key, 'sam') });
    const client = await connectV2WithOAuth(worker.endpoint, provider);
    try {
      expect((await client.callTool({ name: 'user_token', arguments: {} })).structuredContent).toMatchObject({ user: 'sam' });
      const grantId = provider.saved[0]!.access_token.split(':')[1]!;
      expect(await storedTokens()).toContain(`upstream-tokens:${key.id}:${grantId}`);
      const out = await keysCli(['revoke', key.id, '--persist-to', state]);
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toContain('and its 1 OAuth grant');
      expect(await storedTokens()).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
