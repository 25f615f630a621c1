// A slice is the subset of the catalogue one request may see: URL toolsets and ?tools/?readonly,
// intersected with the key's own scope. Each distinct slice is computed once per isolate.
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
}

export class UnknownNamesError extends Error {
  readonly kind: 'toolset' | 'tool';
  readonly unknown: string[];
  readonly valid: string[];
  constructor(kind: 'toolset' | 'tool', unknown: string[], valid: string[]) {
    super(`Unknown ${kind}${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);
    this.kind = kind;
    this.unknown = unknown;
    this.valid = valid;
  }
}

const ALL = 'all';

/** Checks names against the catalogue; throws UnknownNamesError listing the valid names. */
export function validateSliceSpec(loaded: LoadedCatalogue, spec: SliceSpec): void {
  if (spec.toolsets) {
    const valid = Object.keys(loaded.catalogue.toolsets);
    const unknown = spec.toolsets.filter((t) => t !== ALL && !(t in loaded.catalogue.toolsets));
    if (unknown.length) throw new UnknownNamesError('toolset', unknown, [ALL, ...valid]);
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

const cache = new WeakMap<LoadedCatalogue, Map<string, Slice>>();

export function sliceOf(loaded: LoadedCatalogue, spec: SliceSpec): Slice {
  const toolsets = norm(spec.toolsets);
  const tools = spec.tools?.map((t) => {
    const i = loaded.indexOf(t);
    return i === undefined ? t : loaded.name(i);
  });
  const key = JSON.stringify([toolsets ? [...toolsets].sort() : null, tools ? [...new Set(tools)].sort() : null, Boolean(spec.readOnly)]);
  let perCatalogue = cache.get(loaded);
  if (!perCatalogue) cache.set(loaded, (perCatalogue = new Map()));
  const hit = perCatalogue.get(key);
  if (hit) return hit;
  // Index data only (names, toolsets, flags): a slice never materialises a tool.
  const wantedSets = toolsets ? new Set(toolsets) : undefined;
  const wantedTools = tools ? new Set(tools) : undefined;
  const member = new Uint8Array(loaded.count);
  const indices: number[] = [];
  for (let i = 0; i < loaded.count; i++) {
    if (wantedSets && !loaded.toolsetsOf(i).some((t) => wantedSets.has(t))) continue;
    if (wantedTools && !wantedTools.has(loaded.name(i))) continue;
    if (spec.readOnly && !loaded.readOnly(i)) continue;
    member[i] = 1;
    indices.push(i);
  }
  const slice: Slice = { key, tools: indices, has: (i) => member[i] === 1, readOnly: Boolean(spec.readOnly), ...(toolsets ? { toolsets: [...new Set(toolsets)].sort() } : {}) };
  perCatalogue.set(key, slice);
  return slice;
}
