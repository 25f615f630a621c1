// The query string of an MCP route, read strictly: every parameter is known, given at most once and well formed,
// or the request is refused with 400 naming what is valid. A URL is often all a customer controls (a connector
// takes nothing else), so a misspelt parameter (?readnoly=1, ?toolset=issues) or value (?readonly=yes-please) must
// not fall back to serving everything.
import { booleanError, BOOLEAN_WORDS, parseBoolean } from '../lib/flags.ts';

/** Every query parameter the MCP routes take (README, "Connect"): a tool list, read-only, the mode, the client. */
export const MCP_PARAMS = ['tools', 'readonly', 'mode', 'client'] as const;

export interface McpParams {
  /** ?tools=a,b */
  tools?: string[];
  /** ?readonly=<boolean> */
  readOnly?: boolean;
  /** ?mode= (checked against the route by the pipeline) */
  mode?: string;
  /** ?client= (a profile id, checked by the pipeline) */
  client?: string;
}

export type ParamsOutcome = { ok: true; params: McpParams } | { ok: false; body: Record<string, unknown> };

export function readMcpParams(url: URL): ParamsOutcome {
  const names = [...url.searchParams.keys()];
  const unknown = [...new Set(names.filter((n) => !(MCP_PARAMS as readonly string[]).includes(n)))];
  if (unknown.length) {
    const shown = unknown.slice(0, 10).map((n) => n.slice(0, 60));
    return refuse('unknown_parameter', `Unknown URL parameter${shown.length > 1 ? 's' : ''}: ${shown.join(', ')}. Valid parameters: ${MCP_PARAMS.join(', ')}`, { unknown: shown, valid: MCP_PARAMS });
  }
  const repeated = MCP_PARAMS.filter((n) => url.searchParams.getAll(n).length > 1);
  if (repeated.length) return refuse('repeated_parameter', `Give each URL parameter once: ${repeated.join(', ')} appears more than once (tools takes a comma-separated list).`, { repeated });

  const params: McpParams = {};
  const tools = url.searchParams.get('tools');
  if (tools !== null) {
    const list = tools.split(',').map((s) => s.trim()).filter(Boolean);
    if (!list.length) return refuse('invalid_tools', 'tools= names no tool: give comma-separated tool names, or leave the parameter out.');
    params.tools = list;
  }
  const readonly = url.searchParams.get('readonly');
  if (readonly !== null) {
    const value = parseBoolean(readonly);
    if (value === undefined) return refuse('invalid_readonly', booleanError('readonly', readonly), { valid: BOOLEAN_WORDS });
    params.readOnly = value;
  }
  const mode = url.searchParams.get('mode');
  if (mode !== null) params.mode = mode;
  const client = url.searchParams.get('client');
  if (client !== null) params.client = client;
  return { ok: true, params };
}

function refuse(error: string, message: string, extra: Record<string, unknown> = {}): ParamsOutcome {
  return { ok: false, body: { error, message, ...extra } };
}
