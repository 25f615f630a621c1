// tools/call: validate the arguments against the tool's inputSchema, then run the HTTP operation.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { redactSecrets } from '../auth/redact.ts';
import { validate } from '../catalogue/validator.ts';
import type { CatalogueTool } from '../catalogue/types.ts';
import { executeTool } from '../upstream/execute.ts';
import { SERVER_NAME, VERSION } from '../version.ts';
import type { RequestScope } from './mcp-server.ts';

export async function callTool(tool: CatalogueTool, args: Record<string, unknown>, scope: RequestScope): Promise<CallToolResult> {
  const check = validate(tool.inputSchema, args);
  if (!check.valid) {
    // Per MCP 2025-11-25, argument errors are tool results so the model can correct itself.
    log({ tool: tool.name, caller: scope.caller.id, outcome: 'invalid_arguments', errors: check.errors.length });
    return {
      isError: true,
      content: [{ type: 'text', text: `Invalid arguments for ${tool.name}:\n${check.errors.map((e) => `- ${e}`).join('\n')}\nCheck the tool's inputSchema and call it again.` }],
    };
  }
  const { config, caller } = scope;
  try {
    // Upstreams may echo request headers; the caller's credentials never leave in a result.
    return redactSecrets(await executeTool(tool, args, {
      upstreamUrl: config.upstreamUrl,
      headers: caller.upstreamHeaders,
      timeoutMs: config.timeoutMs,
      maxResponseBytes: config.maxResponseBytes,
      maxResultTokens: config.maxResultTokens,
      userAgent: `${SERVER_NAME}/${VERSION}`,
      keyId: caller.id,
    }), caller.secrets);
  } catch (error) {
    // executeTool turns upstream failures into results; reaching here is a bug, so say little and log it.
    log({ tool: tool.name, caller: caller.id, outcome: 'internal_error', error: error instanceof Error ? error.message : String(error) });
    return { isError: true, content: [{ type: 'text', text: `Internal error while calling ${tool.name}. Try again later.` }] };
  }
}

function log(line: Record<string, unknown>): void {
  console.log(JSON.stringify({ event: 'tools/call', ...line }));
}
