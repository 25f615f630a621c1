// Runtime drop list: tools whose outputSchema the operator switched off without a redeploy
// (`npm run schema -- drop|restore <tool> --reason …`, docs/sweep.md).
//
// Storage: one JSON value under the key `schema-drops` (src/catalogue/schema-drop-list.ts) in the CONFIG KV
// namespace when bound, else in KEYS (whose own keys are prefixed `key:`/`used:`, so they never collide).
//
// Propagation: a new isolate reads the list before its first MCP request, so it honours it at once.
// A running isolate re-reads it when its copy is older than SCHEMA_DROPS_TTL_SECONDS (default 60 s);
// KV's own edge caching can add up to about 60 s more, so a change reaches every isolate within
// about two minutes. A failed or missing read keeps the last good list (or none).
//
// Applying: a derived LoadedCatalogue (an overlay on the same catalogue text, copying nothing) in which the dropped
// tools have no outputSchema, built once per distinct list and reused by every request of the isolate (slices and
// profile views are cached per LoadedCatalogue, so they are rebuilt once for the new view, not per request).
// Dropped tools then advertise no outputSchema in tools/list and tools/call sends no structuredContent for them.
import type { Env } from '../config.ts';
import type { LoadedCatalogue } from './loaded-catalogue.ts';
import { DROPS_KEY, parseDrops, type DropList } from './schema-drop-list.ts';

const DEFAULT_DROPS_TTL_SECONDS = 60;

/** The bindings and vars the drop list reads. */
type DropsEnv = Pick<Env, 'CONFIG' | 'KEYS' | 'SCHEMA_DROPS_TTL_SECONDS'>;

const views = new WeakMap<LoadedCatalogue, { key: string; view: LoadedCatalogue }>();

/**
 * The catalogue with the listed tools' outputSchema removed. Names may be aliases; unknown names are ignored
 * (reported by /admin/schema-health). Returns `loaded` itself for an empty effective list.
 */
export function applyDrops(loaded: LoadedCatalogue, list: DropList): LoadedCatalogue {
  const dropped = new Map<number, string>();
  for (const [name, entry] of Object.entries(list.tools)) {
    const i = loaded.indexOf(name);
    if (i !== undefined && loaded.hasOutputSchema(i)) dropped.set(i, `runtime drop list: ${entry.reason}`);
  }
  if (dropped.size === 0) return loaded;
  const key = JSON.stringify([...dropped.keys()].sort((a, b) => a - b));
  const hit = views.get(loaded);
  if (hit && hit.key === key) return hit.view;
  const view = loaded.withDrops(dropped);
  views.set(loaded, { key, view });
  return view;
}

interface IsolateState {
  list: DropList;
  fetchedAt: number;
  error?: string;
  inflight?: Promise<void>;
}

// Per isolate: one state per catalogue.
const states = new WeakMap<LoadedCatalogue, IsolateState>();

function kvOf(env: DropsEnv | undefined): KVNamespace | undefined {
  return env?.CONFIG ?? env?.KEYS;
}

export function dropsTtlMs(env: DropsEnv | undefined): number {
  const n = Number(env?.SCHEMA_DROPS_TTL_SECONDS);
  return (Number.isFinite(n) && n >= 0 && env?.SCHEMA_DROPS_TTL_SECONDS !== undefined && env.SCHEMA_DROPS_TTL_SECONDS !== '' ? n : DEFAULT_DROPS_TTL_SECONDS) * 1000;
}

/** The isolate's current drop list, re-read from KV when older than the TTL. */
export async function currentDrops(loaded: LoadedCatalogue, env: DropsEnv | undefined, now = Date.now()): Promise<IsolateState> {
  const kv = kvOf(env);
  let state = states.get(loaded);
  if (!state) states.set(loaded, (state = { list: { tools: {} }, fetchedAt: -Infinity }));
  if (!kv) return state;
  if (now - state.fetchedAt < dropsTtlMs(env)) return state;
  const s = state;
  s.inflight ??= (async () => {
    try {
      const parsed = parseDrops(await kv.get(DROPS_KEY, 'text'));
      s.list = parsed.list;
      s.error = parsed.error;
    } catch (e) {
      // Keep the last good list; try again after the TTL.
      s.error = `KV read failed: ${(e as Error).message}`;
    }
    s.fetchedAt = now;
  })().finally(() => {
    s.inflight = undefined;
  });
  await s.inflight;
  return s;
}

/** The catalogue view every MCP request of this isolate should use. */
export async function withSchemaDrops(loaded: LoadedCatalogue, env: DropsEnv | undefined): Promise<LoadedCatalogue> {
  const state = await currentDrops(loaded, env);
  return applyDrops(loaded, state.list);
}
