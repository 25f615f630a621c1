// Hybrid mode: what a client with a tool budget gets for a slice over it (docs/slices-profiles-discovery.md,
// "Hybrid lists"). Instead of a list the client would silently cut, it lists the discovery trio (search_tools,
// describe_tool, call_tool, over the whole slice) plus as many of the slice's most important typed tools as fit
// (hybrid-order.ts). Every tool of the slice stays reachable: through call_tool, or by name in tools/call
// (hybrid-surface.ts). Free of Worker-only imports: the Node token report measures these listings.
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import { slicePart, type Slice } from '../catalogue/slices.ts';
import { roughBytes } from '../lib/lru.ts';
import type { JsonSchema } from '../catalogue/types.ts';
import type { Profile } from '../profiles/profiles.ts';
import { someWireTools, type ListingNotes, type WireTool } from '../profiles/view.ts';
import { importanceOrder } from './hybrid-order.ts';
import { discoveryTools } from './listing.ts';

export interface HybridListing {
  /** The meta-tools first, then the typed tools in catalogue order. */
  tools: WireTool[];
  /** Names of the typed tools listed, with the outputSchema each advertised. */
  advertised: Map<string, JsonSchema | undefined>;
  instructions: string;
}

export const META_TOOLS = new Set(['search_tools', 'describe_tool', 'call_tool']);

/** Whether a slice is over the profile's tool budget, so that bare tools mode serves it as a hybrid list. */
export function overToolBudget(slice: Slice, profile: Profile): boolean {
  return profile.maxTools !== undefined && slice.tools.length > profile.maxTools;
}

/** The hybrid listing of a slice for a profile with a tool budget; computed once per (slice, profile), a part of the slice. */
export function hybridListing(loaded: LoadedCatalogue, slice: Slice, profile: Profile, notes?: ListingNotes): HybridListing {
  // Its typed entries are its own (not the whole slice's view): their outputSchemas are charged as they are built.
  return slicePart(slice, notes ? `hybrid ${profile.id} ${notes.key}` : `hybrid ${profile.id}`, () => buildHybrid(loaded, slice, profile, notes), (h) => 256 + 2 * h.instructions.length + roughBytes(h.tools) + 64 * h.advertised.size);
}

function buildHybrid(loaded: LoadedCatalogue, slice: Slice, profile: Profile, notes: ListingNotes | undefined): HybridListing {
  const meta = discoveryTools(profile, slice.reach);
  const budget = Math.max(0, (profile.maxTools ?? slice.tools.length + meta.length) - meta.length);
  const keep = new Set(importanceOrder(loaded, slice, META_TOOLS).slice(0, budget).map((t) => t.name));
  const typed = someWireTools(loaded, slice, profile, slice.tools.filter((i) => keep.has(loaded.name(i))), notes);
  const advertised = new Map(typed.map((t) => [t.name, t.outputSchema]));
  const { source } = loaded.catalogue;
  const instructions =
    `Tools for ${source.title} (API version ${source.version}): ${slice.tools.length} operations of its REST API. ` +
    `${profile.label} uses at most ${profile.maxTools} tools, so this list holds the ${typed.length} most used operations as typed tools (reads first) ` +
    `plus search_tools, describe_tool and call_tool, which reach all ${slice.tools.length}: find an operation with search_tools, read its arguments ` +
    `with describe_tool, then run it with call_tool. Add mode=tools to the URL to list every operation instead.`;
  return { tools: [...meta, ...typed], advertised, instructions };
}
