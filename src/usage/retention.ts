// Deletes usage rows past their retention, from the cron trigger (wrangler.toml [triggers]).
// Deletes go in bounded chunks, so a first run after shortening the retention cannot hit D1's query time limit;
// what one run leaves, the next finishes.
import { log } from '../lib/log.ts';
import { retentionOf, type Retention } from './config.ts';
import type { UsageEnv } from './isolate.ts';
import { DAY_S, FLUSHES_TABLE, HOUR_S, HOURLY_FROM, LOSS_TABLE, META_TABLE, TABLE } from './schema.ts';

export interface CleanupResult {
  /** Rows deleted per kind. */
  hourly: number;
  daily: number;
  loss: number;
  batchIds: number;
  /** False when the chunk budget ran out before everything old was gone. */
  complete: boolean;
}

/** Batch ids only guard retries of a batch (seconds apart); a day is ample. */
const BATCH_ID_TTL_S = DAY_S;

/**
 * Hourly rows are kept for `hourlyDays` × 24 hours before the current hour; daily rows for `dailyDays` days before
 * the current UTC day (so the current day and `dailyDays` full days before it).
 */
export async function cleanupUsage(db: D1Database, retention: Retention, nowMs: number, chunk = 5000, maxChunks = 40): Promise<CleanupResult> {
  const now = Math.floor(nowMs / 1000);
  const hour = now - (now % HOUR_S);
  const day = now - (now % DAY_S);
  const result: CleanupResult = { hourly: 0, daily: 0, loss: 0, batchIds: 0, complete: true };
  const jobs: Array<[keyof Omit<CleanupResult, 'complete'>, string, Array<string | number>]> = [
    ['hourly', `DELETE FROM ${TABLE} WHERE (grain, start, key_id, tool) IN (SELECT grain, start, key_id, tool FROM ${TABLE} WHERE grain = 'h' AND start < ? LIMIT ?)`, [hour - retention.hourlyDays * DAY_S]],
    ['daily', `DELETE FROM ${TABLE} WHERE (grain, start, key_id, tool) IN (SELECT grain, start, key_id, tool FROM ${TABLE} WHERE grain = 'd' AND start < ? LIMIT ?)`, [day - retention.dailyDays * DAY_S]],
    ['loss', `DELETE FROM ${LOSS_TABLE} WHERE start IN (SELECT start FROM ${LOSS_TABLE} WHERE start < ? LIMIT ?)`, [day - retention.dailyDays * DAY_S]],
    ['batchIds', `DELETE FROM ${FLUSHES_TABLE} WHERE (at, id) IN (SELECT at, id FROM ${FLUSHES_TABLE} WHERE at < ? LIMIT ?)`, [now - BATCH_ID_TTL_S]],
  ];
  // Readers switch to daily rows for windows that start before this (query.ts); written first, so it is never late.
  await db
    .prepare(`INSERT INTO ${META_TABLE} (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = max(value, excluded.value)`)
    .bind(HOURLY_FROM, hour - retention.hourlyDays * DAY_S)
    .run();
  let budget = maxChunks;
  for (const [kind, sql, params] of jobs) {
    for (;;) {
      if (budget-- <= 0) {
        result.complete = false;
        return result;
      }
      const r = await db.prepare(sql).bind(...params, chunk).run();
      const changes = r.meta.changes ?? 0;
      result[kind] += changes;
      if (changes < chunk) break;
    }
  }
  return result;
}

/** The Worker's `scheduled` handler: the usage cleanup. */
export async function usageScheduled(controller: ScheduledController, env: UsageEnv): Promise<void> {
  if (!env.USAGE) {
    log('usage_cleanup', { skipped: 'no USAGE binding' });
    return;
  }
  const retention = retentionOf(env);
  try {
    const deleted = await cleanupUsage(env.USAGE, retention, controller.scheduledTime);
    log('usage_cleanup', { cron: controller.cron, retention, deleted });
  } catch (e) {
    log('usage_cleanup_failed', { error: e instanceof Error ? e.message : String(e) });
    throw e;
  }
}
