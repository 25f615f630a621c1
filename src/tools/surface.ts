// What one endpoint mode serves over MCP: its tools/list entries, its server instructions and its tools/call.
// The MCP server (src/protocol/mcp-server.ts) wires a surface into the SDK; each mode supplies one. A surface resolves
// each call's tool into a handle (src/tools/handle.ts) with what it listed; below it nothing depends on the mode.
import { PROFILES } from '../profiles/profiles.ts';
import { viewOf, type WireTool } from '../profiles/view.ts';
import { callTool, type ToolAnswer } from './call.ts';
import { typedHandle, UnknownToolError, usingTool } from './handle.ts';
import { toolsInstructions } from './instructions.ts';
import { listingNotes } from './listing-notes.ts';
import { keyScopeNote, refusedAnswer } from './scope-refusal.ts';
import type { RequestScope } from './scope.ts';

export interface ToolSurface {
  readonly tools: WireTool[];
  readonly instructions: string;
  /**
   * Runs one tools/call. A catalogue tool outside the scope is an isError result naming the scope (scope-refusal.ts);
   * any other name this surface does not serve throws UnknownToolError (src/tools/handle.ts).
   */
  call(name: string, args: Record<string, unknown>): Promise<ToolAnswer>;
}

export type { ToolAnswer };

/** tools mode: the slice's tools, as the client's profile lists them. */
export function toolsSurface(scope: RequestScope): ToolSurface {
  // The (slice, profile) view is computed once per isolate: compacted entries in the profile's dialect.
  const view = viewOf(scope.catalogue, scope.slice, scope.profile, listingNotes(scope));
  return {
    // Read only by tools/list: other requests (initialize, tools/call) never build the slice's listing.
    get tools() {
      return view.tools;
    },
    get instructions() {
      return toolsInstructions(scope.catalogue, scope.slice, view) + keyScopeNote(scope);
    },
    call(name, args) {
      // Content-only profiles are shown no outputSchema, but their result is still shaped by one (the {result} wrap):
      // the default listing's.
      const listed = scope.profile.carry === 'both' ? view : viewOf(scope.catalogue, scope.slice, PROFILES.default);
      const answer = usingTool(scope, name, function callListed(tool, i) {
        return callTool(scope, typedHandle(scope, tool, listed.advertised(i), true), args);
      });
      return answer ?? refusedAnswer(scope, name, 'tools') ?? Promise.reject(new UnknownToolError(name));
    },
  };
}
