// A profile view: the tools/list entries of one slice as one client profile should see them (compacted,
// dialect-adjusted), cached per (slice, profile) as a part of the slice (charged to its bounded cache entry). Every profile lists a tool under its one catalogue
// name: the generator keeps names within every client's budget (docs/naming.md). Each part is computed on first use:
// a tools/call needs only its own tool's advertised outputSchema, never the whole list.
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import { chargeSlice, slicePart, type Slice } from '../catalogue/slices.ts';
import type { CatalogueTool, JsonSchema } from '../catalogue/types.ts';
import { roughBytes } from '../lib/lru.ts';
import { compactDescription, compactInputSchema, DEFAULT_COMPACT, wireAnnotations, type CompactOptions } from './listing-compaction.ts';
import { applyDialect } from './dialects.ts';
import { advertisedOutputSchema } from './listed-output.ts';
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
  /** The tool `name` denotes here: a catalogue name or alias of a tool in the slice. */
  resolve(name: string): number | undefined;
  /** The outputSchema this view advertises for tool i (undefined when none). */
  advertised(i: number): JsonSchema | undefined;
  /** Warning line for the server instructions when the slice exceeds the profile's tool budget. */
  warning?: string;
}


/**
 * A line some tools' descriptions get for one kind of caller (src/tools/listing-notes.ts: a tool this caller lacks
 * the upstream credential for). `key` names the variant: each is a view of its own in the slice's cache.
 */
export interface ListingNotes {
  readonly key: string;
  note(tool: CatalogueTool): string | undefined;
}

export function viewOf(loaded: LoadedCatalogue, slice: Slice, profile: Profile = PROFILES.default, notes?: ListingNotes): ProfileView {
  const key = notes ? `view ${profile.id} ${notes.key}` : `view ${profile.id}`;
  return slicePart(slice, key, () => buildView(loaded, slice, profile, DEFAULT_COMPACT, notes), (v) => 256 + 2 * (v.warning?.length ?? 0) + key.length);
}

export function buildView(loaded: LoadedCatalogue, slice: Slice, profile: Profile, options: CompactOptions = DEFAULT_COMPACT, notes?: ListingNotes): ProfileView {
  return new View(loaded, slice, profile, options, notes);
}

class View implements ProfileView {
  readonly warning?: string;
  private wire?: WireTool[];
  private readonly outputs = new Map<number, JsonSchema | undefined>();
  readonly profile: Profile;
  private readonly loaded: LoadedCatalogue;
  private readonly slice: Slice;
  private readonly options: CompactOptions;
  private readonly notes: ListingNotes | undefined;

  constructor(loaded: LoadedCatalogue, slice: Slice, profile: Profile, options: CompactOptions, notes?: ListingNotes) {
    this.loaded = loaded;
    this.slice = slice;
    this.profile = profile;
    this.options = options;
    this.notes = notes;
    const n = slice.tools.length;
    if (profile.maxTools !== undefined && n > profile.maxTools) {
      this.warning = `Warning: this endpoint lists ${n} tools but ${profile.label} uses at most ${profile.maxTools}. Narrow it with /mcp/x/<toolset>+<toolset> or ?tools=a,b, or drop mode=tools from the URL to get a hybrid list with search_tools, describe_tool and call_tool.`;
    }
  }

  get tools(): WireTool[] {
    if (!this.wire) {
      this.wire = this.slice.tools.map((i) => wireTool(this.loaded.tool(i), this.profile, this.options, this.advertised(i), this.notes));
      // The advertised outputSchemas were charged as they were made.
      const charged = new Set<unknown>(this.outputs.values());
      chargeSlice(this.slice, roughBytes(this.wire, (o) => !charged.has(o)));
    }
    return this.wire;
  }

  resolve(name: string): number | undefined {
    const i = this.loaded.indexOf(name);
    return i !== undefined && this.slice.has(i) ? i : undefined;
  }

  advertised(i: number): JsonSchema | undefined {
    if (this.outputs.has(i)) return this.outputs.get(i);
    const tool = this.loaded.tool(i);
    const schema = tool.outputSchema && this.profile.carry === 'both' ? advertisedOutputSchema(tool.outputSchema, tool.outputWrapped === true, this.profile, this.options) : undefined;
    this.outputs.set(i, schema);
    chargeSlice(this.slice, 32 + (schema ? roughBytes(schema) : 0));
    return schema;
  }
}

/**
 * Wire entries of a few of the slice's tools (a hybrid list's), built without the whole slice's view: a hybrid list
 * of `all` shows 40-128 tools, and keeping the view of all 1,223 for it would cost the slice's cache ~7 MB per profile.
 */
export function someWireTools(loaded: LoadedCatalogue, slice: Slice, profile: Profile, indices: readonly number[], notes?: ListingNotes): WireTool[] {
  const view = new View(loaded, slice, profile, DEFAULT_COMPACT);
  return indices.map((i) => wireTool(loaded.tool(i), profile, DEFAULT_COMPACT, view.advertised(i), notes));
}

function wireTool(tool: CatalogueTool, profile: Profile, options: CompactOptions, outputSchema: JsonSchema | undefined, notes: ListingNotes | undefined): WireTool {
  const note = notes?.note(tool);
  const description = compactDescription(tool.description, tool.title, options.descriptionMax);
  const wire: WireTool = {
    name: tool.name,
    title: tool.title,
    description: note ? `${description}\n\n${note}` : description,
    inputSchema: applyDialect(compactInputSchema(tool.inputSchema, options), profile),
    annotations: wireAnnotations(tool.annotations),
  };
  if (outputSchema) wire.outputSchema = outputSchema;
  return wire;
}
