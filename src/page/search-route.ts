// GET /catalogue/search?q=<query>[&toolset=<name>][&limit=<n>]: the catalogue page's search, ranked by the same
// ranker as discovery's search_tools and code mode's search (src/discovery/search.ts), over the whole catalogue.
import type { Handler } from 'hono';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import { sliceOf, type Slice } from '../catalogue/slices.ts';
import { rankToolsLoaded } from '../discovery/search.ts';
import { cutQuote } from '../lib/cut-quote.ts';
import { didYouMean } from '../lib/nearest.ts';
import type { PipelineEnv } from '../pipeline/vars.ts';

const MAX_QUERY = 300;
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

export function searchHandler(loaded: LoadedCatalogue): Handler<PipelineEnv> {
  let all: Slice | undefined;
  return async (c) => {
    const q = (c.req.query('q') ?? '').trim();
    const toolset = c.req.query('toolset') || undefined;
    const limitText = c.req.query('limit');
    const limit = limitText === undefined ? DEFAULT_LIMIT : Number(limitText);
    const bad = (message: string) => c.json({ error: 'invalid_request', message }, 400);
    if (!q) return bad('"q" must be a non-empty query, e.g. /catalogue/search?q=list+open+pull+requests.');
    if (q.length > MAX_QUERY) return bad(`"q" is at most ${MAX_QUERY} characters.`);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) return bad(`"limit" must be a whole number from 1 to ${MAX_LIMIT}.`);
    if (toolset && !Object.hasOwn(loaded.catalogue.toolsets, toolset)) return bad(`Unknown toolset: ${cutQuote(toolset)}.${didYouMean(toolset, Object.keys(loaded.catalogue.toolsets))}`);
    all ??= sliceOf(loaded, {});
    const hits = await rankToolsLoaded(loaded, all, q, { toolset, limit });
    return new Response(JSON.stringify({ results: hits.map((h) => ({ name: h.name, title: h.title })) }), {
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' },
    });
  };
}
