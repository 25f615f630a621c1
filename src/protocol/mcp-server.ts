// The per-request MCP Server the SDK serves: cheap to build, because everything heavy (catalogue, slices, profile
// views) is prepared once per isolate. It wires the scope's tool surface into two handlers.
import { ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import { codeSurface } from '../codemode/surface.ts';
import { hybridSurface } from '../discovery/hybrid-surface.ts';
import { discoverySurface } from '../discovery/meta-tools.ts';
import { contentOnly } from '../profiles/profiles.ts';
import { UnknownToolError } from '../tools/handle.ts';
import type { RequestScope } from '../tools/scope.ts';
import { toolsSurface, type ToolAnswer, type ToolSurface } from '../tools/surface.ts';
import { SERVER_NAME, VERSION } from '../version.ts';

/**
 * Cache hints for 2026-07-28 clients (the SDK adds ttlMs/cacheScope to tools/list results). A slice's list only
 * changes with a deploy; the scope is private because a list depends on the caller's key scope.
 */
export const CACHE_HINTS = { 'tools/list': { ttlMs: 300_000, cacheScope: 'private' as const } };

export interface ServerInfo {
  name: string;
  version: string;
  title?: string;
}

export function serverInfo(catalogue: LoadedCatalogue): ServerInfo {
  return { name: SERVER_NAME, version: VERSION, title: catalogue.catalogue.source.title };
}

/** The surface of the scope's mode: the one place the endpoint mode chooses what is served. */
export function surfaceOf(scope: RequestScope): ToolSurface {
  switch (scope.mode) {
    case 'code':
      return codeSurface(scope);
    case 'discover':
      return discoverySurface(scope);
    case 'hybrid':
      return hybridSurface(scope);
    case 'tools':
      return toolsSurface(scope);
  }
}

/**
 * A tools/call the tools/call fast path (src/protocol/ready-tools-call.ts) already ran: the SDK answers it with this
 * outcome instead of running the tool a second time, so the fast path can compare its bytes with the SDK's.
 */
export interface AnsweredCall {
  name: string;
  answer: Promise<ToolAnswer>;
}

/** The SDK's answer to a request; with `answered`, a tools/call the fast path already ran is not run again. */
export type ViaSdk = (answered?: AnsweredCall) => Promise<Response>;

export function buildServer(scope: RequestScope, answered?: AnsweredCall): Server {
  const surface = surfaceOf(scope);
  const server = new Server(serverInfo(scope.catalogue), {
    capabilities: { tools: { listChanged: false } },
    instructions: surface.instructions,
    cacheHints: CACHE_HINTS,
  });
  server.setRequestHandler('tools/list', () => ({ tools: surface.tools as never }));
  server.setRequestHandler('tools/call', async function toolsCall(request) {
    const { name, arguments: args = {} } = request.params;
    let out: ToolAnswer;
    try {
      out = answered?.name === name ? await answered.answer : await surface.call(name, args);
    } catch (error) {
      // An unknown name is a protocol error (the model cannot fix it by changing arguments).
      if (error instanceof UnknownToolError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
      throw error;
    }
    if (scope.profile.carry === 'content') return contentOnly(out.result);
    // The era's wire shaping (SEP-2106) against the schema the listing advertised.
    return out.shape ? server.projectCallToolResult(out.result, out.shape.outputSchema) : out.result;
  });
  return server;
}

/**
 * The server for a request whose body is not JSON: the SDK answers it with a parse error before any handler runs,
 * but still asks the factory for an instance. It has no tools to offer.
 */
export function parseErrorServer(): Server {
  return new Server({ name: SERVER_NAME, version: VERSION }, { capabilities: {} });
}
