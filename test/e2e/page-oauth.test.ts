// The OAuth flow with the consent form filled in headless Chromium (Debian `chromium` + playwright-core) against a
// real `wrangler dev`: the SDK v2 and v1 clients discover, register, open the authorization URL in the browser,
// where the customer pastes the key, narrows it and allows; the browser lands on the client's loopback redirect
// URI, the client exchanges the code, lists, calls and refreshes. Screenshots go to test-results/.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../scripts/lib/proc.ts';
import { launchChromium } from '../support/chromium.ts';
import { startUpstream } from '../support/upstream-server.ts';
import { startWorker, type WranglerDev } from '../support/wrangler-dev.ts';
import { fixtureCatalogue } from '../worker/fixtures/catalogue.ts';
import { callbackServer, connectV1WithOAuth, connectV2WithOAuth, MemoryProvider, type Authorize } from './oauth-helpers.ts';

const ARTIFACTS = join(repoRoot, 'test-results');

let upstream: Awaited<ReturnType<typeof startUpstream>>;
let callback: Awaited<ReturnType<typeof callbackServer>>;
let worker: WranglerDev;
let browser: Browser;

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  [upstream, callback] = await Promise.all([startUpstream(), callbackServer()]);
  [worker, browser] = await Promise.all([startWorker({ upstream: upstream.url, catalogue: fixtureCatalogue() }), launchChromium()]);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await worker?.stop();
  await callback?.close();
  await upstream?.close();
});

/** A person at the consent page: pastes the key, keeps only `toolsets`, allows; returns what the redirect carried. */
function chromiumConsent(key: string, toolsets: string[], shot: string): Authorize {
  return async (url) => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    try {
      const first = await page.goto(url.href);
      expect(first?.status()).toBe(200);
      await page.fill('#key', key);
      await page.click('button[value=continue]');
      await page.locator('button[value=approve]').waitFor({ timeout: 5000 }).catch(async (e: unknown) => {
        throw new Error(`${String(e)}\n${page.url()}\n${(await page.content()).slice(0, 3000)}\n${worker.logs().slice(-3000)}`);
      });
      // The page shows what the key allows and never the key itself.
      expect(await page.content()).not.toContain(key);
      for (const box of await page.locator('input[name=toolset]').all()) {
        if (!toolsets.includes((await box.getAttribute('value'))!)) await box.uncheck();
      }
      await page.screenshot({ path: join(ARTIFACTS, `consent-${shot}.png`) });
      const landed = callback.next();
      await page.click('button[value=approve]');
      const params = await landed;
      await page.waitForURL((u) => u.pathname === '/callback');
      expect(problems).toEqual([]);
      return params;
    } finally {
      await page.close();
    }
  };
}

describe('OAuth with the consent form in Chromium', () => {
  it('v2 client: authorizes in the browser, lists and calls within the narrowed grant, refreshes', async () => {
    const provider = new MemoryProvider({ redirectUrl: callback.redirectUrl, authorize: chromiumConsent(worker.apiKey, ['echo'], 'v2') });
    const client = await connectV2WithOAuth(worker.endpoint, provider);
    try {
      expect(provider.saved[0]!.scope).toBe('toolset:echo');
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo_get']);
      const result = await client.callTool({ name: 'echo_get', arguments: { id: 'chromium-v2' } });
      expect(result.structuredContent).toMatchObject({ method: 'GET', url: '/echo/chromium-v2' });
      provider.spoilAccessToken();
      expect((await client.callTool({ name: 'echo_get', arguments: { id: 'refreshed' } })).structuredContent).toMatchObject({ url: '/echo/refreshed' });
      expect(provider.saved.at(-1)!.refresh_token).not.toBe(provider.saved.at(-2)!.refresh_token);
    } finally {
      await client.close();
    }
  });

  it('v1 client: the same flow with every toolset kept', async () => {
    const provider = new MemoryProvider({ redirectUrl: callback.redirectUrl, authorize: chromiumConsent(worker.apiKey, ['echo', 'admin'], 'v1') });
    const client = await connectV1WithOAuth(worker.endpoint, provider);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo_get', 'echo_remove']);
      const result = await client.callTool({ name: 'echo_get', arguments: { id: 'chromium-v1' } });
      expect(result.structuredContent).toMatchObject({ url: '/echo/chromium-v1' });
      provider.spoilAccessToken();
      await client.listTools();
      expect(provider.saved).toHaveLength(2);
    } finally {
      await client.close();
    }
  });
});
