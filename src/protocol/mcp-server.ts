// The per-request MCP Server the SDK serves: cheap to build, because everything heavy (catalogue, slices, profile
// views) is prepared once per isolate. It wires the scope's tool surface into two handlers.
import { CLIENT_CAPABILITIES_META_KEY, PROTOCOL_VERSION_META_KEY, ProtocolError, ProtocolErrorCode, Server, type ServerContext } from '@modelcontextprotocol/server';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import { codeSurface } from '../codemode/surface.ts';
import { hybridSurface } from '../discovery/hybrid-surface.ts';
import { discoverySurface } from '../discovery/meta-tools.ts';
import { contentOnly } from '../profiles/profiles.ts';
import { resultBudget } from '../results/budget.ts';
import { withinBudget } from '../results/within-budget.ts';
import { UnknownToolError } from '../tools/handle.ts';
import { ConfirmStateError } from '../tools/confirm-state.ts';
import type { CallExchange, RequestScope } from '../tools/scope.ts';
import { toolsSurface, type ToolAnswer, type ToolSurface } from '../tools/surface.ts';
import { SERVER_NAME, VERSION } from '../version.ts';
import { cutQuote } from '../lib/cut-quote.ts';

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
  server.setRequestHandler('tools/call', async function toolsCall(request, ctx) {
    const { name, arguments: args = {} } = request.params;
    // A 2026-07-28 call: whether the client can confirm, and a retry's answer (src/tools/confirm.ts).
    const exchange = exchangeOf(ctx);
    let out: ToolAnswer;
    try {
      out = answered?.name === name ? await answered.answer : await (exchange ? surfaceOf({ ...scope, exchange }) : surface).call(name, args);
      // Confirmation first: the question goes out as it is, nothing ran.
      if (out.inputRequired) return out.inputRequired as never;
      out = fitted(scope, out);
    } catch (error) {
      // An unknown name is a protocol error (the model cannot fix it by changing arguments).
      if (error instanceof UnknownToolError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
      // A requestState that does not hold (altered, another call's, expired, used): the client's error, nothing ran.
      if (error instanceof ConfirmStateError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, { reason: 'invalid_request_state' });
      // Coded, so badParamsAreInvalidParams below tells it from the SDK's own params check.
      if (error instanceof ProtocolError) throw error;
      throw new ProtocolError(ProtocolErrorCode.InternalError, error instanceof Error ? error.message : 'Internal error');
    }
    if (scope.profile.carry === 'content') return contentOnly(out.result);
    // The era's wire shaping (SEP-2106) against the schema the listing advertised.
    return out.shape ? server.projectCallToolResult(out.result, out.shape.outputSchema) : out.result;
  });
  badParamsAreInvalidParams(server);
  return server;
}

const MODERN = '2026-07-28';

/**
 * What a tools/call of the 2026-07-28 era carries for confirmation: the per-request `_meta` envelope (its protocol
 * version and client capabilities) and a retry's inputResponses and requestState, which the SDK lifts out of the
 * params. Undefined for a 2025-era request (no envelope): those clients keep today's behaviour.
 */
function exchangeOf(ctx: ServerContext): CallExchange | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const version = envelope?.[PROTOCOL_VERSION_META_KEY];
  if (typeof version !== 'string' || version < MODERN) return undefined;
  const elicitation = (envelope![CLIENT_CAPABILITIES_META_KEY] as { elicitation?: unknown } | undefined)?.elicitation;
  // Elicitation without modes means form mode (MCP 2025-11-25); otherwise form must be among them.
  const canElicit = !!elicitation && typeof elicitation === 'object' && (Object.keys(elicitation).length === 0 || 'form' in elicitation);
  const requestState = ctx.mcpReq.requestState();
  const { inputResponses } = ctx.mcpReq;
  return { canElicit, ...(inputResponses ? { inputResponses } : {}), ...(typeof requestState === 'string' ? { requestState } : {}) };
}

/** The answer as the server writes it: within the result budget whichever surface made it (src/results/within-budget.ts). */
export function fitted(scope: RequestScope, out: ToolAnswer): ToolAnswer {
  const result = withinBudget(out.result, resultBudget(scope.config.maxResultTokens));
  if (result === out.result) return out;
  const { json: _stale, ...rest } = out;
  return { ...rest, result };
}

type StoredHandler = (request: { method: string }, ctx: unknown) => Promise<unknown>;

/**
 * The SDK checks a spec request's params against its schema before the handler runs and throws a plain Error when
 * they do not fit, which it then answers as -32603 Internal error: `initialize` without clientInfo, `tools/list`
 * with a numeric cursor. The client sent bad params, so JSON-RPC says -32602 Invalid params. Every error our
 * handlers and the SDK's built-in ones (initialize, ping, server/discover) throw carries a code, so an uncoded one
 * is that check. Reaches into the SDK's handler table (private): mcp-hostile-input.test.ts fails if that changes.
 */
function badParamsAreInvalidParams(server: Server): void {
  const handlers = (server as unknown as { _requestHandlers?: Map<string, StoredHandler> })._requestHandlers;
  if (!(handlers instanceof Map)) return;
  for (const [method, handler] of handlers) {
    handlers.set(method, async function recodeBadParams(request, ctx) {
      try {
        return await handler(request, ctx);
      } catch (error) {
        if (error instanceof Error && !Number.isSafeInteger((error as { code?: unknown }).code)) {
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params for ${method}: ${cutQuote(issuesText(error.message), 2000)}`);
        }
        throw error;
      }
    });
  }
}

/** The SDK's message is its schema issues as JSON; one line per issue reads better: "params.cursor: expected string". */
function issuesText(message: string): string {
  try {
    const issues = JSON.parse(message) as Array<{ path?: unknown[]; message?: string }>;
    if (Array.isArray(issues) && issues.length) return issues.map((i) => `${(i.path ?? []).join('.') || 'params'}: ${i.message ?? 'invalid'}`).join('; ');
  } catch {
    // Not JSON: the message as it is.
  }
  return message;
}

/**
 * The server for a request whose body is not JSON: the SDK answers it with a parse error before any handler runs,
 * but still asks the factory for an instance. It has no tools to offer.
 */
export function parseErrorServer(): Server {
  return new Server({ name: SERVER_NAME, version: VERSION }, { capabilities: {} });
}
