// Runtime drop list: tools whose outputSchema is switched off without a redeploy, by the operator
// (`npm run schema -- drop|restore <tool> --reason …`) or by the worker itself when a tool's live responses keep
// failing its schema (src/schema-health/autodrop.ts). docs/sweep.md.
//
// Storage: one JSON value under the key `schema-drops` (src/schema-health/drop-list.ts) in the CONFIG KV
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
// The state (the list this isolate applies, the derived view) is a DropState the caller owns (src/schema-health/health.ts).
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { Env } from '../config.ts';
import { DROPS_KEY, parseDrops, type DropEntry, type DropList } from './drop-list.ts';

const DEFAULT_DROPS_TTL_SECONDS = 60;

/** The bindings and vars the drop list reads. */
type DropsEnv = Pick<Env, 'CONFIG' | 'KEYS' | 'SCHEMA_DROPS_TTL_SECONDS'>;

/**
 * The catalogue with the listed tools' outputSchema removed. Names may be aliases; unknown names are ignored
 * (reported by /admin/schema-health). Returns `loaded` itself for an empty effective list. `cache` keeps the derived
 * view, so one list yields one view.
 */
export function applyDrops(loaded: LoadedCatalogue, list: DropList, cache: { view?: { key: string; view: LoadedCatalogue } } = {}): LoadedCatalogue {
  const dropped = new Map<number, string>();
  for (const [name, entry] of Object.entries(list.tools)) {
    const i = loaded.indexOf(name);
    if (i !== undefined && loaded.hasOutputSchema(i)) dropped.set(i, `runtime drop list: ${entry.reason}`);
  }
  if (dropped.size === 0) return loaded;
  const key = JSON.stringify([...dropped.keys()].sort((a, b) => a - b));
  const hit = cache.view;
  if (hit && hit.key === key) return hit.view;
  const view = loaded.withDrops(dropped);
  cache.view = { key, view };
  return view;
}

/** The drop list as one isolate applies it to one catalogue. */
export interface DropState {
  /** The list this isolate applies: the stored one plus its own pending automatic drops. */
  list: DropList;
  fetchedAt: number;
  error?: string;
  inflight?: Promise<void>;
  /** Automatic drops this isolate learnt of before the stored list shows them (KV is eventually consistent). */
  pending: Map<string, { entry: DropEntry; until: number }>;
  /** The served view of the catalogue for `list` (applyDrops). */
  view?: { key: string; view: LoadedCatalogue };
}

export function newDropState(): DropState {
  return { list: { tools: {} }, fetchedAt: -Infinity, pending: new Map() };
}

/** How long an isolate applies an automatic drop its KV reads do not show yet: KV's ~60 s propagation, twice. */
const PENDING_MS = 120_000;

export function kvOf(env: Pick<Env, 'CONFIG' | 'KEYS'> | undefined): KVNamespace | undefined {
  return env?.CONFIG ?? env?.KEYS;
}

export function dropsTtlMs(env: DropsEnv | undefined): number {
  const n = Number(env?.SCHEMA_DROPS_TTL_SECONDS);
  return (Number.isFinite(n) && n >= 0 && env?.SCHEMA_DROPS_TTL_SECONDS !== undefined && env.SCHEMA_DROPS_TTL_SECONDS !== '' ? n : DEFAULT_DROPS_TTL_SECONDS) * 1000;
}

/** The isolate's current drop list, re-read from KV when older than the TTL. */
export async function currentDrops(state: DropState, env: DropsEnv | undefined, now = Date.now()): Promise<DropState> {
  const kv = kvOf(env);
  if (!kv) return state;
  if (now - state.fetchedAt < dropsTtlMs(env)) return state;
  const s = state;
  s.inflight ??= (async () => {
    try {
      const parsed = parseDrops(await kv.get(DROPS_KEY, 'text'));
      s.list = withPending(parsed.list, s.pending, now);
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
export async function withSchemaDrops(loaded: LoadedCatalogue, state: DropState, env: DropsEnv | undefined): Promise<LoadedCatalogue> {
  await currentDrops(state, env);
  return applyDrops(loaded, state.list, state);
}

/** The stored list plus the pending automatic drops it does not show yet; a pending drop it shows is settled. */
function withPending(stored: DropList, pending: DropState['pending'], now: number): DropList {
  if (!pending.size) return stored;
  const tools = { ...stored.tools };
  for (const [name, p] of pending) {
    if (tools[name] || now > p.until) pending.delete(name);
    else tools[name] = p.entry;
  }
  return { tools };
}

/** Applies an automatic drop in this isolate at once, before its next read of the stored list. */
export function addLocalDrop(state: DropState, name: string, entry: DropEntry, now = Date.now()): void {
  state.pending.set(name, { entry, until: now + PENDING_MS });
  state.list = { tools: { ...state.list.tools, [name]: entry } };
}

/**
 * Adds `name` to the stored list (read, add, write: KV has no atomic update, so one writer, the counter Durable
 * Object, does this for the fleet). Returns false when the tool was on the list already.
 */
export async function addToStoredDrops(kv: KVNamespace, name: string, entry: DropEntry): Promise<boolean> {
  const { list, error } = parseDrops(await kv.get(DROPS_KEY, 'text'));
  // A malformed value is the operator's to fix; writing over it would lose their list.
  if (error) throw new Error(error);
  if (list.tools[name]) return false;
  list.tools[name] = entry;
  await kv.put(DROPS_KEY, JSON.stringify(list, null, 2));
  return true;
}
