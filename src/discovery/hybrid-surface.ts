// The hybrid list's tools/call (src/discovery/hybrid.ts): the meta-tools answer as in discovery mode, and any tool
// of the slice, listed or not, runs by name through callTool. A listed tool's result is shaped to and checked against
// the outputSchema the hybrid list advertised; an unlisted one against describe_tool's, as from call_tool.
import { callTool } from '../tools/call.ts';
import { typedHandle, UnknownToolError, usingTool } from '../tools/handle.ts';
import { listingNotes } from '../tools/listing-notes.ts';
import type { RequestScope } from '../tools/scope.ts';
import { keyScopeNote, refusedAnswer } from '../tools/scope-refusal.ts';
import type { ToolSurface } from '../tools/surface.ts';
import { hybridListing, META_TOOLS } from './hybrid.ts';
import { describedHandle, discoverySurface } from './meta-tools.ts';

/** The hybrid surface: the meta-tools answer as in discovery mode; a typed tool (listed or not) runs by name. */
export function hybridSurface(scope: RequestScope): ToolSurface {
  const listing = hybridListing(scope.catalogue, scope.slice, scope.profile, listingNotes(scope));
  const discovery = discoverySurface(scope);
  return {
    tools: listing.tools,
    instructions: listing.instructions + keyScopeNote(scope),
    call(name, args) {
      if (META_TOOLS.has(name)) return discovery.call(name, args);
      const answer = usingTool(scope, name, function callTyped(tool) {
        const listed = listing.advertised.has(tool.name);
        return callTool(scope, listed ? typedHandle(scope, tool, listing.advertised.get(tool.name), true) : describedHandle(scope, tool), args);
      });
      return answer ?? refusedAnswer(scope, name, 'discover') ?? Promise.reject(new UnknownToolError(name));
    },
  };
}
