// The last drift check's outcome: one JSON value under the KV key `spec-drift`, in CONFIG when bound, else in KEYS
// (beside the schema drop list; KEYS' own keys are prefixed `key:`/`used:`). The scheduled check writes it; /healthz
// and /admin/schema-health read it, through a per-isolate copy kept for 30 s so a public /healthz costs at most one KV
// read per isolate per 30 s. The isolate that ran the check keeps what it wrote at once (wrangler dev's
// /__scheduled runs in the serving isolate, so a local check shows on the next /healthz).
import type { Env } from '../config.ts';

export const DRIFT_KEY = 'spec-drift';
const CACHE_MS = 30_000;
/** Operations named per kind in the record (the counts are always whole). */
export const NAMED_MAX = 100;

export interface DriftRecord {
  v: 1;
  /** The catalogue source digest this outcome compares against; a record for another catalogue is ignored. */
  catalogueDigest: string;
  source: string;
  checkedAt: string;
  /** The live spec's digest differs from the catalogue's (as of the last successful read). */
  stale: boolean;
  added: number;
  removed: number;
  /** Null when no fingerprints of the catalogue's spec exist (a catalogue without spec-operations.json). */
  changed: number | null;
  /** The last check failed (the fetch, the size, the parse); stale and the counts are those of the last good read. */
  error?: string;
  /** The live spec's digest at the last successful read. */
  digest?: string;
  /** When the spec was last read or confirmed unchanged (HTTP 304). */
  readAt?: string;
  /** "asset" (spec-operations.json, exact) or "catalogue" (the served tools' method and path; no `changed`). */
  baseline?: 'asset' | 'catalogue';
  /** The first NAMED_MAX operations of each kind, "METHOD /path". */
  operations?: { added: string[]; removed: string[]; changed: string[] };
  etag?: string;
  lastModified?: string;
}

type StoreEnv = Pick<Env, 'CONFIG' | 'KEYS'>;

const kvOf = (env: StoreEnv): KVNamespace | undefined => env.CONFIG ?? env.KEYS;

let cached: { record: DriftRecord | undefined; at: number; error?: string } | undefined;

function parse(text: string | null): DriftRecord | undefined {
  if (!text) return undefined;
  const v = JSON.parse(text) as DriftRecord;
  return v && v.v === 1 && typeof v.catalogueDigest === 'string' && typeof v.checkedAt === 'string' ? v : undefined;
}

/** The stored outcome (isolate copy up to 30 s old); an unreadable store yields `error` and no record. */
export async function readDrift(env: StoreEnv, opts: { fresh?: boolean } = {}, now = Date.now()): Promise<{ record?: DriftRecord; error?: string }> {
  if (cached && !opts.fresh && now - cached.at < CACHE_MS) return { record: cached.record, ...(cached.error ? { error: cached.error } : {}) };
  const kv = kvOf(env);
  if (!kv) return { record: cached?.record };
  try {
    const record = parse(await kv.get(DRIFT_KEY));
    cached = { record, at: now };
    return { record };
  } catch (e) {
    const error = `cannot read the last check: ${(e as Error).message}`;
    cached = { record: cached?.record, at: now, error };
    return { record: cached.record, error };
  }
}

/** Stores the outcome and makes this isolate show it at once. */
export async function writeDrift(env: StoreEnv, record: DriftRecord, now = Date.now()): Promise<{ stored: 'written' | 'no_kv' | 'failed'; error?: string }> {
  cached = { record, at: now };
  const kv = kvOf(env);
  if (!kv) return { stored: 'no_kv' };
  try {
    await kv.put(DRIFT_KEY, JSON.stringify(record));
    return { stored: 'written' };
  } catch (e) {
    return { stored: 'failed', error: (e as Error).message };
  }
}
