// No customer can hurt another (issue 36): against a real `wrangler dev` with production-sized isolates (128 MB heap,
// as `npm start` runs them), a hostile tenant with a key of its own sends every case of hostile-cases.ts while a
// well-behaved client (the operator's key) keeps calling tools/list and tools/call. The well-behaved client must never see a network error (a crashed or restarted
// runtime) and its worst latency must stay bounded; every hostile request gets an HTTP answer too. Part of `npm test`
// (so of .ci/run): about 30 s with wrangler's start, most cases end within a second. The attacks that need a hostile
// upstream or keys of their own are in hostile-tenant-upstream.test.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstream } from '../support/upstream-server.ts';
import { startWorker, type WranglerDev } from '../support/wrangler-dev.ts';
import { HOSTILE_CASES } from './hostile-cases.ts';
import { HEADERS, hostileKey, sendCase, summarise, wellBehaved, worstOf } from './hostile-clients.ts';

/** Generous, so that a loaded machine does not fail it; the target (3 s on 2 idle cores) is printed beside it. */
const WORST_LATENCY_MS = 20_000;

let upstream: Awaited<ReturnType<typeof startUpstream>>;
let worker: WranglerDev;
let state: string;
let hostile: Record<string, string>;

beforeAll(async () => {
  state = await mkdtemp(join(tmpdir(), 'mcp-hostile-'));
  hostile = await hostileKey(state);
  upstream = await startUpstream();
  worker = await startWorker({ upstream: upstream.url, workersHeap: true, persistTo: state });
}, 240_000);

afterAll(async () => {
  await worker?.stop();
  await upstream?.close();
  if (state) await rm(state, { recursive: true, force: true });
});

describe('a hostile tenant cannot hurt a well-behaved one', () => {
  it('every hostile case is answered, and the other client never sees an error while its latency stays bounded', async () => {
    // The first tools/list of an isolate builds its listing: not part of what a hostile tenant costs.
    expect((await fetch(worker.endpoint, { method: 'POST', headers: { ...worker.auth, ...HEADERS }, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'tools/list' }) })).status).toBe(200);
    let current = 'warm-up';
    const good = wellBehaved(worker.endpoint, worker.auth, () => current);
    const outcomes: Array<{ name: string; ms: number; statuses: string[] }> = [];
    try {
      await new Promise((r) => setTimeout(r, 1_000));
      for (const c of HOSTILE_CASES) {
        current = c.name;
        const t = Date.now();
        const sent = await sendCase(worker.url, hostile, c);
        outcomes.push({ name: c.name, ms: Date.now() - t, statuses: sent.map((s) => s.status) });
      }
      current = 'after';
      await new Promise((r) => setTimeout(r, 1_000));
    } finally {
      await good.stop();
    }
    const { worst, worstList } = worstOf(good.samples);
    console.log(
      [
        `hostile tenant: ${HOSTILE_CASES.length} cases, ${good.samples.length} well-behaved requests, worst tools/list ${worstList} ms, worst of all ${worst.ms} ms (${worst.what} during "${worst.during}"); target 3000 ms on 2 idle cores`,
        ...outcomes.map((o) => {
          const seen = good.samples.filter((s) => s.during === o.name);
          return `  ${String(o.ms).padStart(6)} ms  ${o.name}: ${summarise(o.statuses)}; the other client: ${seen.length} requests, worst ${Math.max(0, ...seen.map((s) => s.ms))} ms`;
        }),
      ].join('\n'),
    );
    expect(good.errors).toEqual([]);
    for (const o of outcomes) for (const s of o.statuses) expect(s, o.name).toMatch(/^\d{3}$/);
    expect(good.samples.length).toBeGreaterThan(HOSTILE_CASES.length);
    expect(worst.ms, `${worst.what} during "${worst.during}"`).toBeLessThan(WORST_LATENCY_MS);
    // Still the same runtime: it answers, and a plain execute works.
    expect((await fetch(`${worker.url}/healthz`)).status).toBe(200);
  });
});
