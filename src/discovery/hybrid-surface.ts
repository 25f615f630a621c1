// The hybrid list's tools/call (src/discovery/hybrid.ts): the meta-tools answer as in discovery mode, and any tool
// of the slice, listed or not, runs by name through callTool.
import { callTool } from '../tools/call.ts';
import type { RequestScope } from '../tools/scope.ts';
import type { ToolSurface } from '../tools/surface.ts';
import { hybridListing, META_TOOLS } from './hybrid.ts';
import { discoverySurface } from './meta-tools.ts';
import { keyScopeNote } from '../tools/scope-refusal.ts';

/** The hybrid surface: the meta-tools answer as in discovery mode; a typed tool (listed or not) runs by name. */
export function hybridSurface(scope: RequestScope): ToolSurface {
  const listing = hybridListing(scope.catalogue, scope.slice, scope.profile);
  const discovery = discoverySurface(scope);
  return {
    tools: listing.tools,
    instructions: listing.instructions + keyScopeNote(scope),
    async call(name, args) {
      if (META_TOOLS.has(name)) return discovery.call(name, args);
      const { tool, result } = await callTool(scope, name, args);
      // A listed tool's result is shaped against the outputSchema it advertised; an unlisted one passes unchanged, as from call_tool.
      return tool && listing.advertised.has(tool.name) ? { result, shape: { outputSchema: listing.advertised.get(tool.name) } } : { result };
    },
  };
}
