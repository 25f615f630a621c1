// One query set held ready for fitting the ranker's numbers (scripts/eval/search-fit.ts): its catalogue loaded once,
// its search index rebuilt on demand (after a field weight changed), its queries ranked by rankTools. Type-checked
// with the Worker's types, like search-run.ts.
import { loadCatalogue, type LoadedCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf, type Slice } from '../../src/catalogue/slices.ts';
import type { CatalogueTool } from '../../src/catalogue/types.ts';
import { rankTools } from '../../src/discovery/search.ts';
import { clearSearchCaches } from '../../src/discovery/search-cache.ts';
import { buildSearchIndex, type Lexicon, type SearchIndexData } from '../../src/discovery/search-index.ts';
import type { Query, QuerySet } from './search-types.ts';

/** Ranks past this count as not found. */
export const DEPTH = 10;

export class Bench {
  readonly id: string;
  readonly set: QuerySet;
  private readonly tools: CatalogueTool[];
  private readonly toolsets: Record<string, { description: string }>;
  private readonly lexicon: Lexicon;
  private readonly loaded: LoadedCatalogue;
  private readonly slice: Slice;
  private readonly expected: Map<Query, number[]>;
  private index?: SearchIndexData;

  constructor(id: string, set: QuerySet, text: string, tools: CatalogueTool[], toolsets: Record<string, { description: string }>, lexicon: Lexicon) {
    this.id = id;
    this.set = set;
    this.tools = tools;
    this.toolsets = toolsets;
    this.lexicon = lexicon;
    this.loaded = loadCatalogue(text);
    (this.loaded as { searchData(): unknown }).searchData = () => this.index;
    this.slice = sliceOf(this.loaded, {});
    const byOp = new Map(tools.map((t, i) => [`${t.http.method} ${t.http.path}`, i]));
    this.expected = new Map(
      [...set.tuning, ...set.heldOut].map((q) => [
        q,
        q.ops.map((op) => {
          const i = byOp.get(op);
          if (i === undefined) throw new Error(`${id}: "${q.q}" expects ${op}, which the catalogue has no tool for`);
          return i;
        }),
      ]),
    );
  }

  /** Builds the search index anew from the current field weights and lexicon. */
  reindex(): void {
    this.index = buildSearchIndex(this.tools, this.toolsets, this.lexicon);
    clearSearchCaches();
  }

  /** The rank of each query's first right operation (DEPTH + 1 when not in the first DEPTH). */
  ranks(queries: Query[]): number[] {
    if (!this.index) this.reindex();
    return queries.map((q) => {
      const want = this.expected.get(q)!;
      const at = rankTools(this.loaded, this.slice, q.q, { limit: DEPTH }).findIndex((h) => want.includes(h.index));
      return at < 0 ? DEPTH + 1 : at + 1;
    });
  }
}
