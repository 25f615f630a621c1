// The search evaluation's query sets (test/search-eval/*.json) and results.

export interface Query {
  q: string;
  /** METHOD /path of each operation that answers it. */
  ops: string[];
}

export interface QuerySet {
  spec: string;
  /** A committed catalogue directory built from the spec (its overrides are used when building). */
  catalogue?: string;
  tuning: Query[];
  heldOut: Query[];
}

export interface Ranks {
  at1: number;
  at3: number;
  at5: number;
}

export interface HalfResult extends Ranks {
  queries: number;
  /** Queries that returned no result at all. */
  empty: number;
  /** The off-the-shelf BM25 over what tools/list serves (search-bm25.ts), on the same tasks: MiniSearch's defaults. */
  bm25: Ranks;
  /** The same with Lucene's English analyzer (stop words, Porter stems). */
  bm25en: Ranks;
  /** Tasks asking to destroy nothing, whose right tools destroy nothing, led by a destructive tool (search-destructive.ts). */
  destructiveFirst: number;
}

export function emptyHalf(queries = 0): HalfResult {
  return { queries, at1: 0, at3: 0, at5: 0, empty: 0, bm25: { at1: 0, at3: 0, at5: 0 }, bm25en: { at1: 0, at3: 0, at5: 0 }, destructiveFirst: 0 };
}

/** Counts a rank (1-based, undefined when not found) into @1/@3/@5. */
export function countRank(r: Ranks, rank: number | undefined): void {
  if (rank === 1) r.at1++;
  if (rank && rank <= 3) r.at3++;
  if (rank && rank <= 5) r.at5++;
}

/** Adds half `h` into `sum`. */
export function addHalf(sum: HalfResult, h: HalfResult): void {
  for (const k of ['queries', 'at1', 'at3', 'at5', 'empty', 'destructiveFirst'] as const) sum[k] += h[k];
  for (const k of ['at1', 'at3', 'at5'] as const) {
    sum.bm25[k] += h.bm25[k];
    sum.bm25en[k] += h.bm25en[k];
  }
}

export interface SetResult {
  spec: string;
  tools: number;
  tuning: HalfResult;
  heldOut: HalfResult;
  /** Queries whose ranks differ between discovery and code mode. */
  disagreements: number;
  /** Tuning-half queries whose operation is not first: "query -> expected (got …)". */
  misses: string[];
}
