// The MCP endpoint behind the pipeline: a small dispatcher that answers what it can from fast paths and hands
// everything else to the SDK's handler (both protocol eras, stateless), with the request's scope passed explicitly.
import { createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server';
import { log } from '../lib/log.ts';
import { servedBatch, serveBatch, type ChargeMessages } from './batch.ts';
import type { RequestScope } from '../tools/scope.ts';
import { buildServer, parseErrorServer, type AnsweredCall, type ViaSdk } from './mcp-server.ts';
import { readyToolsCall } from './ready-tools-call.ts';
import { readyToolsList } from './ready-tools-list.ts';

/** The request body as the pipeline read it: the parsed message, or the raw text when it is not JSON. */
export interface McpBody {
  message?: unknown;
  text?: string;
}

/**
 * A fast path answers one kind of request without the SDK, or returns undefined to let the next one (and finally
 * the SDK) answer. `viaSdk` lets a fast path compare itself with the SDK's answer.
 */
type FastPath = (scope: RequestScope, request: Request, message: unknown, viaSdk: ViaSdk) => Promise<Response> | undefined;

const FAST_PATHS: FastPath[] = [readyToolsList, readyToolsCall];

/** What one request hands the server factory: its scope, and a tools/call a fast path already ran. */
interface McpRequestScope {
  scope: RequestScope;
  answered?: AnsweredCall;
}

/** Where the request's scope travels inside the SDK: the authInfo of the authenticated caller, which it passes through. */
const SCOPE = 'mcp-catalogue/scope';

// One handler per isolate; it asks the factory for a cheap Server per request, built over that request's scope.
const sdk = createMcpHandler((ctx) => {
  const carried = ctx.authInfo?.extra?.[SCOPE] as McpRequestScope | undefined;
  return carried ? buildServer(carried.scope, carried.answered) : parseErrorServer();
}, { onerror: (e) => log('mcp_error', { error: e.message }) });

/** `charge` counts a batch's further messages against the caller's rate limit (src/protocol/batch.ts). */
export function serveMcp(scope: RequestScope, request: Request, body: McpBody, charge?: ChargeMessages): Promise<Response> {
  const sdkWith = (message: unknown, answered?: AnsweredCall) => {
    // The caller was authenticated by the pipeline (src/pipeline/steps.ts); the SDK verifies nothing itself.
    const authInfo: AuthInfo = { token: '', clientId: scope.caller.id, scopes: [], extra: { [SCOPE]: { scope, ...(answered ? { answered } : {}) } satisfies McpRequestScope } };
    return sdk.fetch(request, { parsedBody: message, authInfo });
  };
  const batch = servedBatch(body.message);
  if (batch) return serveBatch(batch, charge, (messages) => sdkWith(messages), scope.signal);
  const viaSdk: ViaSdk = (answered) => {
    if (body.message === undefined) {
      // Not JSON, or not a JSON POST at all: the SDK reads the raw body itself and answers with its own error
      // (parse error, 415 or 405). No handler runs, so no scope is needed.
      return sdk.fetch(body.text === undefined ? request : new Request(request, { body: body.text }));
    }
    return sdkWith(body.message, answered);
  };
  for (const fast of FAST_PATHS) {
    const answered = fast(scope, request, body.message, viaSdk);
    if (answered) return answered;
  }
  return viaSdk();
}
