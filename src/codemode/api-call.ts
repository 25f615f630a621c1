// One `api.<tool>(args)` from a code-mode sandbox, run for the request's scope through the one tool-call path
// (src/tools/call.ts): the name is resolved within the slice, the call is counted against the key's rate limit,
// then the arguments are validated, the upstream is called with the caller's credential, the result is redacted
// and logged, exactly as for tools/call. Every outcome is an ApiReply; nothing here throws.
import { callTool, refusedCall, resolveTool } from '../tools/call.ts';
import type { RequestScope } from '../tools/scope.ts';
import { replyFromResult, type ToolCall } from './api-reply.ts';

/** Counts one api call of `tool` against the caller's rate limit: undefined when allowed, else the refusal text. */
export type ChargeCall = (tool: string) => Promise<string | undefined>;

export function apiCaller(scope: RequestScope, charge: ChargeCall): ToolCall {
  return async (name, args) => {
    const tool = await resolveTool(scope, name);
    if (!tool) {
      // A catalogue tool outside the scope: refused by name (and counted), before the rate limit is charged.
      const refused = refusedCall(scope, name);
      return { ok: false, error: refused !== undefined ? `api.${refused}` : `Unknown tool: ${name}. Use search to find the operations you can call.` };
    }
    const refused = await charge(tool.name);
    // Over the rate limit: the whole execute fails, as the HTTP request would have (429).
    if (refused) return { ok: false, limit: true, error: refused };
    const { result } = await callTool(scope, tool.name, args);
    return replyFromResult(result, tool.outputWrapped === true);
  };
}
