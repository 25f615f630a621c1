// One `api.<tool>(args)` from a code-mode sandbox, run for the request's scope through the one tool-call path
// (src/tools/call.ts): the name is resolved within the slice, the call is counted against the key's rate limit,
// then the arguments are validated, the upstream is called with the caller's credential (and cancelled when the
// client goes away), the result is redacted and logged, exactly as for tools/call. Every outcome is an ApiReply;
// nothing here throws.
import { resultOptions } from '../results/options.ts';
import { callTool } from '../tools/call.ts';
import { resolveTool } from '../tools/handle.ts';
import type { RequestScope } from '../tools/scope.ts';
import { refusedCall } from '../tools/scope-refusal.ts';
import { replyFromResult, type ToolCall } from './api-reply.ts';

/** Counts one api call of `tool` against the caller's rate limit: undefined when allowed, else the refusal text. */
export type ChargeCall = (tool: string) => Promise<string | undefined>;

export function apiCaller(scope: RequestScope, charge: ChargeCall): ToolCall {
  const { config } = scope;
  // Programs are typed by the catalogue's own declarations: its schemas, its argument form, nested resources whole.
  const results = resultOptions(scope.catalogue.catalogue, config.upstreamUrl, config.compactResults, false);
  return async (name, args) => {
    // The client went away: the program's remaining calls fail at once, without counting against the key.
    if (scope.signal?.aborted) return { ok: false, error: `The request that runs this program was cancelled; api.${name} was not called.` };
    const found = await resolveTool(scope, name);
    if (!found) {
      // A catalogue tool outside the scope: refused by name (and counted), before the rate limit is charged.
      const refused = refusedCall(scope, name, 'code');
      return { ok: false, error: refused !== undefined ? `api.${refused}` : `Unknown tool: ${name}. Use search to find the operations you can call.` };
    }
    const { tool } = found;
    const refused = await charge(tool.name);
    // Over the rate limit: the whole execute fails, as the HTTP request would have (429).
    if (refused) return { ok: false, limit: true, error: refused };
    const handle = { tool, outputSchema: tool.outputSchema, results, strictArguments: false, listed: false, confirmable: false, ...(scope.signal ? { signal: scope.signal } : {}) };
    const { result } = await callTool(scope, handle, args);
    return replyFromResult(result, tool.outputWrapped === true);
  };
}
