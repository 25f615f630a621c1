// Usage retention: the cron cleanup keeps hourly and daily rows for their configured days, in bounded chunks,
// and runs through the Worker entry's scheduled handler.
import { createScheduledController } from 'cloudflare:test';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import worker from '../../src/index.ts';
import { UsageAggregator } from '../../src/usage/aggregator.ts';
import { cleanupUsage } from '../../src/usage/retention.ts';
import { freshUsageDb } from './fixtures/usage-db.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 10, 30, 12, 30);

let db: D1Database;
beforeEach(async () => {
  db = await freshUsageDb();
});

/** One call `ago` ms before NOW for each age, so each age has one hourly and one daily row. */
async function callsAt(ages: number[], keyId = 'key:k1'): Promise<void> {
  const agg = new UsageAggregator({ db, retryDelaysMs: [] });
  for (const ago of ages) agg.record({ keyId, tool: `t${ago}`, outcome: 'ok', latencyMs: 5, at: NOW - ago });
  await agg.flush();
}

async function starts(grain: 'h' | 'd'): Promise<number[]> {
  const r = await db.prepare('SELECT start FROM usage WHERE grain = ? ORDER BY start').bind(grain).all<{ start: number }>();
  return r.results.map((x) => (NOW - x.start * 1000) / HOUR);
}

describe('cleanupUsage', () => {
  it('keeps hourly rows for hourlyDays and daily rows for dailyDays, and drops old batch ids and loss rows', async () => {
    // Ages in hours from NOW (12:30): the hourly rows start on the hour, so 12:00 is 0.5 h old.
    await callsAt([0, 13 * DAY + 23 * HOUR, 14 * DAY + HOUR, 20 * DAY, 89 * DAY, 91 * DAY, 120 * DAY]);
    await db.batch([
      db.prepare('INSERT INTO usage_flushes (at, id) VALUES (?, ?)').bind((NOW - 2 * DAY) / 1000, 'old'),
      db.prepare('INSERT INTO usage_flushes (at, id) VALUES (?, ?)').bind((NOW - HOUR) / 1000, 'new'),
      db.prepare('INSERT INTO usage_loss (start, calls, rows) VALUES (?, 1, 1), (?, 2, 1)').bind((NOW - 100 * DAY) / 1000, (NOW - 10 * DAY) / 1000),
    ]);
    const hourlyBefore = await starts('h');
    expect(hourlyBefore).toHaveLength(7);

    const r = await cleanupUsage(db, { dailyDays: 90, hourlyDays: 14 }, NOW);
    expect(r).toMatchObject({ hourly: 5, daily: 2, loss: 1, complete: true });
    expect(r.batchIds).toBeGreaterThanOrEqual(1);
    // Hourly: the current hour and 13 d 23 h ago stay; 14 d 1 h and older go.
    expect(await starts('h')).toEqual([13 * 24 + 23.5, 0.5]);
    // Daily (one row per tool): the current day and the 90 days before it stay; 91 and 120 days ago go.
    expect((await starts('d')).map((h) => Math.round((h - 12.5) / 24))).toEqual([89, 20, 14, 14, 0]);
    expect((await db.prepare('SELECT id FROM usage_flushes').all()).results.map((x) => x.id)).toContain('new');
    expect((await db.prepare('SELECT id FROM usage_flushes').all()).results.map((x) => x.id)).not.toContain('old');
    expect(await db.prepare('SELECT calls FROM usage_loss').all()).toMatchObject({ results: [{ calls: 2 }] });
    // Readers learn from here that hourly rows are complete only from the cutoff on.
    expect(await db.prepare("SELECT value FROM usage_meta WHERE name = 'hourly_from'").first('value')).toBe(Date.UTC(2026, 10, 16, 12) / 1000);
  });

  it('deletes in chunks and reports an unfinished run, which the next run completes', async () => {
    await callsAt([30 * DAY, 31 * DAY, 32 * DAY, 33 * DAY, 34 * DAY, 0]);
    const first = await cleanupUsage(db, { dailyDays: 90, hourlyDays: 14 }, NOW, 2, 2);
    expect(first).toMatchObject({ hourly: 4, complete: false });
    const second = await cleanupUsage(db, { dailyDays: 90, hourlyDays: 14 }, NOW, 2, 10);
    expect(second).toMatchObject({ hourly: 1, daily: 0, complete: true });
    expect(await starts('h')).toEqual([0.5]);
    expect(await starts('d')).toHaveLength(6);
  });
});

describe('scheduled handler', () => {
  it('the Worker entry runs the cleanup on its cron with the retention from vars', async () => {
    await callsAt([0, 3 * DAY, 10 * DAY]);
    const lines: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    try {
      const env = { USAGE: db, USAGE_RETENTION_DAYS: '5', USAGE_HOURLY_RETENTION_DAYS: '2' };
      await worker.scheduled(createScheduledController({ scheduledTime: NOW, cron: '17 * * * *' }), env);
    } finally {
      spy.mockRestore();
    }
    expect(await starts('h')).toEqual([0.5]);
    expect(await starts('d')).toEqual([3 * 24 + 12.5, 12.5]);
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.event === 'usage_cleanup');
    expect(logged).toMatchObject({ cron: '17 * * * *', retention: { dailyDays: 5, hourlyDays: 2 }, deleted: { hourly: 2, daily: 1 } });
  });
});
