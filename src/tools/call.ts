// Running one tool call for a request scope: the single path behind tools/call and discovery's call_tool.
// Resolve the name within the scope, map a strict caller's arguments back (openai profile), validate them against the
// tool's inputSchema, call the upstream, redact the caller's secrets, log one tool_call line (outcome, latency, bytes)
// and count the call in the usage meter.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { redactSecrets } from '../auth/redact.ts';
import type { CatalogueTool } from '../catalogue/types.ts';
import { validate } from '../catalogue/validator.ts';
import { utf8Length } from '../lib/bytes.ts';
import { log } from '../lib/log.ts';
import { fieldsAsText, resultOptions } from '../results/options.ts';
import { errorResult } from '../lib/tool-result.ts';
import { fromStrictArguments } from '../profiles/strict-arguments.ts';
import { executeTool, type CallRecord } from '../upstream/execute.ts';
import { outcomeOf } from '../usage/schema.ts';
import { SERVER_NAME, VERSION } from '../version.ts';
import type { RequestScope } from './scope.ts';

/** The name is not a tool of this scope: unknown, or outside the slice or the key's scope (refused alike). */
export class UnknownToolError extends Error {
  constructor(toolName: string) {
    super(`Unknown tool: ${toolName}`);
  }
}

interface ToolCall {
  tool: CatalogueTool;
  result: CallToolResult;
}

/** The tool `name` (a catalogue name or alias; every profile lists the catalogue's names) denotes in this scope. */
export function resolveTool(scope: RequestScope, name: string): CatalogueTool | undefined {
  const tool = scope.catalogue.byName.get(name);
  return tool && scope.slice.names.has(tool.name) ? tool : undefined;
}

/** Runs `name` with `args` for this scope. Throws UnknownToolError; every other failure is an isError result. */
export async function callTool(scope: RequestScope, name: string, args: Record<string, unknown>): Promise<ToolCall> {
  const tool = resolveTool(scope, name);
  if (!tool) throw new UnknownToolError(name);
  const started = Date.now();
  const { result, record } = await run(scope, tool, args);
  const latencyMs = Date.now() - started;
  const resultBytes = utf8Length(JSON.stringify(result));
  if (record.outcome === 'schema_mismatch') await scope.reportSchemaMismatch?.(tool.name, record.schemaErrors ?? []);
  log('tool_call', { tool: tool.name, caller: scope.caller.id, ...record, isError: result.isError === true, latencyMs, resultBytes });
  scope.meter?.({ keyId: scope.caller.id, tool: tool.name, outcome: outcomeOf(record.outcome, record.status), latencyMs, resultBytes });
  return { tool, result };
}

async function run(scope: RequestScope, tool: CatalogueTool, given: Record<string, unknown>): Promise<{ result: CallToolResult; record: CallRecord }> {
  // The openai profile lists strict-form schemas (null = absent, free-form objects as JSON strings or pairs).
  const { args: mapped, errors: mapErrors } = scope.profile.dialect === 'strict' ? fromStrictArguments(tool.inputSchema, given) : { args: given, errors: [] };
  const args = fieldsAsText(tool, mapped);
  const check = mapErrors.length ? { valid: false, errors: mapErrors } : validate(tool.inputSchema, args);
  if (!check.valid) {
    // Argument errors are tool results (MCP 2025-11-25) so the model can correct itself.
    const text = `Invalid arguments for ${tool.name}:\n${check.errors.map((e) => `- ${e}`).join('\n')}\nCheck the tool's inputSchema and call it again.`;
    return { result: errorResult(text), record: { outcome: 'invalid_arguments', validation: 'none', method: tool.http.method, argumentErrors: check.errors.length } };
  }
  const { config, caller } = scope;
  const call = await executeTool(tool, args, {
    upstreamUrl: config.upstreamUrl,
    headers: caller.upstreamHeaders,
    timeoutMs: config.timeoutMs,
    maxResponseBytes: config.maxResponseBytes,
    maxResultTokens: config.maxResultTokens,
    userAgent: `${SERVER_NAME}/${VERSION}`,
    results: resultOptions(scope.catalogue.catalogue, config.upstreamUrl, config.compactResults),
  });
  // Upstreams may echo request headers; the caller's credentials never leave in a result.
  return { result: redactSecrets(call.result, caller.secrets), record: call.record };
}
