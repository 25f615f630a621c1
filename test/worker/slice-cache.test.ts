// Bounded per-isolate caches inside workerd (src/catalogue/slices.ts, src/lib/lru.ts, docs/architecture.md
// "Per-isolate caches"): a flood of distinct ?tools= slices through the app stays within the chosen tier's bounds,
// while the common slices (bare /mcp, one toolset, `all` behind /mcp/discover) keep their cached views and proven
// ready bytes; every flooded request is still answered. The embedded GitHub catalogue.
import { describe, expect, inject, it } from 'vitest';
import catalogueText from 'catalog-data';
import { createApp } from '../../src/app.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceCacheStats, sliceOf } from '../../src/catalogue/slices.ts';
import type { Env } from '../../src/config.ts';
import { PROFILES } from '../../src/profiles/profiles.ts';
import { viewOf } from '../../src/profiles/view.ts';
import { readyListState } from '../../src/protocol/ready-tools-list.ts';

const KEY = 'mcp_test_0123456789abcdef0123456789abcdef';
const BASE = 'http://127.0.0.1:8787';
const env: Env = { API_KEY: KEY, UPSTREAM_URL: inject('upstreamUrl'), CREDENTIAL_MODE: 'key', USAGE_METERING: 'off' };
const loaded = loadCatalogue(catalogueText);
const app = createApp(loaded);
const HEADERS = { accept: 'application/json, text/event-stream', authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' };

async function post(path: string, method: string, params?: Record<string, unknown>): Promise<{ status: number; body: string }> {
  const res = await app.fetch(new Request(`${BASE}${path}`, { method: 'POST', headers: HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) }) }), env);
  return { status: res.status, body: await res.text() };
}

const chosen = () => sliceCacheStats().find((s) => s.name.includes('chosen'))!;
const common = () => sliceCacheStats().find((s) => s.name.includes('common'))!;

describe('slice cache', () => {
  it('a flood of distinct ?tools= slices stays within the chosen tier, and the common slices stay warm', async () => {
    // The common slices, each listed twice: the second answer comes from proven ready bytes.
    for (let i = 0; i < 2; i++) {
      expect((await post('/mcp', 'tools/list')).status).toBe(200);
      expect((await post('/mcp/x/issues_core', 'tools/list')).status).toBe(200);
      const search = await post('/mcp/discover', 'tools/call', { name: 'search_tools', arguments: { query: 'create an issue' } });
      expect(search.body).toContain('issues_create');
    }
    const bare = sliceOf(loaded, { toolsets: loaded.catalogue.defaultToolsets }, true);
    const bareView = viewOf(loaded, bare, PROFILES.default);
    const bareTools = bareView.tools;
    expect(readyListState(bareView, '2025-06-18')).toBe('verified');
    const all = sliceOf(loaded, { toolsets: ['all'] });
    const names = loaded.names();
    const flood = chosen().maxEntries + 100;
    for (let n = 0; n < flood; n++) {
      // Five tools each, a different set every time.
      const tools = [0, 1, 2, 3, 4].map((k) => names[(n * 7 + k * 131) % names.length]);
      const r = await post(`/mcp?tools=${tools.join(',')}`, 'tools/list');
      expect(r.status).toBe(200);
      expect(r.body.match(/"inputSchema"/g)?.length).toBe(new Set(tools).size);
    }
    const after = chosen();
    expect(after.entries).toBeLessThanOrEqual(after.maxEntries);
    expect(after.bytes).toBeLessThanOrEqual(after.maxBytes);
    expect(after.evictions).toBeGreaterThan(0);
    expect(common().bytes).toBeLessThanOrEqual(common().maxBytes);
    // The common slices are the very objects cached before the flood, with their listing and proof.
    expect(sliceOf(loaded, { toolsets: loaded.catalogue.defaultToolsets }, true)).toBe(bare);
    expect(viewOf(loaded, bare, PROFILES.default).tools).toBe(bareTools);
    expect(readyListState(viewOf(loaded, bare, PROFILES.default), '2025-06-18')).toBe('verified');
    expect(sliceOf(loaded, { toolsets: ['all'] })).toBe(all);
    expect(sliceOf(loaded, { toolsets: ['issues_core'] })).toBe(sliceOf(loaded, { toolsets: ['issues_core'] }));
  });

  it('an evicted slice is rebuilt equal to what it was', async () => {
    const first = await post('/mcp?tools=issues_get,repos_get', 'tools/list');
    const slice = sliceOf(loaded, { tools: ['issues_get', 'repos_get'] });
    for (let n = 0; n < chosen().maxEntries + 10; n++) sliceOf(loaded, { tools: [loaded.name(n % loaded.count), loaded.name((n + 1) % loaded.count), 'repos_get'] });
    const again = sliceOf(loaded, { tools: ['repos_get', 'issues_get'] });
    expect(again).not.toBe(slice);
    expect(again.tools).toEqual(slice.tools);
    const second = await post('/mcp?tools=repos_get,issues_get', 'tools/list');
    expect(second).toEqual(first);
  });

  it('a tools/call on a slice the cache dropped still runs the tool', async () => {
    for (let n = 0; n < chosen().maxEntries + 10; n++) sliceOf(loaded, { tools: [loaded.name((n * 3) % loaded.count), 'users_get_by_username'] });
    const r = await post('/mcp?tools=users_get_by_username', 'tools/call', { name: 'users_get_by_username', arguments: { username: 'octocat' } });
    expect(r.status).toBe(200);
    expect(r.body).toContain('"result"');
    expect(r.body).not.toContain('"isError":true');
  });

  it("every tool of the GitHub catalogue fits the materialised-tool cache (the same object when asked again)", () => {
    const first = Array.from({ length: loaded.count }, (_, i) => loaded.tool(i));
    expect(first.every((t, i) => loaded.tool(i) === t)).toBe(true);
  });
});
