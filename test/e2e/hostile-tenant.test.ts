// No customer can hurt another (issue 36): against a real `wrangler dev` with production-sized isolates (128 MB heap,
// as `npm start` runs them), a hostile tenant sends every case of hostile-cases.ts while a well-behaved client keeps
// calling tools/list and tools/call. The well-behaved client must never see a network error (a crashed or restarted
// runtime) and its worst latency must stay bounded; every hostile request gets an HTTP answer too. Part of `npm test`
// (so of .ci/run): about 30 s with wrangler's start, most cases end within a second.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstream } from '../support/upstream-server.ts';
import { startWorker, type WranglerDev } from '../support/wrangler-dev.ts';
import { HOSTILE_CASES, type HostileCase } from './hostile-cases.ts';

/** Generous, so that a loaded machine does not fail it; the target (3 s on 2 idle cores) is printed beside it. */
const WORST_LATENCY_MS = 20_000;

let upstream: Awaited<ReturnType<typeof startUpstream>>;
let worker: WranglerDev;

beforeAll(async () => {
  upstream = await startUpstream();
  worker = await startWorker({ upstream: upstream.url, workersHeap: true });
}, 240_000);

afterAll(async () => {
  await worker?.stop();
  await upstream?.close();
});

interface Sample {
  ms: number;
  what: string;
  during: string;
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

/**
 * The well-behaved client: tools/list and tools/call, each in a loop of its own, each timed from the request to the last byte of its
 * answer, until stopped. Plain HTTP, as a 2025-era client sends them after its initialize, so the time is the
 * server's and not a client library's (the v1 SDK compiles every outputSchema of a listing, seconds under load).
 */
function wellBehaved(current: () => string) {
  const samples: Sample[] = [];
  const errors: string[] = [];
  let stopped = false;
  const post = async (body: unknown) => {
    const res = await fetch(worker.endpoint, { method: 'POST', headers: { ...worker.auth, ...HEADERS }, body: JSON.stringify(body), signal: AbortSignal.timeout(120_000) });
    const text = await res.text();
    const data = /^data: (.*)$/m.exec(text)?.[1] ?? text;
    return { status: res.status, message: JSON.parse(data) as { result?: { tools?: unknown[]; isError?: boolean; content?: Array<{ text?: string }> }; error?: unknown } };
  };
  // Two loops, so that one slow answer does not leave the rest of a case unwatched.
  const loop = (what: 'tools/list' | 'tools/call') =>
    (async () => {
      for (let i = 0; !stopped; i++) {
        const t = Date.now();
        const during = current();
        try {
          const { status, message } =
            what === 'tools/list'
              ? await post({ jsonrpc: '2.0', id: i, method: 'tools/list' })
              : await post({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'issues_get', arguments: { owner: 'polite', repo: 'hello', issue_number: 2 } } });
          samples.push({ ms: Date.now() - t, what, during });
          if (status !== 200) errors.push(`${during}: ${what} answered ${status}`);
          else if (what === 'tools/list' && !message.result?.tools?.length) errors.push(`${during}: tools/list answered ${JSON.stringify(message).slice(0, 200)}`);
          else if (what === 'tools/call' && (!message.result || message.result.isError)) errors.push(`${during}: tools/call answered ${JSON.stringify(message).slice(0, 200)}`);
        } catch (e) {
          errors.push(`${during}: ${what}: ${String((e as Error).cause ?? e)}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
  const loops = [loop('tools/list'), loop('tools/call')];
  return {
    samples,
    errors,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** One hostile case: its POSTs at once; each must be answered with some HTTP status, read to its end. */
async function send(c: HostileCase): Promise<string[]> {
  return Promise.all(
    c.bodies.map(async (body) => {
      try {
        const res = await fetch(`${worker.url}${c.path}`, {
          method: 'POST',
          headers: { ...worker.auth, ...HEADERS },
          body: typeof body === 'string' ? body : JSON.stringify(body),
          signal: AbortSignal.timeout(120_000),
        });
        const text = await res.text();
        // wrangler's proxy answers a lost runtime with a plain-text error of its own.
        if (/Network connection lost|Internal server error|workerd/i.test(text) && !text.startsWith('{') && !text.startsWith('event:')) return `lost: ${res.status} ${text.slice(0, 120)}`;
        return `${res.status}`;
      } catch (e) {
        return `network error: ${String((e as Error).cause ?? e).slice(0, 200)}`;
      }
    }),
  );
}

describe('a hostile tenant cannot hurt a well-behaved one', () => {
  it('every hostile case is answered, and the other client never sees an error while its latency stays bounded', async () => {
    // The first tools/list of an isolate builds its listing: not part of what a hostile tenant costs.
    expect((await fetch(worker.endpoint, { method: 'POST', headers: { ...worker.auth, ...HEADERS }, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'tools/list' }) })).status).toBe(200);
    let current = 'warm-up';
    const good = wellBehaved(() => current);
    const outcomes: Array<{ name: string; ms: number; statuses: string[] }> = [];
    try {
      await new Promise((r) => setTimeout(r, 1_000));
      for (const c of HOSTILE_CASES) {
        current = c.name;
        const t = Date.now();
        const statuses = await send(c);
        outcomes.push({ name: c.name, ms: Date.now() - t, statuses });
      }
      current = 'after';
      await new Promise((r) => setTimeout(r, 1_000));
    } finally {
      await good.stop();
    }
    const worst = good.samples.reduce((w, s) => (s.ms > w.ms ? s : w), { ms: 0, what: '', during: '' });
    const worstList = good.samples.filter((s) => s.what === 'tools/list').reduce((w, s) => Math.max(w, s.ms), 0);
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

function summarise(statuses: string[]): string {
  const counts = new Map<string, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  return [...counts].map(([s, n]) => (n > 1 ? `${n} × ${s}` : s)).join(', ');
}
