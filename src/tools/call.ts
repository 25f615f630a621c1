// Running one tool call for a request scope: the single path behind tools/call and discovery's call_tool.
// Resolve the name within the scope, validate the arguments against the tool's inputSchema, call the upstream,
// redact the caller's secrets, and log one tool_call line (outcome, latency, bytes).
import type { CallToolResult } from '@modelcontextprotocol/server';
import { redactSecrets } from '../auth/redact.ts';
import type { CatalogueTool } from '../catalogue/types.ts';
import { validate } from '../catalogue/validator.ts';
import { log } from '../lib/log.ts';
import { errorResult } from '../lib/tool-result.ts';
import { viewOf } from '../profiles/view.ts';
import { executeTool, type CallRecord } from '../upstream/execute.ts';
import { SERVER_NAME, VERSION } from '../version.ts';
import { sampleFullSchema, withListedSchema } from './checked-schema.ts';
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

/**
 * The tool `name` denotes in this scope. In tools mode a client calls the names its profile listed (which may be
 * shortened), and the catalogue's own names and aliases; the meta-tools hand out catalogue names.
 */
export function resolveTool(scope: RequestScope, name: string): CatalogueTool | undefined {
  const i = scope.mode === 'tools' ? viewOf(scope.catalogue, scope.slice, scope.profile).resolve(name) : scope.catalogue.indexOf(name);
  return i !== undefined && scope.slice.has(i) ? scope.catalogue.tool(i) : undefined;
}

/** Runs `name` with `args` for this scope. Throws UnknownToolError; every other failure is an isError result. */
export async function callTool(scope: RequestScope, name: string, args: Record<string, unknown>): Promise<ToolCall> {
  const tool = resolveTool(scope, name);
  if (!tool) throw new UnknownToolError(name);
  const started = Date.now();
  const { result, record } = await run(scope, tool, args);
  log('tool_call', {
    tool: tool.name,
    caller: scope.caller.id,
    ...record,
    isError: result.isError === true,
    latencyMs: Date.now() - started,
    resultBytes: JSON.stringify(result).length,
  });
  return { tool, result };
}

async function run(scope: RequestScope, tool: CatalogueTool, args: Record<string, unknown>): Promise<{ result: CallToolResult; record: CallRecord }> {
  const check = validate(tool.inputSchema, args);
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
  });
  if (checked !== tool) sampleFullSchema(tool, call.result);
  // Upstreams may echo request headers; the caller's credentials never leave in a result.
  return { result: redactSecrets(call.result, caller.secrets), record: call.record };
}
