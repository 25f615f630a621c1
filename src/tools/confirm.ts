// Confirmation before a call that needs one (docs/confirmation.md), the MCP 2026-07-28 way: the first tools/call
// answers `input_required` with one elicitation/create asking the person ("Delete repository octocat/hello-world?")
// and a sealed requestState (confirm-state.ts); the client asks, then retries the same call with the answer and
// the state, and only an accepted retry runs. callTool (call.ts) asks this gate after the arguments validate and
// before anything is sent upstream:
//   - the tool needs no confirmation (CONFIRM_WRITES, the catalogue's `confirm`): go ahead;
//   - the client cannot ask (a 2025-era request, or no elicitation in its capabilities): go ahead, as before, unless
//     CONFIRM_WRITES_REQUIRED refuses the call with a text saying why and what to do;
//   - a program's api call (code mode), whose client could confirm: refused, to be made as a tool call of its own;
//   - no state yet, or no answer to the question asked: ask (a fresh state);
//   - a state: opened (tampered, foreign or expired: ConfirmStateError, JSON-RPC -32602), its nonce recorded once
//     (a replay: -32602), then accepted runs the call and declined or cancelled answers that nothing was done.
import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';
import type { CatalogueTool } from '../catalogue/types.ts';
import type { ConfirmSettings } from '../config.ts';
import { sha256Hex } from '../lib/bytes.ts';
import { log } from '../lib/log.ts';
import { errorResult } from '../lib/tool-result.ts';
import { isolateLedger } from './confirm-ledger.ts';
import { boundCall, ConfirmStateError, openState, sealState } from './confirm-state.ts';
import type { ToolHandle } from './handle.ts';
import type { RequestScope } from './scope.ts';

/** The key of the one input request: the answer comes back under it. */
export const CONFIRM_KEY = 'confirm';

/** Whether calls of `tool` ask the person first: the catalogue's own say (overrides), else the deployment's. */
export function needsConfirmation(tool: CatalogueTool, settings: ConfirmSettings): boolean {
  if (tool.confirm !== undefined) return tool.confirm;
  const { readOnlyHint, destructiveHint } = tool.annotations;
  if (readOnlyHint || settings.writes === 'off') return false;
  return settings.writes === 'all' || destructiveHint;
}

/** The answer instead of the call: a result, and for a question the input_required result the server sends instead. */
export interface HeldCall {
  result: CallToolResult;
  inputRequired?: InputRequiredResult;
}

/** undefined: run the call. Otherwise the answer instead of it. Throws ConfirmStateError for a state that does not hold. */
export async function confirmGate(scope: RequestScope, handle: ToolHandle, args: Record<string, unknown>): Promise<HeldCall | undefined> {
  const { tool } = handle;
  const settings = scope.config.confirm;
  if (!needsConfirmation(tool, settings)) return undefined;
  const exchange = scope.exchange;
  if (!exchange?.canElicit) {
    if (!settings.required) return undefined;
    noted(scope, tool, 'refused', 'client cannot confirm');
    return refusal(`${tool.name} was not called: this server asks the person to confirm calls that ${harm(tool)}, and this client cannot ask (confirmation needs MCP protocol 2026-07-28 with the elicitation capability). Nothing was changed. Use a client that supports it, or ask the server's operator about CONFIRM_WRITES_REQUIRED.`);
  }
  if (!handle.confirmable) {
    noted(scope, tool, 'refused', 'inside a program');
    return refusal(`api.${tool.name} was not called: it ${harm(tool)}, so the person is asked first, and a program cannot stop to ask. Make this call on its own as a tool call (on the server's typed endpoint, or with call_tool in discovery mode), where the person is asked to confirm it. Calls the program made before this one stand.`);
  }
  const message = confirmMessage(tool, args);
  const who = await callerBinding(scope);
  const bound = await boundCall(tool.name, args, who, scope.config.upstreamUrl);
  const secret = scope.config.sessionSecret;
  if (exchange.requestState !== undefined) {
    let opened;
    try {
      opened = await openState(secret, bound, exchange.requestState);
    } catch (e) {
      noted(scope, tool, 'invalid_state', (e as ConfirmStateError).reason);
      throw e;
    }
    const answer = answerOf(exchange.inputResponses);
    if (answer) {
      const ledger = scope.confirmations ?? isolateLedger;
      let first: boolean;
      try {
        first = await ledger.consume(who, opened.nonce, opened.expiresAt);
      } catch (e) {
        // Unrecorded, a replay could not be told apart: run nothing.
        noted(scope, tool, 'refused', `ledger: ${(e as Error).message}`);
        return refusal(`${tool.name} was not called: the confirmation could not be recorded just now, so nothing was changed. Call the tool again to be asked again.`);
      }
      if (!first) {
        noted(scope, tool, 'invalid_state', 'used');
        throw new ConfirmStateError('used', 'requestState already used: each confirmation answers one call. Call the tool again without requestState to be asked again.');
      }
      noted(scope, tool, answer === 'accept' ? 'accepted' : 'declined');
      if (answer === 'accept') return undefined;
      return { result: { content: [{ type: 'text', text: `Not done: the person declined "${message}" ${tool.name} was not called, and nothing was changed.` }], ...(handle.listed && handle.outputSchema ? { isError: true } : {}) } };
    }
  }
  noted(scope, tool, 'asked');
  const inputRequired: InputRequiredResult = {
    resultType: 'input_required',
    inputRequests: { [CONFIRM_KEY]: { method: 'elicitation/create', params: { mode: 'form', message, requestedSchema: { type: 'object', properties: {} } } } },
    requestState: await sealState(secret, bound),
  };
  return { result: { content: [{ type: 'text', text: `Waiting for the person to confirm: ${message}` }] }, inputRequired };
}

/** What a call of the tool may do, in the words refusals use. */
function harm(tool: CatalogueTool): string {
  return tool.annotations.destructiveHint ? 'may delete or overwrite data' : 'change data';
}

function refusal(text: string): HeldCall {
  return { result: errorResult(text) };
}

/** The person's answer to our question, when the retry carries one: accept, or decline/cancel alike. */
function answerOf(responses: Record<string, unknown> | undefined): 'accept' | 'decline' | undefined {
  const entry = responses?.[CONFIRM_KEY];
  if (!entry || typeof entry !== 'object') return undefined;
  const action = (entry as { action?: unknown }).action;
  if (action === 'accept') return 'accept';
  return action === 'decline' || action === 'cancel' ? 'decline' : undefined;
}

/**
 * Who a state is for: the key (a grant acts as its key), or, in passthrough mode where everyone is "passthrough",
 * the credential itself by its SHA-256.
 */
async function callerBinding(scope: RequestScope): Promise<string> {
  const { caller } = scope;
  return caller.id === 'passthrough' ? `passthrough:${await sha256Hex((caller.secrets ?? []).join('\u0000'))}` : caller.id;
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** "Delete repository octocat/hello-world?": the title's action without articles, then its target. */
export function confirmMessage(tool: CatalogueTool, args: Record<string, unknown>): string {
  const action = tool.title.replace(/\b(a|an|the)\s+/gi, '').replace(/\s+/g, ' ').trim();
  const show = (v: unknown) => {
    const s = (typeof v === 'string' ? v : JSON.stringify(v)).replace(CONTROL, ' ').trim();
    return s.length > 80 ? `${s.slice(0, 79)}…` : s;
  };
  const inPath = tool.http.params.filter((p) => p.in === 'path' && args[p.arg] !== undefined).map((p) => show(args[p.arg]));
  if (inPath.length) return `${action} ${inPath.join('/')}?`;
  const required = ((tool.inputSchema.required as string[] | undefined) ?? []).filter((k) => args[k] !== undefined && typeof args[k] !== 'object').slice(0, 3);
  return required.length ? `${action} (${required.map((k) => `${k}: ${show(args[k])}`).join(', ')})?` : `${action}?`;
}

/** One log line per step of a confirmation (its arguments are never logged; they may name private things). */
function noted(scope: RequestScope, tool: CatalogueTool, step: 'asked' | 'accepted' | 'declined' | 'refused' | 'invalid_state', reason?: string): void {
  log('tool_confirm', { tool: tool.name, caller: scope.caller.id, step, ...(reason ? { reason } : {}) });
}

