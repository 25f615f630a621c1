// Running one tool call for a request scope: the single path behind tools/call, discovery's call_tool, hybrid lists
// and code mode's api calls. Every call takes the same steps, in this order:
//   1. resolve the name within the scope (catalogue names and aliases); a catalogue tool outside it is refused with
//      the scope that refused it (scope-refusal.ts), any other name is an UnknownToolError
//   2. arguments as the catalogue means them: a strict caller's values mapped back (openai profile), a projection
//      given as a list joined to its text form
//   3. validate them against the tool's inputSchema (invalid: an isError result, nothing sent)
//   4. execute: the upstream request, with result shaping (compaction, projection, pages that fit) in src/upstream
//   5. redact the caller's secrets from the result
//   6. after the call: report a schema mismatch (automatic drops), log one tool_call line, meter the call (usage)
import type { CallToolResult } from '@modelcontextprotocol/server';
import { redactSecrets } from '../auth/redact.ts';
import type { CatalogueTool } from '../catalogue/types.ts';
import { validate } from '../catalogue/validator.ts';
import { utf8Length } from '../lib/bytes.ts';
import { log } from '../lib/log.ts';
import { errorResult } from '../lib/tool-result.ts';
import { fromStrictArguments } from '../profiles/strict-arguments.ts';
import { fieldsAsText, resultOptions, type ResultOptions } from '../results/options.ts';
import { executeTool, type CallRecord } from '../upstream/execute.ts';
import { outcomeOf } from '../usage/schema.ts';
import { SERVER_NAME, VERSION } from '../version.ts';
import { sampleFullSchema, withListedSchema } from './checked-schema.ts';
import type { RequestScope } from './scope.ts';
import { scopeRefusal, type RefusalSurface } from './scope-refusal.ts';

/** No catalogue tool has this name (a catalogue tool outside the scope is refused with a result instead). */
export class UnknownToolError extends Error {
  constructor(toolName: string) {
    super(`Unknown tool: ${toolName}`);
  }
}

interface ToolCall {
  /** Absent when the call was refused: a catalogue tool outside this scope. */
  tool?: CatalogueTool;
  result: CallToolResult;
}

type Executed = { result: CallToolResult; record: CallRecord };

/** 1. The tool `name` (a catalogue name or alias; every profile lists the catalogue's names) denotes in this scope. */
export async function resolveTool(scope: RequestScope, name: string): Promise<CatalogueTool | undefined> {
  const i = scope.catalogue.indexOf(name);
  if (i === undefined || !scope.slice.has(i)) return undefined;
  // A sharded catalogue fetches the tool's shard first; a catalogue in one text has every tool at hand.
  await scope.catalogue.load([i]);
  return scope.catalogue.tool(i);
}

/** Runs `name` with `args` for this scope. Throws UnknownToolError; every other failure is an isError result. */
export async function callTool(scope: RequestScope, name: string, args: Record<string, unknown>): Promise<ToolCall> {
  const tool = await resolveTool(scope, name);
  if (!tool) {
    const refused = refusedCall(scope, name);
    if (refused === undefined) throw new UnknownToolError(name);
    return { result: errorResult(refused) };
  }
  const started = Date.now();
  const { result, record } = await argumentsAndExecute(scope, tool, args);
  await afterCall(scope, tool, result, record, Date.now() - started);
  return { tool, result };
}

const SURFACE: Record<RequestScope['mode'], RefusalSurface> = { tools: 'tools', hybrid: 'discover', discover: 'discover', code: 'code' };

/**
 * A call of a catalogue tool outside this scope (the key's scope or the URL's slice): the refusal's text, naming the
 * scope, logged and counted in usage as out_of_scope. Undefined when no catalogue tool has the name.
 */
export function refusedCall(scope: RequestScope, name: string): string | undefined {
  const text = scopeRefusal(scope, name, SURFACE[scope.mode]);
  if (text === undefined) return undefined;
  const tool = scope.catalogue.name(scope.catalogue.indexOf(name)!);
  log('tool_call', { tool, caller: scope.caller.id, outcome: 'out_of_scope', isError: true });
  scope.meter?.({ keyId: scope.caller.id, tool, outcome: 'out_of_scope' });
  return text;
}

/** Steps 2 to 5. */
async function argumentsAndExecute(scope: RequestScope, tool: CatalogueTool, given: Record<string, unknown>): Promise<Executed> {
  const { args, errors } = catalogueArguments(scope, tool, given);
  const check = errors.length ? { valid: false, errors } : validate(tool.inputSchema, args);
  if (!check.valid) {
    // Argument errors are tool results (MCP 2025-11-25) so the model can correct itself.
    const text = `Invalid arguments for ${tool.name}:\n${check.errors.map((e) => `- ${e}`).join('\n')}\nCheck the tool's inputSchema and call it again.`;
    return { result: errorResult(text), record: { outcome: 'invalid_arguments', validation: 'none', method: tool.http.method, argumentErrors: check.errors.length } };
  }
  const { config, caller } = scope;
  // structuredContent is checked against the schema the client was shown, the full one only sampled (checked-schema.ts).
  const checked = withListedSchema(scope, tool);
  const call = await executeTool(checked, args, {
    upstreamUrl: config.upstreamUrl,
    headers: caller.upstreamHeaders,
    timeoutMs: config.timeoutMs,
    maxResponseBytes: config.maxResponseBytes,
    maxResultTokens: config.maxResultTokens,
    userAgent: `${SERVER_NAME}/${VERSION}`,
    results: withCodeMode(scope, resultOptions(scope.catalogue.catalogue, config.upstreamUrl, config.compactResults)),
    ...(checked !== tool ? { catalogueTool: tool } : {}),
  });
  if (checked !== tool) sampleFullSchema(tool, call.result);
  // Upstreams may echo request headers; the caller's credentials never leave in a result.
  return { result: redactSecrets(call.result, caller.secrets), record: call.record };
}

/** Code mode keeps nested resources whole (src/results/options.ts, shortenEmbedded). */
function withCodeMode(scope: RequestScope, options: ResultOptions): ResultOptions {
  return scope.mode === 'code' ? { ...options, shortenEmbedded: false } : options;
}

/**
 * 2. The arguments in the catalogue's own form. Only callers that were shown strict-form schemas send strict values:
 * tools, hybrid and discovery under the openai profile. Code mode's programs are typed by the catalogue's own
 * declarations, so their nulls are values (a null that clears a field), never "absent".
 */
function catalogueArguments(scope: RequestScope, tool: CatalogueTool, given: Record<string, unknown>): { args: Record<string, unknown>; errors: string[] } {
  const strict = scope.profile.dialect === 'strict' && scope.mode !== 'code';
  const { args, errors } = strict ? fromStrictArguments(tool.inputSchema, given) : { args: given, errors: [] };
  return { args: fieldsAsText(tool, args), errors };
}

/** 6. What every call leaves behind, from one record: a mismatch report, one log line, one usage count. */
async function afterCall(scope: RequestScope, tool: CatalogueTool, result: CallToolResult, record: CallRecord, latencyMs: number): Promise<void> {
  if (record.outcome === 'schema_mismatch') await scope.reportSchemaMismatch?.(tool.name, record.schemaErrors ?? []);
  const resultBytes = utf8Length(JSON.stringify(result));
  log('tool_call', { tool: tool.name, caller: scope.caller.id, ...record, isError: result.isError === true, latencyMs, resultBytes });
  scope.meter?.({ keyId: scope.caller.id, tool: tool.name, outcome: outcomeOf(record.outcome, record.status), latencyMs, resultBytes });
}
