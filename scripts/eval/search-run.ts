// One query set through discovery's search_tools and code mode's search (their real surfaces, over a scope like the
// stdio server's), and the table npm run eval:search prints.
import { loadCatalogue, type LoadedCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import { codeSurface } from '../../src/codemode/surface.ts';
import { readConfig } from '../../src/config.ts';
import { discoverySurface } from '../../src/discovery/meta-tools.ts';
import { rankingData } from '../../src/discovery/search-cache.ts';
import { PROFILES } from '../../src/profiles/profiles.ts';
import { toolsSurface } from '../../src/tools/surface.ts';
import type { RequestScope } from '../../src/tools/scope.ts';
import { offTheShelfBm25 } from './search-bm25.ts';
import { destructiveLead } from './search-destructive.ts';
import { addHalf, countRank, emptyHalf, type HalfResult, type Query, type QuerySet, type Ranks, type SetResult } from './search-types.ts';

const DEPTH = 10;

export async function evaluateSet(id: string, set: QuerySet, text: string, declarations: string): Promise<SetResult> {
  const loaded = loadCatalogue(text);
  const byOp = new Map<string, string>();
  for (let i = 0; i < loaded.count; i++) {
    const t = loaded.tool(i);
    byOp.set(`${t.http.method} ${t.http.path}`, t.name);
  }
  const discover = discoverySurface(scopeOf(loaded, 'discover'));
  const code = codeSurface({ ...scopeOf(loaded, 'code'), code: { declarations, execute: async () => ({ content: [] }) } });
  // The off-the-shelf baseline searches what tools mode's tools/list serves (the whole catalogue, default profile).
  const listed = toolsSurface(scopeOf(loaded, 'tools')).tools;
  const bm25 = offTheShelfBm25(listed);
  const bm25en = offTheShelfBm25(listed, 'english');
  const ranking = rankingData(loaded);
  const misses: string[] = [];
  let disagreements = 0;
  const half = async (queries: Query[], tuning: boolean): Promise<HalfResult> => {
    const r = emptyHalf(queries.length);
    for (const q of queries) {
      const expected = q.ops.map((op) => {
        const name = byOp.get(op);
        if (!name) throw new Error(`${id}: "${q.q}" expects ${op}, which the catalogue has no tool for`);
        return name;
      });
      const d = await discoveryNames(discover, q.q);
      const c = await codeNames(code, q.q);
      if (!d.length) r.empty++;
      const rank = firstRank(d, expected);
      if (rank !== firstRank(c, expected)) disagreements++;
      countRank(r, rank);
      countRank(r.bm25, firstRank(bm25(q.q, DEPTH).map((k) => listed[k]!.name), expected));
      countRank(r.bm25en, firstRank(bm25en(q.q, DEPTH).map((k) => listed[k]!.name), expected));
      const index = (name: string) => loaded.indexOf(name)!;
      if (destructiveLead(loaded, ranking, q.q, d[0] === undefined ? undefined : index(d[0]), expected.map(index))) r.destructiveFirst++;
      if (tuning && rank !== 1) misses.push(`${id}: "${q.q}" -> ${expected.join(' | ')} at ${rank ?? `>${DEPTH}`} (got ${d.slice(0, 3).join(', ')})`);
    }
    return r;
  };
  const tuning = await half(set.tuning, true);
  const heldOut = await half(set.heldOut, false);
  return { spec: id, tools: loaded.count, tuning, heldOut, disagreements, misses };
}

function scopeOf(loaded: LoadedCatalogue, mode: RequestScope['mode']): RequestScope {
  return {
    catalogue: loaded,
    config: readConfig({}, loaded.catalogue.defaultUpstream),
    caller: { id: 'eval', scope: {}, upstream: {} },
    slice: sliceOf(loaded, {}),
    profile: PROFILES.default,
    mode,
  };
}

async function discoveryNames(surface: ReturnType<typeof discoverySurface>, query: string): Promise<string[]> {
  const { result } = await surface.call('search_tools', { query, limit: DEPTH });
  const results = (result.structuredContent as { results?: Array<{ name: string }> } | undefined)?.results ?? [];
  return results.map((r) => r.name);
}

async function codeNames(surface: ReturnType<typeof codeSurface>, query: string): Promise<string[]> {
  const { result } = await surface.call('search', { query, limit: DEPTH });
  const text = result.content?.map((c) => (c.type === 'text' ? c.text : '')).join('\n') ?? '';
  const api = text.slice(text.indexOf('declare namespace api {'));
  return [...api.matchAll(/^ {2}function (\w+)\(/gm)].map((m) => m[1]!);
}

function firstRank(names: string[], expected: string[]): number | undefined {
  const i = names.findIndex((n) => expected.includes(n));
  return i < 0 ? undefined : i + 1;
}

const pct = (n: number, of: number) => (of ? `${Math.round((100 * n) / of)}%` : '-');
const trio = (r: Ranks, of: number) => `${pct(r.at1, of)} / ${pct(r.at3, of)} / ${pct(r.at5, of)}`;

export function formatTable(results: SetResult[]): string {
  const rows = [
    '| spec | tools | half | queries | @1 | @3 | @5 | empty | BM25 @1 / @3 / @5 | BM25 English @1 / @3 / @5 | destructive first |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const total = { tuning: emptyHalf(), heldOut: emptyHalf() };
  const row = (spec: string, tools: string, h: 'tuning' | 'heldOut', x: HalfResult) =>
    `| ${spec} | ${tools} | ${h === 'tuning' ? 'tuning' : 'held-out'} | ${x.queries} | ${pct(x.at1, x.queries)} | ${pct(x.at3, x.queries)} | ${pct(x.at5, x.queries)} | ${x.empty} | ${trio(x.bm25, x.queries)} | ${trio(x.bm25en, x.queries)} | ${x.destructiveFirst} |`;
  for (const r of results) {
    for (const h of ['tuning', 'heldOut'] as const) {
      if (r[h].queries) rows.push(row(r.spec, String(r.tools), h, r[h]));
      addHalf(total[h], r[h]);
    }
  }
  for (const h of ['tuning', 'heldOut'] as const) rows.push(row('**all**', '', h, total[h]));
  return rows.join('\n');
}
