// A sharded catalogue (src/catalogue/file-format.ts) keeps its records in static assets. This step fetches the shards a
// tools or hybrid request reads (the slice for tools/list, the named tool for tools/call) before anything reads
// tools synchronously; the meta-tools and code mode load what they name themselves (src/tools/handle.ts resolveTool).
// A catalogue in one text skips it.
import type { MiddlewareHandler } from 'hono';
import { viewOf } from '../profiles/view.ts';
import type { PipelineEnv } from './vars.ts';

export const loadShards: MiddlewareHandler<PipelineEnv> = async (c, next) => {
  const catalogue = c.get('catalogue');
  const mode = c.get('mode');
  if (catalogue.sharded && (mode === 'tools' || mode === 'hybrid')) {
    const slice = c.get('slice');
    const profile = c.get('profile');
    const body = c.get('body');
    const wanted = new Set<number>();
    for (const m of Array.isArray(body.message) ? body.message : [body.message]) {
      const { method, params } = (m ?? {}) as { method?: unknown; params?: { name?: unknown } };
      if (method === 'tools/list') for (const i of slice.tools) wanted.add(i);
      if (method === 'tools/call' && typeof params?.name === 'string') {
        const i = viewOf(catalogue, slice, profile).resolve(params.name);
        if (i !== undefined) wanted.add(i);
      }
    }
    if (wanted.size) await catalogue.load(wanted);
  }
  await next();
};
