// A profile view: the tools/list entries of one slice as one client profile should see them (compacted,
// dialect-adjusted, names within budget), cached per isolate per (slice, profile). Each part is computed on first
// use: a tools/call needs only the listed names and its own tool's advertised outputSchema, never the whole list.
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
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

export interface ProfileView {
  profile: Profile;
  /** The tools/list entries, in slice order (built on first use: it materialises every tool of the slice). */
  readonly tools: WireTool[];
  /** The tool `name` denotes here: a listed name, or a catalogue name or alias of a tool in the slice. */
  resolve(name: string): number | undefined;
  /** The outputSchema this view advertises for tool i (undefined when none). */
  advertised(i: number): JsonSchema | undefined;
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
  return new View(loaded, slice, profile, options);
}

class View implements ProfileView {
  readonly warning?: string;
  private listedNames?: string[];
  /** Listed name -> tool, for the tools whose listed name is not their catalogue name. */
  private renamed?: Map<string, number>;
  private wire?: WireTool[];
  private readonly outputs = new Map<number, JsonSchema | undefined>();
  readonly profile: Profile;
  private readonly loaded: LoadedCatalogue;
  private readonly slice: Slice;
  private readonly options: CompactOptions;

  constructor(loaded: LoadedCatalogue, slice: Slice, profile: Profile, options: CompactOptions) {
    this.loaded = loaded;
    this.slice = slice;
    this.profile = profile;
    this.options = options;
    const n = slice.tools.length;
    if (profile.maxTools !== undefined && n > profile.maxTools) {
      this.warning = `Warning: this endpoint lists ${n} tools but ${profile.label} uses at most ${profile.maxTools}. Narrow it with /mcp/x/<toolset>+<toolset> or ?tools=a,b, or use /mcp/discover (search_tools, describe_tool, call_tool).`;
    }
  }

  get tools(): WireTool[] {
    if (!this.wire) {
      const names = this.names();
      this.wire = this.slice.tools.map((i, k) => {
        const wire = wireTool(this.loaded.tool(i), this.profile, this.options, this.advertised(i));
        wire.name = names[k]!;
        return wire;
      });
    }
    return this.wire;
  }

  resolve(name: string): number | undefined {
    this.names();
    const listed = this.renamed!.get(name);
    if (listed !== undefined) return listed;
    // The catalogue's own names and aliases keep working in tools/call.
    const i = this.loaded.indexOf(name);
    return i !== undefined && this.slice.has(i) ? i : undefined;
  }

  advertised(i: number): JsonSchema | undefined {
    if (this.outputs.has(i)) return this.outputs.get(i);
    const tool = this.loaded.tool(i);
    const schema = tool.outputSchema && this.profile.carry === 'both' ? applyDialect(fitOutput(tool.outputSchema, this.options.outputDepth), this.profile, true) : undefined;
    this.outputs.set(i, schema);
    return schema;
  }

  /** Listed names in slice order: names only, so resolving a call never materialises the other tools. */
  private names(): string[] {
    if (!this.listedNames) {
      const taken = new Set<string>();
      const renamed = new Map<string, number>();
      this.listedNames = this.slice.tools.map((i) => {
        const own = this.loaded.name(i);
        const listed = fitName(own, this.profile.maxName, taken);
        taken.add(listed);
        if (listed !== own) renamed.set(listed, i);
        return listed;
      });
      this.renamed = renamed;
    }
    return this.listedNames;
  }
}

function wireTool(tool: CatalogueTool, profile: Profile, options: CompactOptions, outputSchema: JsonSchema | undefined): WireTool {
  const wire: WireTool = {
    name: tool.name,
    title: tool.title,
    description: compactDescription(tool.description, tool.title, options.descriptionMax),
    inputSchema: applyDialect(compactInputSchema(tool.inputSchema, options), profile),
    annotations: compactAnnotations(tool.annotations),
  };
  if (outputSchema) wire.outputSchema = outputSchema;
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
