// No customer can hurt another (issue 36), the attacks that need more than hostile-tenant.test.ts has: an upstream that
// answers like a hostile or careless API (test/support/hostile-upstream.ts), and a hostile key of its own, so that
// its per-key caps are not the well-behaved client's. Against a real `wrangler dev` with production-sized isolates,
// each case runs while the well-behaved client (the operator's key) keeps calling tools/list and tools/call; it must
// never see an error, its worst latency stays bounded, and each case's answers are what the server promises: a clear
// refusal, within a bounded size. Each case here crashed workerd, held every client for seconds, or blocked its key.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostileUpstream } from '../support/hostile-upstream.ts';
import { startWorker, type WranglerDev } from '../support/wrangler-dev.ts';
import type { HostileCase } from './hostile-cases.ts';
import { HEADERS, hostileKey, sendCase, summarise, wellBehaved, worstOf, type Sent } from './hostile-clients.ts';

/** Generous, so that a loaded machine does not fail it; the target (3 s on 2 idle cores) is printed beside it. */
const WORST_LATENCY_MS = 20_000;

let upstream: Awaited<ReturnType<typeof startHostileUpstream>>;
let worker: WranglerDev;
let state: string;
let hostile: Record<string, string>;

beforeAll(async () => {
  state = await mkdtemp(join(tmpdir(), 'mcp-hostile-'));
  hostile = await hostileKey(state);
  upstream = await startHostileUpstream();
  // A short upstream deadline, so that calls of an upstream that never answers end within the test.
  worker = await startWorker({ upstream: upstream.url, workersHeap: true, persistTo: state, vars: { UPSTREAM_TIMEOUT_MS: '5000' } });
}, 240_000);

afterAll(async () => {
  await worker?.stop();
  await upstream?.close();
  if (state) await rm(state, { recursive: true, force: true });
});

let id = 0;
const call = (name: string, args: unknown) => ({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } });
const repo = (owner: string) => call('repos_get', { owner, repo: 'r' });
const execute = (code: string) => call('execute', { code });
const times = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));
/** The texts of every result and error in an answer (JSON, or SSE events). */
const texts = (s: Sent): string[] =>
  [...s.text.matchAll(/^data: (.*)$/gm)].map((m) => m[1]!).concat(s.text.startsWith('{') ? [s.text] : []).flatMap((d) => {
    const m = JSON.parse(d) as { result?: { content?: Array<{ text?: string }> }; error?: { message?: string }; message?: string };
    return [...(m.result?.content ?? []).map((c) => c.text ?? ''), m.error?.message ?? m.message ?? ''].filter(Boolean);
  });
const allMatch = (re: RegExp) => (sent: Sent[]) => {
  for (const s of sent) expect(texts(s).join('\n'), s.text.slice(0, 300)).toMatch(re);
};
const bounded = (chars: number) => (sent: Sent[]) => {
  for (const s of sent) expect(s.text.length).toBeLessThan(chars);
};
const BIG = 'x'.repeat(200_000);
const SORT_BOMB = 'const s1 = "a".repeat(1.6e7);\nconst s2 = "a".repeat(1.5e7) + "a".repeat(1e6);\nconst a = [];\nfor (let i = 0; i < 4000; i++) a.push(i % 2 ? s1 : s2);\na.sort(new Intl.Collator("en").compare);\nreturn 1;';

interface Case extends HostileCase {
  check(sent: Sent[]): void;
}

const CASES: Case[] = [
  {
    name: 'an upstream answer of 6 MB of empty objects: two million objects once parsed (workerd crashed)',
    path: '/mcp',
    bodies: [repo('objs-e-6144-1')],
    check: allMatch(/^The upstream response to GET \/repos\/objs-e-6144-1\/r \(6291459 bytes\) holds too many JSON values to read on this server/),
  },
  {
    name: 'the same answer through discovery and through a program',
    path: '/mcp/discover',
    bodies: [call('call_tool', { name: 'repos_get', arguments: { owner: 'objs-e-6144-2', repo: 'r' } })],
    check: allMatch(/holds too many JSON values/),
  },
  { name: '… and through execute', path: '/mcp/code', bodies: [execute('return await api.repos_get({ owner: "objs-e-6144-3", repo: "r" }).catch((e) => e.message);')], check: allMatch(/holds too many JSON values/) },
  {
    name: '40 parallel tools/call of one key, each answered with 4 MB (another client waited 6 to 8 s)',
    path: '/mcp',
    bodies: times(40, (i) => repo(`objs-r-4096-p${i}`)),
    check: allMatch(/^\{"result":\[\{"id":12345/),
  },
  { name: 'a batch of 40 tools/call answered with 4 MB each', path: '/mcp', bodies: [times(40, (i) => repo(`objs-r-4096-b${i}`))], check: allMatch(/^\{"result":\[\{"id":12345/) },
  {
    name: 'a gzip bomb, an endless body and a redirect to the metadata address',
    path: '/mcp',
    bodies: [repo('gzbomb-1'), repo('endless-1'), repo('metadata-1')],
    check: (sent) => {
      expect(texts(sent[0]!).join()).toMatch(/larger than the 10485760-byte limit/);
      expect(texts(sent[1]!).join()).toMatch(/larger than the 10485760-byte limit/);
      expect(texts(sent[2]!).join()).not.toMatch(/ami-id|instance-id/);
    },
  },
  {
    name: '20 calls of an upstream that never answers, whose client gives up after a second (its tickets blocked the key for good)',
    path: '/mcp',
    bodies: times(20, (i) => repo(`hang-${i}`)),
    abortAfterMs: 1_000,
    check: (sent) => expect(sent.every((s) => s.status === 'gave up')).toBe(true),
  },
  { name: 'the same key right after: its calls run again', path: '/mcp', bodies: times(3, (i) => repo(`objs-s-1-after${i}`)), check: allMatch(/^\{"result":\["abcdefghij"/) },
  {
    name: 'String.fromCharCode.apply of 60,000 codes 3,000 times (360 MB nothing charged; workerd crashed)',
    path: '/mcp/code',
    bodies: [execute('const a = new Array(60000).fill(0x5b57);\nconst k = [];\nfor (let i = 0; i < 3000; i++) k.push(String.fromCharCode.apply(null, a));\nreturn k.length;')],
    check: allMatch(/^Memory limit: /),
  },
  { name: "a Collator sort of 4,000 references to two equal 16 M-character strings (73 s of one native call)", path: '/mcp/code', bodies: [execute(SORT_BOMB)], check: allMatch(/^Step limit: /) },
  {
    name: 'headers the SDK quotes whole in its refusals, 200 KB each (600 KB errors)',
    path: '/mcp',
    bodies: [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, call('repos_get', { owner: 'o', repo: 'r' })],
    headers: { 'mcp-protocol-version': BIG },
    check: bounded(4_000),
  },
  {
    name: 'an Mcp-Name header against the body, 200 KB',
    path: '/mcp',
    bodies: [{ ...call('repos_get', { owner: 'o', repo: 'r' }), params: { name: 'repos_get', arguments: { owner: 'o', repo: 'r' }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'h', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } } }],
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': BIG },
    check: bounded(8_000),
  },
  {
    name: 'a URL of 2,000 near-miss tool names, read before authentication (8 s of edit distances)',
    path: `/mcp?tools=${times(2000, (i) => `issues_list_for_repoxx${i}`).join(',')}`,
    bodies: [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }],
    headers: { authorization: 'Bearer not-a-key' },
    check: (sent) => {
      bounded(12_000)(sent);
      expect(texts(sent[0]!).join()).toMatch(/and 1990 more\./);
    },
  },
];

describe('a hostile tenant with a hostile upstream cannot hurt a well-behaved one', () => {
  it('every case is answered as promised, and the other client never sees an error while its latency stays bounded', async () => {
    expect((await fetch(worker.endpoint, { method: 'POST', headers: { ...worker.auth, ...HEADERS }, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'tools/list' }) })).status).toBe(200);
    let current = 'warm-up';
    const good = wellBehaved(worker.endpoint, worker.auth, () => current);
    const outcomes: Array<{ c: Case; ms: number; sent: Sent[] }> = [];
    try {
      await new Promise((r) => setTimeout(r, 1_000));
      for (const c of CASES) {
        current = c.name;
        const t = Date.now();
        outcomes.push({ c, sent: await sendCase(worker.url, hostile, c), ms: Date.now() - t });
      }
      current = 'after';
      await new Promise((r) => setTimeout(r, 1_000));
    } finally {
      await good.stop();
    }
    const { worst, worstList } = worstOf(good.samples);
    console.log(
      [
        `hostile tenant and upstream: ${CASES.length} cases, ${good.samples.length} well-behaved requests, worst tools/list ${worstList} ms, worst of all ${worst.ms} ms (${worst.what} during "${worst.during}"); target 3000 ms on 2 idle cores`,
        ...outcomes.map(({ c, ms, sent }) => {
          const seen = good.samples.filter((s) => s.during === c.name);
          return `  ${String(ms).padStart(6)} ms  ${c.name}: ${summarise(sent.map((s) => s.status))}; the other client: ${seen.length} requests, worst ${Math.max(0, ...seen.map((s) => s.ms))} ms`;
        }),
      ].join('\n'),
    );
    expect(good.errors).toEqual([]);
    for (const { c, sent } of outcomes) {
      for (const s of sent) expect(s.status, c.name).toMatch(c.abortAfterMs ? /^(\d{3}|gave up)$/ : /^\d{3}$/);
      c.check(sent);
    }
    expect(worst.ms, `${worst.what} during "${worst.during}"`).toBeLessThan(WORST_LATENCY_MS);
    expect((await fetch(`${worker.url}/healthz`)).status).toBe(200);
  });
});
