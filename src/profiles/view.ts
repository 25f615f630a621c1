// A profile view: the tools/list entries of one slice as one client profile should see them (compacted,
// dialect-adjusted), computed once per isolate per (slice, profile). Every profile lists a tool under its one
// catalogue name: the generator keeps names within every client's budget (docs/naming.md).
import type { LoadedCatalogue, ToolDefinition } from '../catalogue/loaded-catalogue.ts';
import type { Slice } from '../catalogue/slices.ts';
import type { CatalogueTool, JsonSchema } from '../catalogue/types.ts';
import { compactAnnotations, compactDescription, compactInputSchema, compactOutputSchema, DEFAULT_COMPACT, type CompactOptions } from './compact.ts';
import { applyDialect } from './dialects.ts';
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
  tools: WireTool[];
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
  const advertised = new Map<string, JsonSchema | undefined>();
  for (const listed of slice.listed) {
    const wire = wireTool(loaded.byName.get(listed.name)!, listed, profile, options);
    tools.push(wire);
    advertised.set(wire.name, wire.outputSchema);
  }
  const view: ProfileView = { profile, tools, advertised };
  if (profile.maxTools !== undefined && tools.length > profile.maxTools) {
    view.warning = `Warning: this endpoint lists ${tools.length} tools but ${profile.label} uses at most ${profile.maxTools}. Narrow it with /mcp/x/<toolset>+<toolset> or ?tools=a,b, or drop mode=tools from the URL to get a hybrid list with search_tools, describe_tool and call_tool.`;
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

