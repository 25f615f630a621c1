// The off-the-shelf baselines of the search evaluation: what a client's own tool search finds in what tools/list
// serves. MiniSearch (the `minisearch` package: the most used full-text library for JavaScript, no dependencies)
// with BM25+ ranking (k 1.2, b 0.7) and equal weight on each field, over the served name, title and description,
// which is what Claude Code's tool search and the Anthropic and OpenAI APIs' deferred tool loading search over. Two
// analyzers, as hosts set them up:
// - `plain`: MiniSearch's defaults, as a host would drop it in: words split at spaces and punctuation (snake_case
//   names too), lower-cased, no stop words, no stemming;
// - `english`: Lucene's English analyzer's two steps on top: its 33 stop words and the Porter stemmer (the `stemmer`
//   package, the one our own ranker uses).
import MiniSearch from 'minisearch';
import { stemmer } from 'stemmer';

export interface ListedTool {
  name: string;
  title: string;
  description: string;
}

export type Analyzer = 'plain' | 'english';

/** Lucene's ENGLISH_STOP_WORDS_SET. */
const LUCENE_STOP = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '),
);

function processTerm(analyzer: Analyzer): ((term: string) => string | null) | undefined {
  if (analyzer === 'plain') return undefined;
  return (term) => {
    const w = term.toLowerCase();
    return LUCENE_STOP.has(w) ? null : stemmer(w);
  };
}

/** A ranker over the listed tools: a query's first `limit` tools, as indices into `tools`. */
export function offTheShelfBm25(tools: readonly ListedTool[], analyzer: Analyzer = 'plain'): (query: string, limit: number) => number[] {
  const process = processTerm(analyzer);
  const index = new MiniSearch<ListedTool & { id: number }>({ fields: ['name', 'title', 'description'], ...(process ? { processTerm: process } : {}) });
  index.addAll(tools.map((t, id) => ({ id, name: t.name, title: t.title, description: t.description })));
  return (query, limit) => index.search(query).slice(0, limit).map((r) => r.id as number);
}

/**
 * Whether any of the query's terms (English analyzer) is in the listed text of one of `tools`: a BM25 over the list
 * cannot rank a tool that shares none (what bounds it, like --reach for our ranker).
 */
export function listedReach(query: string, tools: readonly ListedTool[]): boolean {
  const terms = (text: string) => text.split(/[\n\r\p{Z}\p{P}]+/u).map(processTerm('english')!).filter((t): t is string => !!t);
  const asked = new Set(terms(query));
  return tools.some((t) => terms(`${t.name} ${t.title} ${t.description}`).some((w) => asked.has(w)));
}
