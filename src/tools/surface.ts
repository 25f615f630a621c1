// What one endpoint mode serves over MCP: its tools/list entries, its server instructions and its tools/call.
// The MCP server (src/protocol/mcp-server.ts) wires a surface into the SDK; each mode supplies one.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { JsonSchema } from '../catalogue/types.ts';
import { viewOf, type WireTool } from '../profiles/view.ts';
import { callTool } from './call.ts';
import type { RequestScope } from './scope.ts';
import { keyScopeNote } from './scope-refusal.ts';

export interface ToolSurface {
  readonly tools: WireTool[];
  instructions: string;
  /** Runs one tools/call. Throws UnknownToolError (src/tools/call.ts) for a name this surface does not serve. */
  call(name: string, args: Record<string, unknown>): Promise<SurfaceResult>;
}

export interface SurfaceResult {
  result: CallToolResult;
  /**
   * Shape the result for the protocol era against the outputSchema the listing advertised (undefined: none).
   * Absent when the result is another tool's, passed through unchanged (discovery's call_tool).
   */
  shape?: { outputSchema: JsonSchema | undefined };
}

/** tools mode: the slice's tools, as the client's profile lists them. */
export function toolsSurface(scope: RequestScope): ToolSurface {
  // The (slice, profile) view is computed once per isolate: compacted entries in the profile's dialect.
  const view = viewOf(scope.catalogue, scope.slice, scope.profile);
  const { source } = scope.catalogue.catalogue;
  const instructions = `Tools for ${source.title} (API version ${source.version}): ${scope.slice.tools.length} operations of its REST API. Each tool calls one HTTP operation; arguments are the operation's path, query, header and body parameters.`;
  return {
    // Read only by tools/list: other requests (initialize, tools/call) never build the slice's listing.
    get tools() {
      return view.tools;
    },
    instructions: instructions + keyScopeNote(scope) + (view.warning ? `\n${view.warning}` : ''),
    async call(name, args) {
      const { tool, result } = await callTool(scope, name, args);
      return tool ? { result, shape: { outputSchema: view.advertised(scope.catalogue.indexOf(tool.name)!) } } : { result };
    },
  };
}
