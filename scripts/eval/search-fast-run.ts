// The fast tuning loop's ranking (scripts/eval/search-fast.ts): the set's queries through rankTools over an index
// rebuilt from the current code. Type-checked with the Worker's types, like search-run.ts.
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import type { CatalogueTool } from '../../src/catalogue/types.ts';
import { rankTools } from '../../src/discovery/search.ts';
import { clearSearchCaches, rankingData } from '../../src/discovery/search-cache.ts';
import { queryClauses } from '../../src/discovery/head-nouns.ts';
import { buildSearchIndex, type Lexicon } from '../../src/discovery/search-index.ts';
import type { HalfResult, Query, QuerySet } from './search-types.ts';

const DEPTH = 10;

export interface FastResult {
  spec: string;
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
  const clauses = queryClauses(query, data.verbs);
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

export function rankSet(id: string, set: QuerySet, text: string, tools: CatalogueTool[], toolsets: Record<string, { description: string }>, lexicon: Lexicon): FastResult {
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
  const misses: string[] = [];
  const half = (queries: Query[], tuning: boolean): HalfResult => {
    const r: HalfResult = { queries: queries.length, at1: 0, at3: 0, at5: 0, empty: 0 };
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
      if (rank === 1) r.at1++;
      if (rank && rank <= 3) r.at3++;
      if (rank && rank <= 5) r.at5++;
      if (tuning && rank !== 1) {
        const names = got.slice(0, 3).map((i) => `${loaded.name(i)} (${tools[i]!.http.method} ${tools[i]!.http.path})`);
        misses.push(`${id}: "${q.q}" -> ${expected.map((i) => loaded.name(i)).join(' | ')} at ${rank ?? `>${DEPTH}`}\n      got ${names.join('\n          ')}`);
      }
    }
    return r;
  };
  const tuning = half(set.tuning, true);
  const heldOut = half(set.heldOut, false);
  return { spec: id, tuning, heldOut, misses, indexBytes: JSON.stringify(data).length, indexMs };
}

const pct = (n: number, of: number) => (of ? `${Math.round((100 * n) / of)}`.padStart(3) : '  -');

export function summarise(results: FastResult[], quiet = false): string {
  const rows: string[] = [];
  const sum = { tuning: { queries: 0, at1: 0, at3: 0, at5: 0, empty: 0 }, heldOut: { queries: 0, at1: 0, at3: 0, at5: 0, empty: 0 } };
  for (const r of results) {
    const cell = (h: HalfResult) => (h.queries ? `${pct(h.at1, h.queries)} ${pct(h.at3, h.queries)} ${pct(h.at5, h.queries)} (${h.queries})` : '      -       ');
    if (!quiet) rows.push(`${r.spec.padEnd(14)} tuning ${cell(r.tuning)}   held-out ${cell(r.heldOut)}   index ${r.indexBytes} B ${Math.round(r.indexMs)} ms`);
    for (const h of ['tuning', 'heldOut'] as const) for (const k of ['queries', 'at1', 'at3', 'at5', 'empty'] as const) sum[h][k] += r[h][k];
  }
  const all = (h: HalfResult) => `${pct(h.at1, h.queries)} ${pct(h.at3, h.queries)} ${pct(h.at5, h.queries)} (${h.queries}, empty ${h.empty})`;
  rows.push(`ALL            tuning ${all(sum.tuning)}   held-out ${all(sum.heldOut)}`);
  return rows.join('\n');
}
