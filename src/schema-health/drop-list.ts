// The runtime schema drop list as stored in KV: its key, its shape and a tolerant parser. Shared by the Worker
// (src/schema-health/drops.ts applies it, autodrop.ts adds to it) and the operator CLI (`npm run schema`),
// so it uses no Worker types.
//   { "tools": { "<tool name>": { "reason": "…", "at": "2026-11-30T…Z" } } }
// An automatic drop has reason "auto", the instance path of the first mismatch in `path`, and what happened in `detail`.

export const DROPS_KEY = 'schema-drops';

/** The reason of a drop the worker made by itself (src/schema-health/autodrop.ts). */
export const AUTO_REASON = 'auto';

export interface DropEntry {
  reason: string;
  at?: string;
  /** Automatic drops: where the first mismatch was, e.g. "/labels/0/name". */
  path?: string;
  /** Automatic drops: the count, window and first error. */
  detail?: string;
}

export interface DropList {
  tools: Record<string, DropEntry>;
}

/** Parses the stored value; anything malformed yields an empty list plus an error message. */
export function parseDrops(text: string | null): { list: DropList; error?: string } {
  if (!text) return { list: { tools: {} } };
  try {
    const raw = JSON.parse(text) as unknown;
    const tools = (raw as { tools?: unknown })?.tools;
    if (!tools || typeof tools !== 'object' || Array.isArray(tools)) return { list: { tools: {} }, error: `${DROPS_KEY}: expected {"tools": {...}}` };
    const out: Record<string, DropEntry> = {};
    for (const [name, e] of Object.entries(tools as Record<string, unknown>)) {
      const entry = (e ?? {}) as Partial<DropEntry>;
      out[name] = { reason: typeof entry.reason === 'string' ? entry.reason : 'dropped by the operator' };
      for (const k of ['at', 'path', 'detail'] as const) if (typeof entry[k] === 'string') out[name][k] = entry[k];
    }
    return { list: { tools: out } };
  } catch (e) {
    return { list: { tools: {} }, error: `${DROPS_KEY}: not JSON (${(e as Error).message})` };
  }
}
