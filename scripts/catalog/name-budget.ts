// The one tool-name budget shared by every client: each client's own limit minus the prefix it adds around the
// server name, for server names up to SERVER_NAME_ALLOWANCE characters. Rules: docs/naming.md.

/** Longest server name (the key a user gives the server in their client config) every budget allows for. */
export const SERVER_NAME_ALLOWANCE = 16;

export interface ClientNameRule {
  client: string;
  /** The client's rule, as documented in docs/naming.md. */
  rule: string;
  /** Longest tool name the client takes with a server name of `server` characters. */
  maxTool: (server: number) => number;
}

export const CLIENT_NAME_RULES: readonly ClientNameRule[] = [
  { client: 'Claude', rule: '`mcp__<server>__<tool>` at most 64 characters', maxTool: (s) => 64 - 'mcp__'.length - s - '__'.length },
  { client: 'Cursor', rule: 'server name + tool name at most 60 characters, else the tool is dropped', maxTool: (s) => 60 - s },
  { client: 'Gemini', rule: '`mcp_<server>_<tool>`, cut past 63 characters', maxTool: (s) => 63 - 'mcp_'.length - s - '_'.length },
  { client: 'OpenAI', rule: 'tool name at most 64 characters', maxTool: () => 64 },
  { client: 'VS Code', rule: 'tool name at most 64 characters of `[a-z0-9_-]`', maxTool: () => 64 },
];

/** The tightest client budget: 41 with a 16-character server name (Claude: 64 - 5 - 16 - 2). */
export const NAME_BUDGET = Math.min(...CLIENT_NAME_RULES.map((r) => r.maxTool(SERVER_NAME_ALLOWANCE)));
