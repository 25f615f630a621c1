// Per-user OAuth to the upstream with a person in headless Chromium (Debian `chromium` + playwright-core) against a
// real `wrangler dev`: the v2 SDK client opens the authorization URL in the browser, where the person clicks
// "Connect your Secured API account", signs in and approves on the loopback upstream's own page
// (test/support/auth-code-server.ts), comes back to the consent page showing the account connected, pastes the key
// and allows. The client then calls with the person's own upstream token, across a refresh of that token, until the
// operator revokes the grant, which deletes the stored tokens. A second person denies at the upstream and is told so
// on the consent page. Screenshots go to test-results/.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../scripts/catalog/build.ts';
import { WranglerKv } from '../../scripts/keys/kv.ts';
import { repoRoot } from '../../scripts/lib/proc.ts';
import { startAuthUpstream } from '../support/auth-upstream.ts';
import { AUTH_VALUES, clientSecretOf } from '../support/auth-values.ts';
import { launchChromium } from '../support/chromium.ts';
import { startWorker, type WranglerDev } from '../support/wrangler-dev.ts';
import { callbackServer, connectV2WithOAuth, MemoryProvider, RawOAuth, type Authorize } from './oauth-helpers.ts';

const ARTIFACTS = join(repoRoot, 'test-results');
const ADMIN = 'browser-upstream-oauth-admin-000';
const CLIENT = 'ttl3-browser-worker';
const API_KEY = 'mcp_test_browserupstream00000000000000000';

let upstream: Awaited<ReturnType<typeof startAuthUpstream>>;
let callback: Awaited<ReturnType<typeof callbackServer>>;
let worker: WranglerDev;
let browser: Browser;
let state: string;

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  state = await mkdtemp(join(tmpdir(), 'mcp-upstream-oauth-browser-'));
  [upstream, callback] = await Promise.all([startAuthUpstream(), callbackServer()]);
  const { text } = await buildCatalogue('test/support/secured-api.json', { sweep: false });
  [worker, browser] = await Promise.all([
    startWorker({
      upstream: upstream.url,
      catalogue: text,
      apiKey: API_KEY,
      persistTo: state,
      vars: { ADMIN_TOKEN: ADMIN },
      secrets: { UPSTREAM_CREDENTIALS: { userCode: `${CLIENT}:${clientSecretOf(CLIENT)}`, headerKey: AUTH_VALUES.headerKey } },
    }),
    launchChromium(),
  ]);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await worker?.stop();
  await callback?.close();
  await upstream?.close();
  if (state) await rm(state, { recursive: true, force: true });
});

async function failing(page: Page, what: string, e: unknown): Promise<never> {
  throw new Error(`${what}: ${String(e)}\n${page.url()}\n${(await page.content()).slice(0, 3000)}\n${worker.logs().slice(-3000)}`);
}

/** A person at the consent page: Connect, sign in at the upstream as `user` and approve, back, paste the key, allow. */
function connectInBrowser(user: string): Authorize {
  return async (url) => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    try {
      expect((await page.goto(url.href))?.status()).toBe(200);
      await page.click('text=Connect your Secured API account');
      // The upstream's own sign-in page, on its own origin.
      await page.locator('#approve').waitFor({ timeout: 10_000 }).catch((e: unknown) => failing(page, 'no upstream sign-in page', e));
      expect(new URL(page.url()).origin).toBe(upstream.url);
      await page.fill('#user', user);
      await page.screenshot({ path: join(ARTIFACTS, 'upstream-signin.png') });
      await page.click('#approve');
      await page.locator('text=Your Secured API account is connected').waitFor({ timeout: 10_000 }).catch((e: unknown) => failing(page, 'not back on the consent page', e));
      expect(new URL(page.url()).pathname).toBe('/authorize/upstream');
      await page.screenshot({ path: join(ARTIFACTS, 'consent-connected.png') });
      await page.fill('#key', API_KEY);
      await page.click('button[value=continue]');
      await page.locator('button[value=approve]').waitFor({ timeout: 10_000 }).catch((e: unknown) => failing(page, 'no review step', e));
      expect(await page.content()).toContain('✓ Your Secured API account is connected.');
      const landed = callback.next();
      await page.click('button[value=approve]');
      const params = await landed;
      await page.waitForURL((u) => u.pathname === '/callback');
      expect(problems, problems.join('\n')).toEqual([]);
      return params;
    } finally {
      await page.close();
    }
  };
}

const textOf = (r: { content?: unknown }) => ((r.content ?? []) as Array<{ text?: string }>).map((b) => b.text ?? '').join('\n');
const refreshes = async () => ((await (await fetch(`${upstream.url}/__code?client=${CLIENT}`)).json()) as { refreshes: number }).refreshes;

describe('Connect your account, in Chromium', () => {
  it('v2 client: the person connects and approves in the browser; calls carry their token across a refresh, until the operator revokes the grant', async () => {
    const provider = new MemoryProvider({ redirectUrl: callback.redirectUrl, authorize: connectInBrowser('casey') });
    const client = await connectV2WithOAuth(worker.endpoint, provider);
    try {
      const first = await client.callTool({ name: 'user_token', arguments: {} });
      expect(first.isError, textOf(first)).toBeFalsy();
      expect(first.structuredContent).toMatchObject({ user: 'casey' });

      const before = await refreshes();
      await new Promise((r) => setTimeout(r, 3_100));
      expect((await client.callTool({ name: 'user_token', arguments: {} })).structuredContent).toMatchObject({ user: 'casey' });
      expect(await refreshes()).toBe(before + 1);

      const [userId, grantId] = provider.saved[0]!.access_token.split(':') as [string, string];
      const kv = new WranglerKv({ remote: false, persistTo: state, config: join(repoRoot, 'wrangler.toml') }, 'OAUTH_KV');
      expect((await kv.list('upstream-tokens:')).map((e) => e.name)).toContain(`upstream-tokens:${userId}:${grantId}`);
      const revoked = await fetch(`${worker.url}/admin/grants/${grantId}?key=${userId}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } });
      expect(revoked.status).toBe(200);
      expect((await kv.list('upstream-tokens:')).map((e) => e.name)).not.toContain(`upstream-tokens:${userId}:${grantId}`);
      await expect(client.callTool({ name: 'user_token', arguments: {} })).rejects.toThrow();
    } finally {
      await client.close();
    }
  });

  it('denying at the upstream comes back to the consent page saying so, with Connect offered again', async () => {
    const page = await browser.newPage();
    try {
      const raw = new RawOAuth(worker.url, callback.redirectUrl);
      const { url } = await raw.authorizeUrl(await raw.register());
      await page.goto(url);
      await page.click('text=Connect your Secured API account');
      await page.locator('#deny').waitFor({ timeout: 10_000 }).catch((e: unknown) => failing(page, 'no upstream sign-in page', e));
      await page.click('#deny');
      await page.locator('.err').waitFor({ timeout: 10_000 }).catch((e: unknown) => failing(page, 'no message', e));
      expect(await page.locator('.err').textContent()).toBe(`You did not allow access at ${new URL(upstream.url).host}, so your Secured API account is not connected.`);
      expect(await page.locator('button[name=connect]').textContent()).toBe('Connect your Secured API account');
      await page.screenshot({ path: join(ARTIFACTS, 'consent-denied-upstream.png') });
    } finally {
      await page.close();
    }
  });
});
