// Builds the cheap per-request MCP Server. Everything heavy (catalogue, tool list) is prepared
// once per isolate in LoadedCatalogue; a request only wires two handlers.
import { ProtocolError, ProtocolErrorCode, Server, type CallToolResult } from '@modelcontextprotocol/server';
import type { LoadedCatalogue } from '../catalogue/load.ts';
import type { Slice } from '../catalogue/slices.ts';
import type { Config } from '../config.ts';
import type { Caller } from '../auth/bearer.ts';
import { buildDiscoveryServer } from '../discovery/server.ts';
import { PROFILES, type Profile } from '../profiles/profiles.ts';
import { contentOnly, viewOf } from '../profiles/view.ts';
import { SERVER_NAME, VERSION } from '../version.ts';
import { callTool } from './tools-call.ts';
import { CACHE_HINTS } from './tools-list.ts';

export interface RequestScope {
  loaded: LoadedCatalogue;
  /** The tools this request may see and call (URL slice ∩ key scope). */
  slice: Slice;
  config: Config;
  caller: Caller;
  /** Client profile (src/profiles); default when absent. */
  profile?: Profile;
  /** discover: serve the discovery meta-tools (src/discovery) instead of the slice's tools. */
  mode?: 'tools' | 'discover';
}

export function buildServer(scope: RequestScope): Server {
  if (scope.mode === 'discover') return buildDiscoveryServer(scope);
  const { loaded, slice } = scope;
  // The (slice, profile) view is computed once per isolate: compacted entries, dialect, name budget.
  const view = viewOf(loaded, slice, scope.profile ?? PROFILES.default);
  const server = new Server(
    { name: SERVER_NAME, version: VERSION, title: loaded.catalogue.source.title },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: instructionsFor(loaded, slice) + (view.warning ? `\n${view.warning}` : ''),
      cacheHints: CACHE_HINTS,
    },
  );
  server.setRequestHandler('tools/list', () => ({ tools: view.tools as never }));
  server.setRequestHandler('tools/call', async (request) => {
    const { name, arguments: args } = request.params;
    const tool = view.byName.get(name);
    // An unknown name is a protocol error (the model cannot fix it by changing arguments).
    // A tool outside this request's slice or key scope is refused exactly like an unknown one.
    if (!tool || !slice.names.has(tool.name)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const result: CallToolResult = await callTool(tool, args ?? {}, scope);
    if (view.profile.carry === 'content') return contentOnly(result);
    return server.projectCallToolResult(result, view.advertised.get(tool.name));
  });
  return server;
}

function instructionsFor(loaded: LoadedCatalogue, slice: Slice): string {
  const { source } = loaded.catalogue;
  return `Tools for ${source.title} (API version ${source.version}): ${slice.listed.length} operations of its REST API. Each tool calls one HTTP operation; arguments are the operation's path, query, header and body parameters.`;
}
