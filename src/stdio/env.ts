// The stdio server's environment, read by the same rules as the Worker's MCP URLs (src/pipeline/url-params.ts):
// a switch takes only the yes/no words (src/lib/flags.ts), a list names at least one thing, and a misspelt variable
// stops the server rather than being ignored (MCP_READONY=1 must not serve write tools). Unlike a URL, an
// environment holds other programs' variables too, Claude Code's MCP_TIMEOUT among them, so only MCP_* names that
// look like one of ours (the same letters in another case or with other separators, or up to two edits away) count
// as misspellings; every other variable is left alone.
import { booleanError, parseBoolean } from '../lib/flags.ts';
import { editDistance } from '../lib/nearest.ts';

/** Thrown for configuration mistakes; the launcher prints the message and exits with status 2. */
export class UsageError extends Error {}

/** The MCP_* variables the server reads (bin/mcp-catalogue.js reads MCP_CATALOG). */
export const MCP_VARIABLES = ['MCP_UPSTREAM_URL', 'MCP_TOOLSETS', 'MCP_TOOLS', 'MCP_READONLY', 'MCP_CATALOG'] as const;

/** Refuses an environment with a variable that is probably a misspelling of one of MCP_VARIABLES. */
export function checkVariableNames(env: Record<string, string | undefined>): void {
  const known = MCP_VARIABLES.map((name) => ({ name, key: squash(name) }));
  for (const name of Object.keys(env)) {
    if ((MCP_VARIABLES as readonly string[]).includes(name) || !/^mcp/i.test(name)) continue;
    const key = squash(name);
    const near = known.map((k) => ({ ...k, distance: editDistance(key, k.key) })).sort((a, b) => a.distance - b.distance)[0]!;
    if (near.distance <= 2) throw new UsageError(`${name} is not a variable this server reads; did you mean ${near.name}? Valid: ${MCP_VARIABLES.join(', ')}`);
  }
}

/** A yes/no variable: unset or empty is `fallback`; one of the yes/no words in any case; anything else an error. */
export function booleanVariable(env: Record<string, string | undefined>, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = parseBoolean(raw);
  if (value === undefined) throw new UsageError(booleanError(name, raw));
  return value;
}

/** A comma-separated list: unset or empty is undefined; a value that names nothing (",") is an error. */
export function listVariable(env: Record<string, string | undefined>, name: string): string[] | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const list = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (!list.length) throw new UsageError(`${name} names nothing: give comma-separated names, or leave it unset.`);
  return list;
}

function squash(name: string): string {
  return name.toUpperCase().replace(/[^A-Z0-9]/g, '');
}
