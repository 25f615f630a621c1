// Memory that stays bounded whatever clients send (docs/architecture.md, "Per-isolate caches"). `wrangler dev` (KV for
// keys and OAuth, the rate limiter, code mode's loader, the embedded GitHub catalogue) takes thousands of requests a
// client can vary at will: distinct ?tools= slices and toolset mixes, random bearer tokens, session ids, Origin and
// Host values, modes, client profiles and parameters, searches and calls. The isolate's live heap, read through
// wrangler's inspector after a full GC as the bench reads the startup heap (scripts/bench/cdp.ts), must stay under
// HEAP_BOUND at every checkpoint, and every request must get a well-formed answer (no 5xx, no dropped connection).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cdp } from '../../scripts/bench/cdp.ts';
import { descendantsNamed, flood, LEGACY_HEADERS, pick, rssBytes, type FloodRequest } from '../../scripts/bench/slice-flood.ts';
import { seeded } from '../../scripts/lib/seeded.ts';
import { WORKERS_HEAP_V8_FLAGS } from '../../scripts/lib/wrangler.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { PROFILE_IDS } from '../../src/profiles/profiles.ts';
import { startUpstream } from '../support/upstream-server.ts';
import { startWorker, type WranglerDev } from '../support/wrangler-dev.ts';

/** The bound for the heap after a soak; the GitHub isolate starts at ~12 MB after its first request. */
const HEAP_BOUND = 48 * 1e6;
const REQUESTS = 2000;
const CHECKPOINTS = 2;
const CONCURRENCY = 4;

const loaded = loadCatalogue(readFileSync('catalog/catalog.txt', 'utf8'));
const names = loaded.names();
const toolsets = Object.keys(loaded.catalogue.toolsets);

let upstream: Awaited<ReturnType<typeof startUpstream>>;
let worker: WranglerDev;

beforeAll(async () => {
  upstream = await startUpstream();
  // The heap settings npm start uses: a Workers-sized isolate, which a leak ends as it would in production.
  worker = await startWorker({ upstream: upstream.url, env: { MINIFLARE_WORKERD_V8_FLAGS: WORKERS_HEAP_V8_FLAGS.join(' ') } });
});

afterAll(async () => {
  await worker?.stop();
  await upstream?.close();
});

const rpc = (id: number, method: string, params?: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });

/** Random printable junk of up to `max` characters (header-safe). */
function junk(rand: () => number, max: number, alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.~'): string {
  return Array.from({ length: 1 + Math.floor(rand() * max) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('');
}

/** The soak's requests: every kind a client controls, seeded, each with the statuses a correct server may answer. */
function* soakRequests(count: number, seed: number, apiKey: string, slices: Set<string>): Generator<FloodRequest> {
  const rand = seeded(seed);
  const one = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const auth = { authorization: `Bearer ${apiKey}` };
  for (let i = 0; i < count; i++) {
    const id = seed * 100_000 + i;
    const kind = rand();
    const q = new URLSearchParams();
    if (rand() < 0.2) q.set('readonly', '1');
    if (rand() < 0.3) q.set('client', rand() < 0.9 ? one(PROFILE_IDS) : junk(rand, 12));
    if (rand() < 0.15) q.set('mode', one(['tools', 'discover', 'code', junk(rand, 8)]));
    // `served`: the request passes auth and the guard, so the worker builds this slice.
    const slicePath = (served = true) => {
      const s = new URLSearchParams(q);
      const tools = pick(names, 1 + Math.floor(rand() * 40), rand);
      s.set('tools', tools.join(','));
      if (served) slices.add(tools.sort().join(','));
      return `/mcp?${s}`;
    };
    // Statuses a correct server may give whatever the random parameters (unknown client or mode: 400).
    const mcpOk = [200, 400, 501];
    if (kind < 0.45) {
      // A distinct ?tools= slice, listed.
      yield { path: slicePath(), headers: { ...LEGACY_HEADERS, ...auth }, body: rpc(id, 'tools/list'), expect: mcpOk };
    } else if (kind < 0.55) {
      // A toolset mix (and sometimes an unknown toolset: 400).
      const mix = pick(toolsets, 1 + Math.floor(rand() * 4), rand);
      if (rand() < 0.1) mix.push(junk(rand, 10));
      yield { path: `/mcp/x/${mix.join('+')}?${q}`, headers: { ...LEGACY_HEADERS, ...auth }, body: rpc(id, 'tools/list'), expect: mcpOk };
    } else if (kind < 0.65) {
      // Discovery's search over a random slice (one search index per slice).
      const tools = pick(names, 5 + Math.floor(rand() * 55), rand);
      slices.add(tools.sort().join(','));
      const s = new URLSearchParams({ tools: tools.join(','), mode: 'discover' });
      yield { path: `/mcp?${s}`, headers: { ...LEGACY_HEADERS, ...auth }, body: rpc(id, 'tools/call', { name: 'search_tools', arguments: { query: `${junk(rand, 10)} ${one(['list', 'get', 'create'])} ${one(['issues', 'repos', 'users', 'gists'])}` } }), expect: mcpOk };
    } else if (kind < 0.75) {
      // A random bearer: a key-shaped one (looked up in KV), an OAuth-token-shaped one, or junk.
      const token = one([`mcp_live_${junk(rand, 40)}`, `${junk(rand, 20)}:${junk(rand, 20)}:${junk(rand, 40)}`, junk(rand, 80)]);
      yield { path: rand() < 0.5 ? slicePath(false) : '/mcp', headers: { ...LEGACY_HEADERS, authorization: `Bearer ${token}` }, body: rpc(id, 'tools/list'), expect: [401, 400] };
    } else if (kind < 0.85) {
      // A random session id, sometimes shaped like one this server signs, with tools/list or initialize.
      const session = rand() < 0.5 ? `mcp1.${one(PROFILE_IDS)}.${junk(rand, 16)}.${junk(rand, 22)}` : junk(rand, 120);
      const init = rand() < 0.3;
      const body = init ? rpc(id, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: junk(rand, 20), version: '1' } }) : rpc(id, 'tools/list');
      yield { path: rand() < 0.5 ? slicePath() : `/mcp?${q}`, headers: { ...LEGACY_HEADERS, ...auth, 'mcp-session-id': session }, body, expect: mcpOk };
    } else if (kind < 0.95) {
      // A random Host or Origin: refused by the guard, or (a *.workers.dev host) served with that origin.
      // Host labels a URL accepts (wrangler's own proxy answers 500 for one it cannot parse, before the worker runs).
      const label = () => junk(rand, 12, 'abcdefghijklmnopqrstuvwxyz0123456789');
      const host = one([`${label()}.workers.dev`, `${label()}.example.com`, '127.0.0.1']);
      const headers: Record<string, string> = { ...LEGACY_HEADERS, ...auth, host };
      if (rand() < 0.6) headers.origin = one([`https://${label()}.example`, `https://${host}`, `http://${label()}`, junk(rand, 30)]);
      const path = one([slicePath(false), '/mcp', '/.well-known/oauth-protected-resource/mcp', '/']);
      yield { path, headers, body: rpc(id, 'tools/list'), expect: [200, 400, 403, 404, 405] };
    } else {
      // A tools/call of a random tool with junk arguments: a tool error or a result, never a failure.
      const tool = one(names);
      slices.add(tool);
      yield { path: `/mcp?tools=${tool}`, headers: { ...LEGACY_HEADERS, ...auth }, body: rpc(id, 'tools/call', { name: tool, arguments: { [junk(rand, 8)]: junk(rand, 20) } }), expect: [200] };
    }
  }
}

describe('memory soak', () => {
  it(`${REQUESTS} hostile requests keep the isolate heap under ${HEAP_BOUND / 1e6} MB, and every one is answered`, { timeout: 300_000 }, async () => {
    const cdp = await Cdp.connect(worker.inspector, 'http://127.0.0.1');
    try {
      const pids = descendantsNamed(worker.pid, 'workerd');
      const rss = () => pids.reduce((n, p) => n + rssBytes(p), 0);
      // Heaps after each share of the requests (a snapshot through wrangler's proxy takes ~15 s, so none before).
      const heaps: number[] = [];
      const per = Math.ceil(REQUESTS / CHECKPOINTS);
      const slices = new Set<string>();
      // RSS grown while serving, and while the heap snapshots are taken: wrangler's inspector proxy (a Worker in the
      // second workerd) relays each snapshot's JSON, and neither process returns that memory (docs/ci.md).
      let servingRss = 0;
      let snapshotRss = 0;
      for (let k = 0; k < CHECKPOINTS; k++) {
        const before = rss();
        const out = await flood(worker.url, soakRequests(per, k + 1, worker.apiKey, slices), CONCURRENCY);
        expect(out.failures, `${out.failed} of ${out.sent} requests failed`).toEqual([]);
        const served = rss();
        servingRss += served - before;
        heaps.push(await cdp.heapAfterGc());
        snapshotRss += rss() - served;
      }
      const mb = (n: number) => (n / 1e6).toFixed(1);
      console.log(`memory soak: heap ${heaps.map(mb).join(' → ')} MB; workerd RSS +${mb(servingRss)} MB over ${per * CHECKPOINTS} requests (${slices.size} distinct ?tools= slices), +${mb(snapshotRss)} MB over the ${CHECKPOINTS} heap snapshots`);
      expect(slices.size).toBeGreaterThan(1000);
      for (const h of heaps) expect(h).toBeLessThan(HEAP_BOUND);
      // Still serving: bare /mcp lists its tools.
      const res = await fetch(worker.endpoint, { method: 'POST', headers: { ...LEGACY_HEADERS, ...worker.auth }, body: rpc(1, 'tools/list') });
      expect(res.status).toBe(200);
      expect((await res.text()).match(/"inputSchema"/g)?.length).toBeGreaterThan(50);
    } finally {
      cdp.close();
    }
  });
});
