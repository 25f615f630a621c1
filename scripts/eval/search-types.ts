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

export interface HalfResult {
  queries: number;
  at1: number;
  at3: number;
  at5: number;
  /** Queries that returned no result at all. */
  empty: number;
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
