// Search latency in workerd: search_tools on /mcp/discover over the whole GitHub catalogue, for every query of the
// GitHub evaluation set (test/search-eval/github.json), each round trip timed; describe_tool round trips on the same
// endpoint are the floor (the same HTTP, auth and MCP handling, no ranking), so the difference is the search.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../lib/proc.ts';
import { AUTH } from '../plan.ts';
import { fmtMs, percentile } from '../stats.ts';

const ROUNDS = 3;

async function call(base: string, id: number, name: string, args: Record<string, unknown>): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${base}/mcp/discover`, {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  if (!res.ok || !text.includes('"result"')) throw new Error(`search latency: ${name} answered ${res.status} ${text.slice(0, 200)}`);
  return ms;
}

/** p50 and p95 of search_tools and of the describe_tool floor, in ms. */
export async function searchLatency(base: string): Promise<{ queries: number; search: { p50: number; p95: number }; floor: { p50: number }; text: string }> {
  const set = JSON.parse(readFileSync(join(repoRoot, 'test/search-eval/github.json'), 'utf8')) as { tuning: Array<{ q: string }>; heldOut: Array<{ q: string }> };
  const queries = [...set.tuning, ...set.heldOut].map((x) => x.q);
  // The first search builds the index for the isolate: not part of the steady state measured here.
  await call(base, 0, 'search_tools', { query: queries[0] });
  const search: number[] = [];
  const floor: number[] = [];
  let id = 1;
  for (let r = 0; r < ROUNDS; r++) {
    for (const q of queries) {
      search.push(await call(base, id++, 'search_tools', { query: q }));
      floor.push(await call(base, id++, 'describe_tool', { name: 'meta_root' }));
    }
  }
  const s = { p50: percentile(search, 50), p95: percentile(search, 95) };
  const f = { p50: percentile(floor, 50) };
  const text = `search_tools p50 ${fmtMs(s.p50)} (p95 ${fmtMs(s.p95)}) per round trip over ${queries.length} queries × ${ROUNDS}; describe_tool floor p50 ${fmtMs(f.p50)}; ranking ≈ ${fmtMs(Math.max(0, s.p50 - f.p50))}`;
  return { queries: queries.length, search: s, floor: f, text };
}
