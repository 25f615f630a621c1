// The off-the-shelf baseline of the search evaluation: what a client's own tool search finds in what tools/list
// serves. MiniSearch (the `minisearch` package: the most used full-text library for JavaScript, no dependencies) with
// its defaults, as a host would drop it in: BM25+ ranking (k 1.2, b 0.7), words split at spaces and punctuation
// (snake_case names too), lower-cased, no stemming, no synonyms, equal weight on each field. Indexed fields: the
// served name, title and description, which is what Claude Code's tool search and the Anthropic and OpenAI APIs'
// deferred tool loading search over.
import MiniSearch from 'minisearch';

export interface ListedTool {
  name: string;
  title: string;
  description: string;
}

/** A ranker over the listed tools: a query's first `limit` tools, as indices into `tools`. */
export function offTheShelfBm25(tools: readonly ListedTool[]): (query: string, limit: number) => number[] {
  const index = new MiniSearch<ListedTool & { id: number }>({ fields: ['name', 'title', 'description'] });
  index.addAll(tools.map((t, id) => ({ id, name: t.name, title: t.title, description: t.description })));
  return (query, limit) => index.search(query).slice(0, limit).map((r) => r.id as number);
}
