// CORS in headless Chromium against a real `wrangler dev`: a page served from an origin in ALLOWED_ORIGINS runs the
// v2 MCP client (bundled for the browser, pinned to 2026-07-28, so it sends Mcp-Method and Mcp-Name) against /mcp
// on another origin: preflight, tools/list, tools/call, and a 401 whose WWW-Authenticate it can read. The same page
// from an origin not in the list fails at its preflight, and the Worker never sees its request.
import { build } from 'esbuild';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../scripts/lib/proc.ts';
import { launchChromium } from '../support/chromium.ts';
import { startUpstream } from '../support/upstream-server.ts';
import { startWorker, type WranglerDev } from '../support/wrangler-dev.ts';
import { fixtureCatalogue } from '../worker/fixtures/catalogue.ts';


// What the page does: the SDK's own client, nothing hand-rolled.
const PAGE_SCRIPT = `
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
window.runMcp = async (endpoint, key) => {
  const client = new Client({ name: 'browser-page', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers: { Authorization: 'Bearer ' + key } } }));
  const { tools } = await client.listTools();
  const called = await client.callTool({ name: 'echo_get', arguments: { id: 'from-browser' } });
  await client.close();
  const refused = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
  return { tools: tools.map((t) => t.name), structured: called.structuredContent, refusedStatus: refused.status, challenge: refused.headers.get('www-authenticate') };
};
window.ready = true;
`;

let upstream: Awaited<ReturnType<typeof startUpstream>>;
let worker: WranglerDev;
let browser: Browser;
let pages: Server;
let pagePort: number;

beforeAll(async () => {
  const bundle = await build({ stdin: { contents: PAGE_SCRIPT, resolveDir: repoRoot, loader: 'js' }, bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'error' });
  const js = bundle.outputFiles[0]!.text;
  pages = createServer((req, res) => {
    if (req.url === '/app.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>MCP in a page</title><script type="module" src="/app.js"></script>');
  });
  await new Promise<void>((r) => pages.listen(0, '127.0.0.1', r));
  pagePort = (pages.address() as AddressInfo).port;
  upstream = await startUpstream();
  // Listed: the page as http://localhost:<port>. Not listed: the same page as http://127.0.0.1:<port>.
  [worker, browser] = await Promise.all([
    startWorker({ upstream: upstream.url, catalogue: fixtureCatalogue(), vars: { ALLOWED_ORIGINS: `http://localhost:${pagePort}` } }),
    launchChromium(),
  ]);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await worker?.stop();
  await upstream?.close();
  await new Promise((r) => pages?.close(r));
});

/** The worker's request log lines for `method path` (wrangler prints one per request), e.g. `OPTIONS /mcp 204`. */
const logged = (pattern: RegExp) => worker.logs().split('\n').filter((l) => pattern.test(l));

async function runFrom(origin: string) {
  const page = await browser.newPage();
  // Chromium answers preflights out of the page's sight; the worker's log shows them.
  const before = logged(/OPTIONS \/mcp /).length;
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
  const outcome = await page
    .evaluate(([endpoint, key]) => (window as unknown as { runMcp(e: string, k: string): Promise<unknown> }).runMcp(endpoint!, key!), [worker.endpoint, worker.apiKey])
    .then((value) => ({ ok: true as const, value }), (e: unknown) => ({ ok: false as const, error: String(e) }));
  await page.close();
  const preflights = logged(/OPTIONS \/mcp /).slice(before).map((l) => Number(/OPTIONS \/mcp (\d{3})/.exec(l)![1]));
  return { outcome, preflights };
}

describe('CORS for browser MCP clients', () => {
  it('a page from an allowed origin completes tools/list and tools/call against /mcp and reads the 401 challenge', async () => {
    const { outcome, preflights } = await runFrom(`http://localhost:${pagePort}`);
    expect(outcome).toMatchObject({
      ok: true,
      value: {
        tools: ['echo_get', 'echo_remove'],
        structured: { method: 'GET', url: '/echo/from-browser' },
        refusedStatus: 401,
        challenge: `Bearer realm="mcp", resource_metadata="${worker.url}/.well-known/oauth-protected-resource"`,
      },
    });
    expect(preflights.length).toBeGreaterThan(0);
    expect(preflights.every((s) => s === 204)).toBe(true);
  });

  it('the same page from an origin not in ALLOWED_ORIGINS fails at the preflight', async () => {
    const before = logged(/POST \/mcp /).length;
    const { outcome, preflights } = await runFrom(`http://127.0.0.1:${pagePort}`);
    expect(outcome.ok).toBe(false);
    expect(preflights).toContain(403);
    expect(preflights.every((s) => s === 403)).toBe(true);
    expect(logged(/POST \/mcp /).length).toBe(before);
  });
});
