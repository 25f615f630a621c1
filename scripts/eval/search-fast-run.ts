// The fast tuning loop's ranking (scripts/eval/search-fast.ts): the set's queries through rankTools over an index
// rebuilt from the current code. Type-checked with the Worker's types, like search-run.ts.
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import type { CatalogueTool } from '../../src/catalogue/types.ts';
import { rankTools } from '../../src/discovery/search.ts';
import { clearSearchCaches, rankingData } from '../../src/discovery/search-cache.ts';
import { queryClauses } from '../../src/discovery/head-nouns.ts';
import { buildSearchIndex, type Lexicon } from '../../src/discovery/search-index.ts';
import { withoutValues } from '../../src/discovery/search-text.ts';
import { PROFILES } from '../../src/profiles/profiles.ts';
import { buildView } from '../../src/profiles/view.ts';
import { listedReach, offTheShelfBm25 } from './search-bm25.ts';
import { destructiveLead } from './search-destructive.ts';
import { addHalf, countRank, emptyHalf, type HalfResult, type Query, type QuerySet } from './search-types.ts';

const DEPTH = 10;

/** How many of a half's queries the right tool shares none, some or all of the query's words with (--reach), and
 * how many of each it is first for. */
export interface Reach {
  none: number;
  some: number;
  all: number;
  first: { none: number; some: number; all: number };
  /** Of the tasks sharing no word, how many still have their tool in the first five (through intents or fallbacks). */
  noneInFive: number;
  /** Tasks whose right tools' listed name, title and description share no term with the query (English analyzer). */
  listedNone: number;
}

export interface FastResult {
  spec: string;
  reach?: { tuning: Reach; heldOut: Reach };
  tuning: HalfResult;
  heldOut: HalfResult;
  misses: string[];
  indexBytes: number;
  indexMs: number;
}

/** The first hits of one query, with what the ranker knows of each (for looking into a miss). */
export function explain(text: string, tools: CatalogueTool[], toolsets: Record<string, { description: string }>, lexicon: Lexicon, query: string): string {
  const loaded = loadCatalogue(text);
  const index = buildSearchIndex(tools, toolsets, lexicon);
  (loaded as { searchData(): unknown }).searchData = () => index;
  clearSearchCaches();
  const data = rankingData(loaded);
  const clauses = queryClauses(withoutValues(query), data.verbs);
  const out = [`clauses: ${JSON.stringify(clauses)}`];
  const why = new Map<number, string>();
  for (const h of rankTools(loaded, sliceOf(loaded, {}), query, { limit: 10, why })) {
    const d = h.index;
    const t = tools[d]!;
    const nouns = [...(data.nouns?.[d] ?? [])].map((n) => data.terms[n]).join(',');
    const action = (data.actions?.[d] ?? -1) >= 0 ? data.terms[data.actions![d]!] : '';
    out.push(`${h.score.toFixed(2).padStart(7)} ${t.name} (${t.http.method} ${t.http.path}) act=${data.acts?.[d]}${action ? `:${action}` : ''} nouns=${nouns} phrase=${JSON.stringify(data.phrases[d])} title="${t.title}"\n          ${why.get(d) ?? ''}`);
  }
  return out.join('\n');
}

export function rankSet(id: string, set: QuerySet, text: string, tools: CatalogueTool[], toolsets: Record<string, { description: string }>, lexicon: Lexicon, withReach = false): FastResult {
  const loaded = loadCatalogue(text);
  const t0 = performance.now();
  const data = buildSearchIndex(tools, toolsets, lexicon);
  const indexMs = performance.now() - t0;
  (loaded as { searchData(): unknown }).searchData = () => data;
  clearSearchCaches();
  const byOp = new Map<string, number>();
  tools.forEach((t, i) => {
    if (t.name !== loaded.name(i)) throw new Error(`${id}: tool ${i} is ${t.name} in the records but ${loaded.name(i)} in the index`);
    byOp.set(`${t.http.method} ${t.http.path}`, i);
  });
  const slice = sliceOf(loaded, {});
  const ranking = rankingData(loaded);
  // What tools/list serves for the whole catalogue (default profile), in slice order: the baseline's documents.
  const listed = buildView(loaded, slice, PROFILES.default).tools;
  const bm25 = offTheShelfBm25(listed);
  const bm25en = offTheShelfBm25(listed, 'english');
  const misses: string[] = [];
  const half = (queries: Query[], tuning: boolean): HalfResult => {
    const r = emptyHalf(queries.length);
    for (const q of queries) {
      const expected = q.ops.map((op) => {
        const i = byOp.get(op);
        if (i === undefined) throw new Error(`${id}: "${q.q}" expects ${op}, which the catalogue has no tool for`);
        return i;
      });
      const got = rankTools(loaded, slice, q.q, { limit: DEPTH }).map((h) => h.index);
      if (!got.length) r.empty++;
      const at = got.findIndex((i) => expected.includes(i));
      const rank = at < 0 ? undefined : at + 1;
      countRank(r, rank);
      for (const [ranker, into] of [[bm25, r.bm25], [bm25en, r.bm25en]] as const) {
        const base = ranker(q.q, DEPTH).map((k) => slice.tools[k]!).findIndex((i) => expected.includes(i));
        countRank(into, base < 0 ? undefined : base + 1);
      }
      const destructive = destructiveLead(loaded, ranking, q.q, got[0], expected);
      if (destructive) r.destructiveFirst++;
      if (tuning && rank !== 1) {
        const names = got.slice(0, 3).map((i) => `${loaded.name(i)} (${tools[i]!.http.method} ${tools[i]!.http.path})`);
        misses.push(`${id}: "${q.q}" -> ${expected.map((i) => loaded.name(i)).join(' | ')} at ${rank ?? `>${DEPTH}`}${destructive ? ' (destructive first)' : ''}\n      got ${names.join('\n          ')}`);
      }
    }
    return r;
  };
  // A lexical ranker can only find a tool that shares a word (after stemming and the lexicon's related words) with
  // the query; the ranker's own explanation says how many of the query's words each tool matched.
  const reach = (queries: Query[]): Reach => {
    const r: Reach = { none: 0, some: 0, all: 0, first: { none: 0, some: 0, all: 0 }, noneInFive: 0, listedNone: 0 };
    for (const q of queries) {
      const why = new Map<number, string>();
      const ranked = rankTools(loaded, slice, q.q, { limit: tools.length, why });
      const top = ranked[0];
      let best = 0;
      for (const op of q.ops) {
        const m = /words=(\d+)\/(\d+)/.exec(why.get(byOp.get(op)!) ?? '');
        if (m) best = Math.max(best, Number(m[2]) ? Number(m[1]) / Number(m[2]) : 1);
      }
      const kind = best <= 0 ? 'none' : best < 1 ? 'some' : 'all';
      r[kind]++;
      if (top && q.ops.some((op) => byOp.get(op) === top.index)) r.first[kind]++;
      if (kind === 'none' && ranked.slice(0, 5).some((h) => q.ops.some((op) => byOp.get(op) === h.index))) r.noneInFive++;
      if (!listedReach(q.q, q.ops.map((op) => listed[slice.tools.indexOf(byOp.get(op)!)]!))) r.listedNone++;
    }
    return r;
  };
  const tuning = half(set.tuning, true);
  const heldOut = half(set.heldOut, false);
  const reached = withReach ? { tuning: reach(set.tuning), heldOut: reach(set.heldOut) } : undefined;
  return { spec: id, tuning, heldOut, misses, indexBytes: JSON.stringify(data).length, indexMs, ...(reached ? { reach: reached } : {}) };
}

const pct = (n: number, of: number) => (of ? `${Math.round((100 * n) / of)}`.padStart(3) : '  -');

export function summarise(results: FastResult[], quiet = false): string {
  const rows: string[] = [];
  const sum = { tuning: emptyHalf(), heldOut: emptyHalf() };
  // Per half: ours @1 @3 @5 (tasks) | the off-the-shelf BM25 over tools/list, plain and English, @5 | destructive first.
  const cell = (h: HalfResult) =>
    h.queries ? `${pct(h.at1, h.queries)} ${pct(h.at3, h.queries)} ${pct(h.at5, h.queries)} (${h.queries}) bm25@5 ${pct(h.bm25.at5, h.queries)} ${pct(h.bm25en.at5, h.queries)} d${h.destructiveFirst}` : '-'.padEnd(34);
  for (const r of results) {
    if (!quiet) rows.push(`${r.spec.padEnd(15)} tuning ${cell(r.tuning)}   held-out ${cell(r.heldOut)}   index ${r.indexBytes} B ${Math.round(r.indexMs)} ms`);
    for (const h of ['tuning', 'heldOut'] as const) addHalf(sum[h], r[h]);
  }
  const all = (h: HalfResult) =>
    `${pct(h.at1, h.queries)} ${pct(h.at3, h.queries)} ${pct(h.at5, h.queries)} (${h.queries}, empty ${h.empty}); tasks ${h.at1} / ${h.at3} / ${h.at5}; bm25 ${pct(h.bm25.at1, h.queries)} ${pct(h.bm25.at3, h.queries)} ${pct(h.bm25.at5, h.queries)}; bm25 English ${pct(h.bm25en.at1, h.queries)} ${pct(h.bm25en.at3, h.queries)} ${pct(h.bm25en.at5, h.queries)}; destructive first ${h.destructiveFirst}`;
  rows.push(`ALL tuning   ${all(sum.tuning)}`, `ALL held-out ${all(sum.heldOut)}`);
  const reached = results.filter((r) => r.reach);
  if (reached.length) {
    for (const h of ['tuning', 'heldOut'] as const) {
      const t = { none: 0, some: 0, all: 0 };
      const first = { none: 0, some: 0, all: 0 };
      for (const r of reached) {
        for (const k of ['none', 'some', 'all'] as const) {
          t[k] += r.reach![h][k];
          first[k] += r.reach![h].first[k];
        }
      }
      const n = t.none + t.some + t.all;
      const cell = (k: 'none' | 'some' | 'all') => `${k} ${t[k]}/${n} (${pct(t[k], n).trim()}%, first for ${first[k]})`;
      rows.push(`reach ${h === 'tuning' ? 'tuning  ' : 'held-out'} the right tool matches the query's words: ${cell('none')}, ${cell('some')}, ${cell('all')}`);
    }
    // The targets hold per spec: a spec whose held-out tasks share no word with their tool caps its @5 below 100%.
    const capped = reached.filter((r) => r.reach!.heldOut.none).map((r) => `${r.spec} ${r.reach!.heldOut.none}/${r.heldOut.queries} (${r.reach!.heldOut.noneInFive} in the first five)`);
    if (capped.length) rows.push(`reach held-out tasks sharing no word with their tool, by spec: ${capped.join(', ')}`);
    // The same bound for a client's own BM25 (English analyzer) over what tools/list serves.
    const listedCapped = reached.filter((r) => r.reach!.heldOut.listedNone).map((r) => `${r.spec} ${r.reach!.heldOut.listedNone}/${r.heldOut.queries}`);
    if (listedCapped.length) rows.push(`reach held-out tasks sharing no term with their tool's listed name, title and description, by spec: ${listedCapped.join(', ')}`);
  }
  return rows.join('\n');
}
