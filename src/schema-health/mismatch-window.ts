// When a tool's output-schema mismatches add up to an automatic drop (docs/sweep.md, "Schemas that heal themselves"):
// the settings, the sliding window, and the drop itself (stored list + log line). Used by the counter Durable Object
// (mismatch-counter.ts) and by the isolate fallback when that binding is absent (autodrop.ts).
import type { Env } from '../config.ts';
import { log } from '../lib/log.ts';
import { AUTO_REASON, type DropEntry } from './drop-list.ts';
import { addToStoredDrops, kvOf } from './drops.ts';

export interface AutoDropSettings {
  /** Mismatches within the window that drop the schema; at least 2, so one bad response never does. */
  threshold: number;
  windowMs: number;
}

const DEFAULT_THRESHOLD = 5;
const DEFAULT_WINDOW_SECONDS = 600;

/** SCHEMA_AUTODROP_THRESHOLD ("0" or "off" switches automatic drops off) and SCHEMA_AUTODROP_WINDOW_SECONDS. */
export function autoDropSettings(env: Pick<Env, 'SCHEMA_AUTODROP_THRESHOLD' | 'SCHEMA_AUTODROP_WINDOW_SECONDS'> | undefined): AutoDropSettings | undefined {
  const raw = (env?.SCHEMA_AUTODROP_THRESHOLD ?? '').trim().toLowerCase();
  if (raw === '0' || raw === 'off' || raw === 'false') return undefined;
  const n = Number(raw);
  const threshold = raw && Number.isInteger(n) && n > 0 ? Math.max(2, n) : DEFAULT_THRESHOLD;
  const w = Number(env?.SCHEMA_AUTODROP_WINDOW_SECONDS);
  return { threshold, windowMs: (Number.isFinite(w) && w > 0 ? w : DEFAULT_WINDOW_SECONDS) * 1000 };
}

/** One mismatch: when, and the first validation error ("<instance path>: <message>"). */
export interface Mismatch {
  at: number;
  error: string;
}

/**
 * Adds a mismatch to a tool's window (oldest first). Returns the mismatches still inside the window, at most
 * `threshold` of them, and whether they reach the threshold.
 */
export function countMismatch(window: readonly Mismatch[], next: Mismatch, s: AutoDropSettings): { window: Mismatch[]; reached: boolean } {
  const kept = [...window.filter((m) => m.at > next.at - s.windowMs), next].slice(-s.threshold);
  return { window: kept, reached: kept.length >= s.threshold };
}

/** The drop list entry for a window that reached the threshold: reason "auto" and the first mismatch's path. */
export function autoDropEntry(window: readonly Mismatch[], s: AutoDropSettings, now: number): DropEntry {
  const first = window[0]?.error ?? '';
  const sep = first.indexOf(': ');
  const path = sep > 0 ? first.slice(0, sep) : '/';
  return {
    reason: AUTO_REASON,
    at: new Date(now).toISOString(),
    path,
    detail: `${window.length} responses failed the outputSchema within ${Math.round(s.windowMs / 1000)} s; first: ${first.slice(0, 300) || '(no detail)'}`,
  };
}

/**
 * Puts the drop on the stored list and logs it (event schema_auto_drop), once per drop: a tool already on the list is
 * neither written nor logged again. Without a KV namespace the drop stays in the isolates that learn of it.
 */
export async function commitAutoDrop(env: Pick<Env, 'CONFIG' | 'KEYS'> | undefined, tool: string, entry: DropEntry, counter: 'durable_object' | 'isolate'): Promise<void> {
  const kv = kvOf(env);
  let stored: 'written' | 'listed_already' | 'no_kv' | 'failed' = 'no_kv';
  let error: string | undefined;
  try {
    if (kv) stored = (await addToStoredDrops(kv, tool, entry)) ? 'written' : 'listed_already';
  } catch (e) {
    stored = 'failed';
    error = (e as Error).message;
  }
  if (stored === 'listed_already') return;
  log('schema_auto_drop', { tool, path: entry.path, detail: entry.detail, counter, stored, ...(error ? { error } : {}) });
}
