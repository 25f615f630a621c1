// Schemas that heal themselves: every output-schema mismatch of a tool is counted, and when a tool reaches the
// threshold within the window (SCHEMA_AUTODROP_THRESHOLD, default 5, in SCHEMA_AUTODROP_WINDOW_SECONDS, default 600)
// its outputSchema goes on the runtime drop list with reason "auto" (docs/sweep.md).
//
// The count lives in the SchemaMismatchCounter Durable Object (mismatch-counter.ts says why). Without that
// binding each isolate counts for itself and writes the drop itself. Either way the isolate that learns of a drop
// applies it at once; the others read it from KV within the drop list's TTL.
import type { Env } from '../config.ts';
import { log, logOnce } from '../lib/log.ts';
import type { DropEntry } from './drop-list.ts';
import { addLocalDrop, type DropState } from './drops.ts';
import { mismatchCounter } from './mismatch-counter.ts';
import { autoDropEntry, autoDropSettings, commitAutoDrop, countMismatch, type AutoDropSettings, type Mismatch } from './mismatch-window.ts';

type AutoDropEnv = Pick<Env, 'CONFIG' | 'KEYS' | 'SCHEMA_MISMATCH_COUNTER' | 'SCHEMA_AUTODROP_THRESHOLD' | 'SCHEMA_AUTODROP_WINDOW_SECONDS'>;

/** A mismatching call waits at most this long for the counter; the count is then lost, the call is not. */
const COUNTER_TIMEOUT_MS = 3000;

/** What the automatic drop keeps in an isolate: the drop list it applies, and the fallback's windows per tool. */
export interface AutoDropState {
  drops: DropState;
  windows: Map<string, Mismatch[]>;
}

/**
 * Counts one mismatch of `tool` (its canonical name) with its first validation errors, and applies the drop in this
 * isolate when it reaches the threshold. Never throws: a counting failure is logged and the call goes on.
 */
export async function noteSchemaMismatch(state: AutoDropState, env: AutoDropEnv | undefined, tool: string, errors: readonly string[], now = Date.now()): Promise<void> {
  const settings = autoDropSettings(env);
  if (!settings) return;
  const error = errors[0] ?? '/: the response did not match the outputSchema';
  let dropped: DropEntry | undefined;
  try {
    if (env?.SCHEMA_MISMATCH_COUNTER) {
      const report = mismatchCounter(env.SCHEMA_MISMATCH_COUNTER).report(tool, error, settings);
      dropped = (await withTimeout(report, COUNTER_TIMEOUT_MS)).dropped;
    } else {
      logOnce('binding:SCHEMA_MISMATCH_COUNTER', 'binding_missing', { binding: 'SCHEMA_MISMATCH_COUNTER', effect: 'schema mismatches are counted per isolate' });
      dropped = await countInIsolate(state.windows, env, tool, { at: now, error }, settings);
    }
  } catch (e) {
    log('schema_counter_error', { tool, error: (e as Error).message });
    return;
  }
  if (dropped) addLocalDrop(state.drops, tool, dropped, now);
}

async function countInIsolate(windows: Map<string, Mismatch[]>, env: AutoDropEnv | undefined, tool: string, next: Mismatch, settings: AutoDropSettings): Promise<DropEntry | undefined> {
  const { window, reached } = countMismatch(windows.get(tool) ?? [], next, settings);
  if (!reached) {
    windows.set(tool, window);
    return undefined;
  }
  windows.delete(tool);
  const entry = autoDropEntry(window, settings, next.at);
  await commitAutoDrop(env, tool, entry, 'isolate');
  return entry;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the schema mismatch counter did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => timer !== undefined && clearTimeout(timer));
}
