// Client profiles: the known rules of each MCP client (docs/slices-profiles-discovery.md), applied to tools/list
// and tools/call. Chosen by ?client=, or inferred from the client's name (initialize clientInfo, or the
// 2026-07-28 per-request _meta client info).

export type ProfileId = 'default' | 'cursor' | 'claude' | 'openai' | 'gemini' | 'vscode';

export interface Profile {
  id: ProfileId;
  /** Display name used in warnings. */
  label: string;
  /**
   * Longest tool name the client takes after its own prefix, for a server name of up to SERVER_NAME_ALLOWANCE
   * chars. Informational: the generator keeps every name within the tightest of these (docs/naming.md), and no
   * profile renames a tool.
   */
  maxName: number;
  /** Tools the client takes (or uses well); a slice above it is served as a hybrid list (src/discovery/hybrid.ts). */
  maxTools?: number;
  /**
   * Schema dialect of the listing:
   * - standard: the catalogue's schemas (draft-07 / 2020-12 common subset);
   * - gemini: no $ref/$defs (inlined), no additionalProperties, no root-level composition;
   * - vscode: draft-07-clean inputSchema ($defs -> definitions, 2020-12-only keywords removed);
   * - strict: OpenAI strict function calling (strict-schema.ts); arguments are mapped back (strict-arguments.ts).
   */
  dialect: 'standard' | 'gemini' | 'vscode' | 'strict';
  /** Which result fields carry the data: both (structuredContent + text), or content only (no outputSchema advertised). */
  carry: 'both' | 'content';
}

/** Server names up to this long fit every profile's name budget (docs/naming.md: the same allowance). */
export const SERVER_NAME_ALLOWANCE = 16;

export const PROFILES: Record<ProfileId, Profile> = {
  // Unknown clients: the generator's names (at most 41 chars) fit every known client.
  default: { id: 'default', label: 'default', maxName: 64, dialect: 'standard', carry: 'both' },
  // Cursor: server + tool name <= 60 chars, soft limit of 40 tools.
  cursor: { id: 'cursor', label: 'Cursor', maxName: 60 - SERVER_NAME_ALLOWANCE, maxTools: 40, dialect: 'standard', carry: 'both' },
  // Claude: mcp__<server>__<tool> <= 64. Claude Code shows structuredContent, claude.ai reads content: keep both.
  claude: { id: 'claude', label: 'Claude', maxName: 64 - 7 - SERVER_NAME_ALLOWANCE, dialect: 'standard', carry: 'both' },
  // OpenAI: names <= 64, at most 128 tools, arrays need items; strict function calling needs the strict form.
  openai: { id: 'openai', label: 'OpenAI', maxName: 64, maxTools: 128, dialect: 'strict', carry: 'both' },
  // Gemini: mcp_<server>_ prefix, truncated past 63; no $ref/$defs or additionalProperties; the model sees content only.
  gemini: { id: 'gemini', label: 'Gemini', maxName: 63 - 5 - SERVER_NAME_ALLOWANCE, dialect: 'gemini', carry: 'content' },
  // VS Code Copilot: draft-07-checked inputSchema, at most 128 tools, [a-z0-9_-] names.
  vscode: { id: 'vscode', label: 'VS Code', maxName: 64, maxTools: 128, dialect: 'vscode', carry: 'both' },
};

export const PROFILE_IDS = Object.keys(PROFILES).filter((p) => p !== 'default') as ProfileId[];

export function profileById(id: string | undefined): Profile | undefined {
  if (!id) return undefined;
  const key = id.trim().toLowerCase();
  // Own keys only: "__proto__" or "constructor" would otherwise name Object.prototype or Object as a profile.
  return Object.hasOwn(PROFILES, key) ? PROFILES[key as ProfileId] : undefined;
}

const INFER: Array<[RegExp, ProfileId]> = [
  [/cursor/i, 'cursor'],
  [/claude|anthropic/i, 'claude'],
  [/gemini|google/i, 'gemini'],
  [/visual studio code|vscode|vs code|copilot/i, 'vscode'],
  [/openai|chatgpt|codex/i, 'openai'],
];

/** Profile from a client's self-reported name (clientInfo.name); default when unknown. */
export function inferProfile(clientName: string | undefined): Profile {
  if (clientName) for (const [re, id] of INFER) if (re.test(clientName)) return PROFILES[id];
  return PROFILES.default;
}

const CLIENT_INFO_META_KEY = 'io.modelcontextprotocol/clientInfo';

/** clientInfo.name from a JSON-RPC message: initialize params (2025 era) or params._meta (2026-07-28). */
export function clientNameOf(message: unknown): string | undefined {
  const first = Array.isArray(message) ? message[0] : message;
  if (!first || typeof first !== 'object') return undefined;
  const params = (first as { params?: Record<string, unknown> }).params;
  if (!params || typeof params !== 'object') return undefined;
  const direct = (params.clientInfo as { name?: unknown } | undefined)?.name;
  if (typeof direct === 'string') return direct;
  const meta = params._meta as Record<string, unknown> | undefined;
  const fromMeta = (meta?.[CLIENT_INFO_META_KEY] as { name?: unknown } | undefined)?.name;
  return typeof fromMeta === 'string' ? fromMeta : undefined;
}

/** A result for content-only clients: no structuredContent; the data stays in (or moves to) a text block. */
export function contentOnly<T extends { content?: unknown[]; structuredContent?: unknown }>(result: T): T {
  if (result.structuredContent === undefined) return result;
  const { structuredContent, ...rest } = result;
  const content = (rest.content ?? []) as Array<{ type?: string }>;
  if (content.some((b) => b.type === 'text')) return rest as T;
  return { ...rest, content: [{ type: 'text', text: JSON.stringify(structuredContent) }, ...content] } as T;
}
