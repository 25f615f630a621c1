// Running one tool call: the single path behind tools/call, discovery's call_tool, hybrid lists and code mode's api
// calls. The surface has resolved the tool into a handle (src/tools/handle.ts); every call then takes the same steps:
//   1. arguments as the catalogue means them: a strict caller's values mapped back, a projection list joined
//   2. validate them against the tool's inputSchema (invalid: an isError result, nothing sent)
//   3. the credentials the tool's security asks for (src/auth/upstream-security.ts; none available: an isError result
//      naming the scheme, nothing sent), then, for a call that needs the person's confirmation first, ask
//      (src/tools/confirm.ts: nothing sent until an accepted retry)
//   4. execute: the upstream request and the result in one pass (src/upstream), cancelled with the request
//   5. redact the caller's secrets and the credentials sent, on the result's one serialisation
//   6. after the call: a schema mismatch reported (automatic drops), one tool_call log line, one usage count
import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';
import type { JsonSchema } from '../catalogue/types.ts';
import { mentionsSecret, redactSecrets } from '../auth/redact.ts';
import { credentialsFor, type PlacedCredentials } from '../auth/upstream-security.ts';
import { validateArguments } from '../catalogue/validator.ts';
import { utf8Length } from '../lib/bytes.ts';
import { log } from '../lib/log.ts';
import { errorResult } from '../lib/tool-result.ts';
import { fromStrictArguments } from '../profiles/strict-arguments.ts';
import { fieldsAsText } from '../results/options.ts';
import { structuredResultJson } from '../upstream/conversion.ts';
import { executeTool, type CallRecord, type Executed, type UpstreamLimits } from '../upstream/upstream-call.ts';
import { SERVER_NAME, VERSION } from '../version.ts';
import { callerSlotKey, takeCallSlot } from './call-slots.ts';
import { confirmGate, needsConfirmation } from './confirm.ts';
import type { ToolHandle } from './handle.ts';
import type { RequestScope } from './scope.ts';

/** One answered tools/call, from callTool (or a meta-tool) to the wire. */
export interface ToolAnswer {
  result: CallToolResult;
  /** The result's JSON, serialised once by callTool (what is metered, and what the fast path writes when unchanged). */
  json?: string;
  /**
   * Shape the result for the protocol era against the outputSchema the listing advertised (undefined: none).
   * Absent when the result is another tool's, passed through unchanged (discovery's call_tool).
   */
  shape?: { outputSchema: JsonSchema | undefined };
  /**
   * The call asks the person first (src/tools/confirm.ts): the server answers this input_required result instead
   * (`result` then only says so), and nothing ran upstream.
   */
  inputRequired?: InputRequiredResult;
}

const USER_AGENT = `${SERVER_NAME}/${VERSION}`;
/** Beyond the upstream deadline, what reading and shaping an answer may take before a held call slot is taken back. */
const SLOT_GRACE_MS = 30_000;

/** Runs the tool of `handle` with `given` for this scope. Never throws for the call's own failures: they are isError results. */
export async function callTool(scope: RequestScope, handle: ToolHandle, given: Record<string, unknown>): Promise<ToolAnswer> {
  const started = Date.now();
  const executed = await run(scope, handle, given);
  // Asked, declined or refused before the upstream: nothing to redact, log as a call or meter (confirm.ts logs it).
  if ('held' in executed) return executed.held;
  const answer = redacted(executed, executed.secrets ?? scope.caller.secrets);
  await afterCall(scope, handle, executed.record, answer, Date.now() - started);
  if (handle.listed) answer.shape = { outputSchema: handle.outputSchema };
  return answer;
}

/** Steps 1 to 4; `secrets`: the caller's and those of the credentials sent. */
async function run(scope: RequestScope, handle: ToolHandle, given: Record<string, unknown>): Promise<(Executed & { secrets?: readonly string[] }) | { held: ToolAnswer }> {
  const { tool } = handle;
  const mapped = handle.strictArguments ? fromStrictArguments(tool.inputSchema, given) : { args: given, errors: [] };
  const args = fieldsAsText(tool, mapped.args);
  const check = mapped.errors.length ? { valid: false, errors: mapped.errors } : validateArguments(tool.inputSchema, args);
  if (!check.valid) {
    // Argument errors are tool results (MCP 2025-11-25) so the model can correct itself.
    const text = `Invalid arguments for ${tool.name}:\n${check.errors.map((e) => `- ${e}`).join('\n')}\nCheck the tool's inputSchema and call it again.`;
    return { result: errorResult(text), record: { outcome: 'invalid_arguments', validation: 'none', method: tool.http.method, argumentErrors: check.errors.length } };
  }
  const found = credentialsFor(scope.catalogue.catalogue.security, tool, scope.caller.upstream, scope.config);
  // Synchronous unless a token must be obtained, so a call without OAuth waits for nothing here.
  const credentials = found instanceof Promise ? await found : found;
  if (!credentials.ok) return { result: errorResult(credentials.message), record: { outcome: 'no_credential', validation: 'none', method: tool.http.method } };
  // After the credential check: nobody is asked to confirm a call that would then be refused.
  const held = needsConfirmation(handle.tool, scope.config.confirm) ? await confirmGate(scope, handle, args) : undefined;
  if (held) return { held };
  // A slot of the key's upstream calls (call-slots.ts): its calls past the cap wait here, before anything is sent.
  // Synchronous while the key has a slot free, like the credential above: the common call waits for nothing here.
  const slotKey = callerSlotKey(scope);
  const taken = takeCallSlot(typeof slotKey === 'string' ? slotKey : await slotKey, { max: scope.config.maxCallsPerKey, leaseMs: scope.config.timeoutMs + SLOT_GRACE_MS, signal: handle.signal ?? scope.signal });
  const slot = taken instanceof Promise ? await taken : taken;
  if (!('release' in slot)) {
    // Nothing was sent: not a call to log or meter, like a refusal before the upstream.
    log('tool_refused', { tool: tool.name, caller: scope.caller.id, reason: 'refused' in slot ? 'concurrency' : 'cancelled' });
    return { held: { result: errorResult('refused' in slot ? slot.refused : `The call of ${tool.name} was cancelled before it was sent.`) } };
  }
  let executed: Executed;
  try {
    executed = await executeTool(handle, args, limitsFor(scope, credentials.credentials));
  } finally {
    slot.release();
  }
  if (executed.record.outcome === 'ok') scope.health?.sample(tool, handle.outputSchema, executed.result);
  return credentials.secrets.length ? { ...executed, secrets: [...(scope.caller.secrets ?? []), ...credentials.secrets] } : executed;
}

function limitsFor({ config }: RequestScope, credentials: PlacedCredentials): UpstreamLimits {
  return {
    upstreamUrl: config.upstreamUrl,
    credentials,
    timeoutMs: config.timeoutMs,
    maxResponseBytes: config.maxResponseBytes,
    maxResultTokens: config.maxResultTokens,
    userAgent: USER_AGENT,
  };
}

/**
 * 4. Upstreams may echo request headers; the caller's credentials never leave in a result. The result's JSON is
 * checked for them as it will be sent, and only a result that holds one is walked and serialised again.
 */
function redacted(executed: Executed, secrets: readonly string[] | undefined): ToolAnswer {
  const json = executed.json ?? JSON.stringify(executed.result);
  if (!mentionsSecret(json, secrets)) return { result: executed.result, json };
  const result: CallToolResult = redactSecrets(executed.result, secrets);
  // A text block that serialises structuredContent is rebuilt from the redacted value, so both say the same.
  if (executed.json !== undefined && result.structuredContent !== undefined && result.content.length === 1 && Object.keys(result).length === 2) {
    const text = JSON.stringify(result.structuredContent);
    return { result: { content: [{ type: 'text', text }], structuredContent: result.structuredContent }, json: structuredResultJson(text) };
  }
  return { result, json: JSON.stringify(result) };
}

/** 5. What every call leaves behind, from one record: a mismatch report, one log line, one usage count. */
async function afterCall(scope: RequestScope, handle: ToolHandle, record: CallRecord, answer: ToolAnswer, latencyMs: number): Promise<void> {
  const { tool } = handle;
  if (record.outcome === 'schema_mismatch' && scope.health) record.schemaMismatches = await scope.health.mismatch(tool.name, record.schemaErrors ?? []);
  const resultBytes = utf8Length(answer.json!);
  log('tool_call', { tool: tool.name, caller: scope.caller.id, ...record, isError: answer.result.isError === true, latencyMs, resultBytes });
  scope.meter?.({ keyId: scope.caller.id, tool: tool.name, outcome: record.outcome, latencyMs, resultBytes });
}
