// A profile view: the tools/list entries of one slice as one client profile should see them
// (compacted, dialect-adjusted, names within budget), computed once per isolate per (slice, profile).
import type { LoadedCatalogue, ToolDefinition } from '../catalogue/loaded-catalogue.ts';
import type { Slice } from '../catalogue/slices.ts';
import type { CatalogueTool, JsonSchema } from '../catalogue/types.ts';
import { compactAnnotations, compactDescription, compactInputSchema, compactOutputSchema, DEFAULT_COMPACT, type CompactOptions } from './compact.ts';
import { PROFILES, type Profile } from './profiles.ts';

export interface WireTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations: Record<string, unknown>;
}

interface ProfileView {
  profile: Profile;
  tools: WireTool[];
  /** Listed name (and the catalogue's own names and aliases) -> tool, restricted to the slice. */
  byName: Map<string, CatalogueTool>;
  /** Canonical tool name -> the outputSchema this view advertised (absent when none). */
  advertised: Map<string, JsonSchema | undefined>;
  /** Warning line for the server instructions when the slice exceeds the profile's tool budget. */
  warning?: string;
}

/** Largest outputSchema (JSON chars) a compact listing keeps at depth 2, then 1; above that only the root type. */
const OUTPUT_SCHEMA_BUDGET = 600;

const views = new WeakMap<Slice, Map<string, ProfileView>>();

export function viewOf(loaded: LoadedCatalogue, slice: Slice, profile: Profile = PROFILES.default): ProfileView {
  let perSlice = views.get(slice);
  if (!perSlice) views.set(slice, (perSlice = new Map()));
  let view = perSlice.get(profile.id);
  if (!view) perSlice.set(profile.id, (view = buildView(loaded, slice, profile)));
  return view;
}

export function buildView(loaded: LoadedCatalogue, slice: Slice, profile: Profile, options: CompactOptions = DEFAULT_COMPACT): ProfileView {
  const tools: WireTool[] = [];
  const byName = new Map<string, CatalogueTool>();
  const advertised = new Map<string, JsonSchema | undefined>();
  const taken = new Set<string>();
  for (const listed of slice.listed) {
    const tool = loaded.byName.get(listed.name)!;
    const wire = wireTool(tool, listed, profile, options);
    wire.name = fitName(tool.name, profile.maxName, taken);
    taken.add(wire.name);
    tools.push(wire);
    byName.set(wire.name, tool);
    advertised.set(tool.name, wire.outputSchema);
  }
  // The catalogue's own names and aliases keep working in tools/call.
  for (const [name, tool] of loaded.byName) if (slice.names.has(tool.name) && !byName.has(name)) byName.set(name, tool);
  const view: ProfileView = { profile, tools, byName, advertised };
  if (profile.maxTools !== undefined && tools.length > profile.maxTools) {
    view.warning = `Warning: this endpoint lists ${tools.length} tools but ${profile.label} uses at most ${profile.maxTools}. Narrow it with /mcp/x/<toolset>+<toolset> or ?tools=a,b, or use /mcp/discover (search_tools, describe_tool, call_tool).`;
  }
  return view;
}

function wireTool(tool: CatalogueTool, listed: ToolDefinition, profile: Profile, options: CompactOptions = DEFAULT_COMPACT): WireTool {
  let inputSchema = compactInputSchema(listed.inputSchema, options);
  inputSchema = applyDialect(inputSchema, profile);
  const wire: WireTool = {
    name: tool.name,
    title: tool.title,
    description: compactDescription(tool.description, tool.title, options.descriptionMax),
    inputSchema,
    annotations: compactAnnotations(tool.annotations),
  };
  if (listed.outputSchema && profile.carry === 'both') {
    wire.outputSchema = applyDialect(fitOutput(listed.outputSchema, options.outputDepth), profile, true);
  }
  return wire;
}

function fitOutput(schema: JsonSchema, maxDepth: number): JsonSchema {
  // Each shallower cut is taken from the previous (already small) one: same result, less work.
  let out = compactOutputSchema(schema, maxDepth);
  for (let d = maxDepth; d >= 1; d--) {
    if (JSON.stringify(out).length <= OUTPUT_SCHEMA_BUDGET) return out;
    out = compactOutputSchema(out, d - 1);
  }
  return out;
}

/** Schemas for one profile's dialect; full (uncompacted) schemas from describe_tool go through here too. */
export function applyDialect(schema: JsonSchema, profile: Profile, output = false): JsonSchema {
  let s = ensureItems(schema) as JsonSchema;
  if (profile.dialect === 'gemini') s = stripKeys(inlineRefs(s), output ? new Set(['$defs', 'definitions']) : new Set(['$defs', 'definitions', 'additionalProperties'])) as JsonSchema;
  if (profile.dialect === 'vscode' && !output) s = draft07(s) as JsonSchema;
  return s;
}

// Every array needs `items` (OpenAI); `items: {}` accepts what the array held before.
function ensureItems(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(ensureItems);
  if (!node || typeof node !== 'object') return node;
  const src = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(src)) out[k] = k === 'enum' || k === 'const' || k === 'default' || k === 'required' ? v : k === 'properties' ? mapValues(v, ensureItems) : ensureItems(v);
  const isArray = src.type === 'array' || (Array.isArray(src.type) && src.type.includes('array'));
  if (isArray && out.items === undefined && out.prefixItems === undefined) out.items = {};
  return out;
}

function mapValues(v: unknown, f: (x: unknown) => unknown): unknown {
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, f(x)]));
}

/** Replaces local refs (#/$defs/X, #/definitions/X) with their targets; a recursive ref becomes {} (any value). */
function inlineRefs(root: JsonSchema): JsonSchema {
  const defs = { ...((root.definitions ?? {}) as Record<string, unknown>), ...((root.$defs ?? {}) as Record<string, unknown>) };
  const walk = (node: unknown, seen: Set<string>): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, seen));
    if (!node || typeof node !== 'object') return node;
    const src = node as Record<string, unknown>;
    if (typeof src.$ref === 'string') {
      const m = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(src.$ref);
      const key = m ? decodeURIComponent(m[1]!.replace(/~1/g, '/').replace(/~0/g, '~')) : undefined;
      if (!key || !(key in defs) || seen.has(key)) return {};
      const { $ref: _ref, ...siblings } = src;
      const target = walk(defs[key], new Set([...seen, key])) as Record<string, unknown>;
      return Object.keys(siblings).length ? { allOf: [target, walk(siblings, seen)] } : target;
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(src)) out[k] = k === 'enum' || k === 'const' || k === 'default' ? v : walk(v, seen);
    return out;
  };
  return walk(root, new Set()) as JsonSchema;
}

function stripKeys(node: unknown, keys: Set<string>): unknown {
  if (Array.isArray(node)) return node.map((n) => stripKeys(n, keys));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
    if (keys.has(k)) continue;
    out[k] = k === 'enum' || k === 'const' || k === 'default' || k === 'required' ? v : k === 'properties' ? mapValues(v, (x) => stripKeys(x, keys)) : stripKeys(v, keys);
  }
  return out;
}

const NOT_DRAFT07 = new Set(['prefixItems', 'unevaluatedProperties', 'unevaluatedItems', 'dependentRequired', 'dependentSchemas', '$anchor', '$dynamicRef', '$dynamicAnchor', 'minContains', 'maxContains', '$vocabulary']);

/** draft-07-clean: $defs -> definitions (refs rewritten), 2020-12-only keywords dropped, $schema removed. */
function draft07(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(draft07);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
    if (NOT_DRAFT07.has(k) || k === '$schema') continue;
    if (k === '$ref' && typeof v === 'string') out[k] = v.replace(/^#\/\$defs\//, '#/definitions/');
    else if (k === '$defs') out.definitions = mapValues(v, draft07);
    else if (k === 'properties' || k === 'definitions') out[k] = mapValues(v, draft07);
    else if (k === 'enum' || k === 'const' || k === 'default' || k === 'required') out[k] = v;
    else if ((k === 'exclusiveMinimum' || k === 'exclusiveMaximum') && typeof v === 'boolean') continue;
    else out[k] = draft07(v);
  }
  return out;
}

/** The name itself when it fits; otherwise a prefix plus a stable hash (FNV-1a) of the full name. */
export function fitName(name: string, max: number, taken: Set<string>): string {
  if (name.length <= max && !taken.has(name)) return name;
  for (let i = 0; ; i++) {
    const h = fnv1a(i ? `${name}#${i}` : name).toString(16).padStart(8, '0').slice(0, 6);
    const candidate = `${name.slice(0, max - 7).replace(/_+$/, '')}_${h}`;
    if (!taken.has(candidate)) return candidate;
  }
}

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
