// The catalogue page at `/`, in headless Chromium (Debian `chromium` + playwright-core) against a real
// `wrangler dev` serving the embedded catalogue. Screenshots go to test-results/ (a CI artifact).
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCatalogueDir } from '../../scripts/catalog/catalogue-files.ts';
import { binDir, repoRoot } from '../../scripts/lib/proc.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { Catalogue } from '../../src/catalogue/types.ts';
import { renderPage } from '../../src/page/render.ts';
import { launchChromium } from '../support/chromium.ts';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { startUpstream } from '../support/upstream-server.ts';
import { startWorker, type WranglerDev } from '../support/wrangler-dev.ts';
import { fixtureCatalogue } from '../worker/fixtures/catalogue.ts';

const ARTIFACTS = join(repoRoot, 'test-results');

let upstream: Awaited<ReturnType<typeof startUpstream>>;
let worker: WranglerDev;
let browser: Browser;
let catalogue: Catalogue;
const figures: Record<string, number> = {};

beforeAll(async () => {
  catalogue = await readCatalogueDir(join(repoRoot, 'catalog'));
  upstream = await startUpstream();
  await mkdir(ARTIFACTS, { recursive: true });
  [worker, browser] = await Promise.all([
    startWorker({ upstream: upstream.url }),
    launchChromium(),
  ]);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await worker?.stop();
  await upstream?.close();
  console.log(`page e2e figures: ${JSON.stringify(figures)}`);
});

/** A page that records console errors, uncaught exceptions and failed requests. */
async function openPage(): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`requestfailed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  const t0 = Date.now();
  const res = await page.goto(`${worker.url}/`, { waitUntil: 'load' });
  figures.loadMs = Date.now() - t0;
  expect(res?.status()).toBe(200);
  return { page, problems };
}

const visibleRows = (page: Page) => page.locator('#tools > li:not([hidden])');
const shownNames = (page: Page) => page.locator('#tools > li:not([hidden]) summary code').allTextContents();
const firstRow = async (page: Page) => (await shownNames(page))[0];

describe('catalogue page', () => {
  it('is small, cacheable, locked down by CSP, and shows no key', async () => {
    const res = await fetch(`${worker.url}/`);
    const html = await res.text();
    figures.htmlBytes = Buffer.byteLength(html);
    figures.htmlGzipBytes = gzipSync(html).length;
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'sha256-/);
    expect(figures.htmlGzipBytes).toBeLessThan(60_000);
    expect(html).not.toContain(worker.apiKey);
    expect(html).not.toContain(upstream.url);
    // What bare /mcp serves (the default toolsets), and the two ways to reach the whole API in a few tools.
    const defaults = new Set(catalogue.defaultToolsets);
    const atBare = catalogue.tools.filter((t) => t.toolsets.some((s) => defaults.has(s))).length;
    expect(atBare).toBeLessThan(catalogue.tools.length);
    expect(html).toContain(`<code>${worker.url}/mcp</code> serves the <b>${atBare}</b> tools of the default toolsets`);
    expect(html).toContain(`<code>${worker.url}/mcp/x/all</code> serves all ${catalogue.tools.length}.`);
    expect(html).toContain(`<code>${worker.url}/mcp/discover</code> (discovery:`);
    expect(html).toContain(`<code>${worker.url}/mcp/code</code> (code mode:`);
    const again = await fetch(`${worker.url}/`, { headers: { 'if-none-match': res.headers.get('etag') ?? '' } });
    expect(again.status).toBe(304);
    // A Host outside ALLOWED_HOSTS gets no page (its snippets would point elsewhere).
    // (fetch cannot set Host, so plain node:http.)
    const foreign = await new Promise<number>((resolve, reject) => {
      const u = new URL(worker.url);
      request({ host: u.hostname, port: u.port, path: '/', headers: { host: 'evil.example' } }, (r) => {
        r.resume();
        resolve(r.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(foreign).toBe(403);
  });

  it('loads with no console errors, lists every tool, and search filters the list', async () => {
    const { page, problems } = await openPage();
    try {
      await expect(page.locator('#tools > li').count()).resolves.toBe(catalogue.tools.length);
      await expect(page.locator('#count').textContent()).resolves.toBe(`${catalogue.tools.length} of ${catalogue.tools.length} tools`);

      // Search is ranked by the server (GET /catalogue/search), the same ranking as search_tools.
      const t0 = Date.now();
      await page.fill('#q', 'Get a repository');
      await expect.poll(() => firstRow(page)).toBe('repos_get');
      figures.searchMs = Date.now() - t0;
      const shown = await visibleRows(page).count();
      expect(shown).toBeGreaterThan(0);
      expect(shown).toBeLessThan(catalogue.tools.length);
      await expect(page.locator('#count').textContent()).resolves.toBe(`${shown} of ${catalogue.tools.length} tools`);
      await page.fill('#q', 'list stars');
      await expect.poll(async () => (await shownNames(page)).slice(0, 3).filter((n) => /star/.test(n)).length).toBeGreaterThan(1);
      // A tool's own name finds it first.
      await page.fill('#q', 'issues_list_comments');
      await expect.poll(() => firstRow(page)).toBe('issues_list_comments');

      // Toolset filter (the select and the toolset table links), with and without a query.
      const set = Object.keys(catalogue.toolsets)[0]!;
      const inSet = catalogue.tools.filter((t) => t.toolsets.includes(set)).length;
      await page.fill('#q', '');
      await page.selectOption('#ts', set);
      await expect.poll(() => visibleRows(page).count()).toBe(inSet);
      await page.fill('#q', 'list');
      await expect.poll(async () => (await shownNames(page)).length).toBeGreaterThan(0);
      for (const name of await shownNames(page)) expect(catalogue.tools.find((t) => t.name === name)!.toolsets).toContain(set);
      await page.selectOption('#ts', '');
      // A query none of whose words the catalogue knows still shows tools rather than an empty list.
      await page.fill('#q', 'zz_no_such_tool_zz');
      await expect.poll(() => page.locator('#count').textContent()).toMatch(/^[1-9]\d* of /);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("opens a tool's input and output schemas, and says why a tool has no outputSchema", async () => {
    const { page, problems } = await openPage();
    try {
      const withOut = catalogue.tools.find((t) => t.outputSchema && Object.keys((t.inputSchema.properties as object) ?? {}).length > 1)!;
      await page.fill('#q', withOut.name);
      const row = page.locator('#tools details', { has: page.locator(`summary code:text-is("${withOut.name}")`) });
      const t0 = Date.now();
      await row.locator('summary').click();
      await row.locator('section.schema h4', { hasText: 'Output' }).waitFor();
      figures.schemaOpenMs = Date.now() - t0;
      await expect(row.locator('section.schema h4').allTextContents()).resolves.toEqual(['Input', 'Output (structuredContent)']);
      const props = await row.locator('section.schema').first().locator(':scope > ul.sch > li > code.pn').allTextContents();
      expect(props.sort()).toEqual(Object.keys(withOut.inputSchema.properties as object).sort());
      await expect(row.locator('p.out').textContent()).resolves.toMatch(/^outputSchema on: /);
      await expect(row.locator('p.http').textContent()).resolves.toBe(`${withOut.http.method} ${withOut.http.path}`);
      await expect(row.locator('div.res').textContent()).resolves.toMatch(new RegExp(`^Results: compacted, leaving out null values.*Projection argument: ${withOut.result!.fields} `));
      await row.screenshot({ path: join(ARTIFACTS, 'catalogue-page-tool.png') });

      const without = catalogue.tools.find((t) => !t.outputSchema)!;
      await page.fill('#q', without.name);
      const row2 = page.locator('#tools details', { has: page.locator(`summary code:text-is("${without.name}")`) });
      await row2.locator('summary').click();
      await row2.locator('section.schema h4').first().waitFor();
      await expect(row2.locator('p.out').textContent()).resolves.toMatch(/^outputSchema off: \S/);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('every setup snippet holds this deployment’s endpoint and the placeholder key, never a real key', async () => {
    const { page, problems } = await openPage();
    try {
      const endpoint = `${worker.url}/mcp`;
      const snippets = await page.locator('pre[data-snippet]').evaluateAll((els) => els.map((e) => ({ id: e.getAttribute('data-snippet'), text: e.textContent ?? '' })));
      expect(snippets.map((s) => s.id)).toEqual(['claude-desktop', 'claude-connector', 'claude-code', 'cursor', 'vscode', 'sdk-v2', 'sdk-v1']);
      for (const s of snippets) {
        expect(s.text, s.id!).toContain(endpoint);
        expect(s.text, s.id!).not.toContain(worker.apiKey);
      }
      expect(snippets.filter((s) => s.text.includes('YOUR_API_KEY')).map((s) => s.id)).toEqual(['claude-desktop', 'claude-code', 'cursor', 'sdk-v2', 'sdk-v1']);
      // JSON snippets are valid JSON as shown.
      for (const id of ['claude-desktop', 'cursor', 'vscode']) JSON.parse(snippets.find((s) => s.id === id)!.text);
      await expect(page.locator('code.endpoint').textContent()).resolves.toBe(endpoint);
      // OAuth is on (wrangler.toml), so the connector snippet tells customers to sign in with their key.
      expect((await page.locator('p.note').allTextContents()).some((n) => n.includes('paste your API key'))).toBe(true);
      await page.screenshot({ path: join(ARTIFACTS, 'catalogue-page.png') });
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('the SDK v2 snippet runs as shown (with a real key): it lists the tools and calls one that needs no arguments', async () => {
    const { page } = await openPage();
    let text: string;
    try {
      text = (await page.locator('pre[data-snippet="sdk-v2"]').textContent()) ?? '';
    } finally {
      await page.close();
    }
    const called = /callTool\(\{ name: '([a-z0-9_]+)', arguments: \{\} \}\)/.exec(text)?.[1];
    expect(called, text).toBeDefined();
    // A read-only tool of bare /mcp (the default toolsets) whose arguments are all optional.
    const tool = catalogue.tools.find((t) => t.name === called)!;
    expect(tool.annotations?.readOnlyHint).toBe(true);
    expect(tool.toolsets.some((s) => catalogue.defaultToolsets!.includes(s))).toBe(true);
    expect((tool.inputSchema.required as string[] | undefined) ?? []).toEqual([]);
    // Run it where @modelcontextprotocol/client resolves, as a customer's own module would.
    const file = join(ARTIFACTS, 'sdk-v2-snippet.mjs');
    await writeFile(file, text.replace('YOUR_API_KEY', worker.apiKey));
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(join(binDir, 'node'), [file], { cwd: repoRoot, timeout: 60_000 }, (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
    });
    await rm(file, { force: true });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().length).toBeGreaterThan(0);
  });

  it('shows a tool description as rendered Markdown (links, code, emphasis), not raw text', async () => {
    const withLink = catalogue.tools.find((t) => /\[[^\]]+\]\(https:\/\/[^)]+\)/.test(t.description ?? '') && /`[^`]+`/.test(t.description ?? ''))!;
    expect(withLink).toBeDefined();
    const { page, problems } = await openPage();
    try {
      await page.fill('#q', withLink.name);
      const row = page.locator('#tools details', { has: page.locator(`summary code:text-is("${withLink.name}")`) });
      await row.locator('summary').click();
      await row.locator('div.tdesc').waitFor();
      const links = await row.locator('div.tdesc a').evaluateAll((els) => els.map((a) => ({ href: a.getAttribute('href') ?? '', rel: a.getAttribute('rel') })));
      expect(links.length).toBeGreaterThan(0);
      for (const l of links) expect(l).toEqual({ href: expect.stringMatching(/^https:\/\//), rel: 'nofollow noopener noreferrer' });
      expect(await row.locator('div.tdesc code').count()).toBeGreaterThan(0);
      const shown = (await row.locator('div.tdesc').textContent()) ?? '';
      expect(shown).not.toMatch(/\]\(https?:|`/);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('renders hostile catalogue text as text (no markup, no script)', async () => {
    const evil = '"><img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
    const c = fixtureCatalogue();
    c.source.title = evil;
    c.toolsets = { [`echo`]: { description: evil }, admin: { description: 'x' } };
    c.tools[0]!.title = evil;
    const html = renderPage(loadCatalogue(await encodeCatalogue(c)), { origin: 'https://mcp.example.com', credentialMode: 'passthrough' }, 'f'.repeat(64));
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<script>window.__pwned');
    const page = await browser.newPage();
    try {
      await page.setContent(html);
      await expect(page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).resolves.toBeUndefined();
      await expect(page.locator('h1').textContent()).resolves.toBe(evil);
    } finally {
      await page.close();
    }
  });
});
