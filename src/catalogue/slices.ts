// A slice is the subset of the catalogue one request may see: URL toolsets and ?tools/?readonly,
// intersected with the key's own scope. Slices, and everything derived from one (slicePart), are cached per isolate
// in two LRU tiers bounded by count and bytes (docs/architecture.md, "Per-isolate caches").
import { Lru, type LruStats } from '../lib/lru.ts';
import { cutQuote } from '../lib/cut-quote.ts';
import { didYouMean } from '../lib/nearest.ts';
import type { LoadedCatalogue } from './loaded-catalogue.ts';

export interface SliceSpec {
  /** Toolset names; undefined means every toolset. */
  toolsets?: string[];
  /** Tool names (or aliases); undefined means every tool of the toolsets. */
  tools?: string[];
  readOnly?: boolean;
}

export interface Slice {
  key: string;
  /** The slice's tools (catalogue indices), in catalogue order. */
  tools: readonly number[];
  /** Whether tool i is in the slice. */
  has(i: number): boolean;
  /** The toolsets the slice was asked for (sorted); undefined when it is not limited to toolsets. */
  toolsets?: string[];
  /** Only read-only tools (the URL's ?readonly or the key's flag). */
  readOnly: boolean;
  /**
   * What a meta-tool over the slice (discovery's call_tool, code mode's execute) can reach: a tool that is not
   * read-only, and a destructive one. Its annotations say so.
   */
  reach: SliceReach;
}

export interface SliceReach {
  writes: boolean;
  destroys: boolean;
}

/** How many unknown names a refusal lists (and suggests names for). */
const SHOWN_UNKNOWN = 10;

export class UnknownNamesError extends Error {
  readonly kind: 'toolset' | 'tool';
  readonly unknown: string[];
  readonly valid: string[];
  constructor(kind: 'toolset' | 'tool', unknown: string[], valid: string[]) {
    // Named and guessed at for the first few only: a URL of 2,000 near-miss names once cost 8 s of edit distances
    // (before authentication), and came back as a 260 KB error.
    const distinct = [...new Set(unknown)];
    const named = distinct.slice(0, SHOWN_UNKNOWN);
    const more = distinct.length > named.length ? ` and ${distinct.length - named.length} more` : '';
    super(`Unknown ${kind}${distinct.length > 1 ? 's' : ''}: ${named.map((u) => cutQuote(u, 60)).join(', ')}${more}.${named.map((u) => didYouMean(u, valid)).join('')}`);
    this.kind = kind;
    this.unknown = named.map((u) => cutQuote(u, 60));
    this.valid = valid;
  }
}

const ALL = 'all';

/** Checks names against the catalogue; throws UnknownNamesError listing the valid names. */
export function validateSliceSpec(loaded: LoadedCatalogue, spec: SliceSpec): void {
  if (spec.toolsets) {
    const unknown = spec.toolsets.filter((t) => t !== ALL && !Object.hasOwn(loaded.catalogue.toolsets, t));
    if (unknown.length) throw new UnknownNamesError('toolset', unknown, [ALL, ...Object.keys(loaded.catalogue.toolsets)]);
  }
  if (spec.tools) {
    const unknown = spec.tools.filter((t) => loaded.indexOf(t) === undefined);
    if (unknown.length) throw new UnknownNamesError('tool', unknown, [...loaded.names()]);
  }
}

export function intersect(a: SliceSpec, b: SliceSpec): SliceSpec {
  const both = (x?: string[], y?: string[]) => (x && y ? x.filter((v) => y.includes(v)) : (x ?? y));
  const out: SliceSpec = { readOnly: Boolean(a.readOnly || b.readOnly) };
  const toolsets = both(norm(a.toolsets), norm(b.toolsets));
  const tools = both(a.tools, b.tools);
  if (toolsets) out.toolsets = toolsets;
  if (tools) out.tools = tools;
  return out;
}

// "all" in a toolset list means no toolset restriction.
function norm(toolsets?: string[]): string[] | undefined {
  return toolsets && !toolsets.includes(ALL) ? toolsets : undefined;
}

const MIB = 1024 * 1024;
/**
 * Toolset-only slices (bare /mcp, one toolset, `all`, which /mcp/discover and /mcp/code serve; ?readonly either way):
 * what nearly every client asks for. A tier of their own, so no flood of chosen slices can push them out.
 */
const COMMON = new Lru<string, Slice>('slices (common)', 128, 32 * MIB);
/** Every other slice: `?tools=` lists and toolset mixes, which a client can vary without end. */
const CHOSEN = new Lru<string, Slice>('slices (chosen)', 256, 8 * MIB);

/** Where a slice is cached, and what is derived from it. */
interface Holder {
  tier?: Lru<string, Slice>;
  key: string;
  parts: Map<string, unknown>;
}
const holders = new WeakMap<Slice, Holder>();
const catalogueIds = new WeakMap<LoadedCatalogue, number>();
let nextCatalogueId = 0;

/**
 * The slice `spec` selects. `common`: the caller knows this is a common slice although it names several toolsets
 * (bare /mcp's default toolsets, a key's own scope).
 */
export function sliceOf(loaded: LoadedCatalogue, spec: SliceSpec, common = false): Slice {
  const toolsets = norm(spec.toolsets);
  const tools = spec.tools?.map((t) => {
    const i = loaded.indexOf(t);
    return i === undefined ? t : loaded.name(i);
  });
  let id = catalogueIds.get(loaded);
  if (id === undefined) catalogueIds.set(loaded, (id = nextCatalogueId++));
  const key = JSON.stringify([toolsets ? [...toolsets].sort() : null, tools ? [...new Set(tools)].sort() : null, Boolean(spec.readOnly)]);
  const tier = common || (!tools && (toolsets?.length ?? 0) <= 1) ? COMMON : CHOSEN;
  const cacheKey = `${id} ${key}`;
  const hit = tier.get(cacheKey) ?? (tier === CHOSEN ? COMMON.get(cacheKey) : promote(cacheKey));
  if (hit) return hit;
  // Index data only (names, toolsets, flags): a slice never materialises a tool.
  const wantedSets = toolsets ? new Set(toolsets) : undefined;
  const wantedTools = tools ? new Set(tools) : undefined;
  const member = new Uint8Array(loaded.count);
  const indices: number[] = [];
  const reach: SliceReach = { writes: false, destroys: false };
  for (let i = 0; i < loaded.count; i++) {
    if (wantedSets && !loaded.toolsetsOf(i).some((t) => wantedSets.has(t))) continue;
    if (wantedTools && !wantedTools.has(loaded.name(i))) continue;
    if (spec.readOnly && !loaded.readOnly(i)) continue;
    member[i] = 1;
    indices.push(i);
    if (!loaded.readOnly(i)) {
      reach.writes = true;
      if (loaded.destructive(i)) reach.destroys = true;
    }
  }
  const slice: Slice = { key, tools: indices, has: (i) => member[i] === 1, readOnly: Boolean(spec.readOnly), reach, ...(toolsets ? { toolsets: [...new Set(toolsets)].sort() } : {}) };
  holders.set(slice, { tier, key: cacheKey, parts: new Map() });
  tier.set(cacheKey, slice, 256 + member.byteLength + 8 * indices.length + 4 * cacheKey.length);
  return slice;
}

/** A slice first asked for as a chosen one (bare /mcp's default toolsets, named in the URL) moves to the common tier. */
function promote(cacheKey: string): Slice | undefined {
  const slice = CHOSEN.peek(cacheKey);
  const bytes = CHOSEN.bytesOf(cacheKey);
  const holder = slice && holders.get(slice);
  if (!holder || bytes === undefined) return undefined;
  CHOSEN.delete(cacheKey);
  COMMON.set(cacheKey, slice!, bytes);
  holder.tier = COMMON;
  return slice;
}

/**
 * Data derived from one slice (a profile view, a hybrid listing, a search index), built once and kept as long as the
 * slice stays cached; `size` estimates its bytes, which count against the slice's cache entry.
 */
export function slicePart<T>(slice: Slice, part: string, build: () => T, size: (value: T) => number): T {
  let holder = holders.get(slice);
  if (!holder) holders.set(slice, (holder = { key: slice.key, parts: new Map() }));
  if (holder.parts.has(part)) return holder.parts.get(part) as T;
  const value = build();
  holder.parts.set(part, value);
  chargeSlice(slice, size(value));
  return value;
}

/** Counts `bytes` more against the slice's cache entry (a part that grew: a listing built, ready bytes encoded). */
export function chargeSlice(slice: Slice, bytes: number): void {
  const holder = holders.get(slice);
  // An evicted slice still serving its request is charged to nobody: it is garbage once the request ends.
  if (holder?.tier && holder.tier.peek(holder.key) === slice) holder.tier.grow(holder.key, bytes);
}

/** Both tiers' counts and bytes (tests, and the bench's memory section, read them). */
export function sliceCacheStats(): LruStats[] {
  return [COMMON.stats(), CHOSEN.stats()];
}
