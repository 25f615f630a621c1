// The usage store in workerd's D1: schema, batched flushes, retries, refused rows and an unavailable store.
import { afterEach, describe, expect, it, beforeEach, vi } from 'vitest';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { UsageAggregator } from '../../src/usage/aggregator.ts';
import { readUsageConfig } from '../../src/usage/config.ts';
import { isolateUsageStats, usageFor } from '../../src/usage/isolate.ts';
import { MAX_COLUMN, SUM_COLUMNS } from '../../src/usage/schema.ts';
import { countingDb, freshUsageDb } from './fixtures/usage-db.ts';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 30, 10, 15); // 2026-11-30 10:15 UTC
const quiet = { retryDelaysMs: [0, 0] };

// The one logger's lines (src/lib/log.ts), parsed; console.log is silenced in every test.
let logSpy: { mock: { calls: unknown[][] } };
beforeEach(() => {
  logSpy = vi.spyOn(console, 'log').mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());
const log = () => logSpy.mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>);

let db: D1Database;
beforeEach(async () => {
  db = await freshUsageDb();
});

async function usageRows(grain: 'h' | 'd'): Promise<Array<Record<string, number | string>>> {
  const r = await db.prepare('SELECT * FROM usage WHERE grain = ? ORDER BY start, key_id, tool').bind(grain).all<Record<string, number | string>>();
  return r.results;
}

describe('schema', () => {
  it('the migration creates exactly the columns src/usage/schema.ts writes and reads', async () => {
    const cols = (await db.prepare('PRAGMA table_info(usage)').all<{ name: string }>()).results.map((c) => c.name);
    expect(cols.sort()).toEqual(['grain', 'start', 'key_id', 'tool', ...SUM_COLUMNS, MAX_COLUMN].sort());
  });

  it('a D1 batch is all or nothing (the batch id that makes retries safe relies on it)', async () => {
    await expect(
      db.batch([db.prepare("INSERT INTO usage_flushes (at, id) VALUES (1, 'x')"), db.prepare("INSERT INTO usage (grain, start, key_id, tool) VALUES ('w', 0, 'k', 't')")]),
    ).rejects.toThrow(/CHECK constraint failed/);
    expect((await db.prepare('SELECT count(*) AS n FROM usage_flushes').first<{ n: number }>())!.n).toBe(0);
  });
});

describe('flush', () => {
  it('writes one batch of hourly and daily rows whose counts add up', async () => {
    const counted = countingDb(db);
    const agg = new UsageAggregator({ db: counted, ...quiet });
    for (let i = 0; i < 30; i++) {
      agg.record({ keyId: 'key:aaaa00000001', tool: 'repos_get', outcome: 'ok', latencyMs: 10 + i, resultBytes: 100, at: T0 + i * 1000 });
      agg.record({ keyId: 'key:aaaa00000001', tool: 'repos_get', outcome: 'ok', latencyMs: 20, resultBytes: 50, at: T0 + HOUR });
    }
    agg.record({ keyId: 'key:aaaa00000001', tool: 'issues_create', outcome: 'invalid_arguments', latencyMs: 1, resultBytes: 80, at: T0 });
    agg.record({ keyId: 'key:bbbb00000002', tool: 'repos_get', outcome: 'upstream_5xx', latencyMs: 300, resultBytes: 900, at: T0 });
    agg.record({ keyId: 'key:bbbb00000002', tool: '', outcome: 'rate_limited', at: T0 });
    expect(agg.stats().pending).toEqual({ cells: 5, calls: 63 });
    await agg.flush();
    expect(counted.batches).toBe(1);

    const hourly = await usageRows('h');
    expect(hourly).toHaveLength(5);
    const first = hourly.find((r) => r.tool === 'repos_get' && r.key_id === 'key:aaaa00000001' && r.start === Math.floor(T0 / HOUR) * 3600)!;
    expect(first).toMatchObject({ ok: 30, result_bytes: 3000, latency_sum_ms: 30 * 10 + 435, latency_max_ms: 39 });
    const daily = await usageRows('d');
    expect(daily).toHaveLength(4);
    expect(daily.find((r) => r.tool === 'repos_get' && r.key_id === 'key:aaaa00000001')).toMatchObject({ grain: 'd', start: Date.UTC(2026, 10, 30) / 1000, ok: 60, result_bytes: 4500 });
    expect(daily.find((r) => r.tool === '')).toMatchObject({ key_id: 'key:bbbb00000002', rate_limited: 1, ok: 0, l00: 0 });
    expect(daily.find((r) => r.key_id === 'key:bbbb00000002' && r.tool === 'repos_get')).toMatchObject({ upstream_5xx: 1, latency_max_ms: 300 });
    expect(agg.stats()).toMatchObject({ pending: { cells: 0, calls: 0 }, written: { cells: 5, calls: 63 }, batchesSent: 1, lost: { calls: 0 }, failedFlushes: 0 });
  });

  it('adds to rows already there (another isolate, an earlier flush)', async () => {
    const a = new UsageAggregator({ db, ...quiet });
    const b = new UsageAggregator({ db, ...quiet });
    a.record({ keyId: 'key:k1', tool: 't', outcome: 'ok', latencyMs: 5, at: T0 });
    b.record({ keyId: 'key:k1', tool: 't', outcome: 'ok', latencyMs: 500, at: T0 });
    b.record({ keyId: 'key:k1', tool: 't', outcome: 'timeout', latencyMs: 30_000, at: T0 });
    await Promise.all([a.flush(), b.flush()]);
    a.record({ keyId: 'key:k1', tool: 't', outcome: 'ok', latencyMs: 7, at: T0 });
    await a.flush();
    const [h] = await usageRows('h');
    expect(h).toMatchObject({ ok: 3, timeout: 1, latency_max_ms: 30_000, latency_sum_ms: 30_512 });
  });

  it('track() schedules one flush in waitUntil for all the calls that arrive meanwhile', async () => {
    const counted = countingDb(db);
    const agg = new UsageAggregator({ db: counted, ...quiet, flushDelayMs: 50 });
    const ctx = createExecutionContext();
    for (let i = 0; i < 20; i++) agg.track({ keyId: 'key:k1', tool: `t${i % 4}`, outcome: 'ok', latencyMs: 3 }, (p) => ctx.waitUntil(p));
    expect(counted.batches).toBe(0); // nothing touched the store on the call path
    await waitOnExecutionContext(ctx);
    expect(counted.batches).toBe(1);
    expect((await usageRows('h')).map((r) => r.ok)).toEqual([5, 5, 5, 5]);
  });
});

describe('stats', () => {
  it('calls in a flush under way stay pending until written, so pending + written + lost always adds up', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = { prepare: (sql: string) => db.prepare(sql), batch: async (st: D1PreparedStatement[]) => (await gate, db.batch(st)) } as unknown as D1Database;
    const agg = new UsageAggregator({ db: slow, ...quiet });
    for (let i = 0; i < 3; i++) agg.record({ keyId: 'key:k1', tool: 't', outcome: 'ok', latencyMs: 1, at: T0 });
    const flushing = agg.flush();
    agg.record({ keyId: 'key:k1', tool: 'u', outcome: 'ok', latencyMs: 1, at: T0 });
    expect(agg.stats()).toMatchObject({ pending: { cells: 2, calls: 4 }, written: { calls: 0 } });
    release();
    await flushing;
    expect(agg.stats()).toMatchObject({ pending: { cells: 1, calls: 1 }, written: { cells: 1, calls: 3 } });
  });
});

describe('failures', () => {
  it('retries a batch that failed before reaching the store', async () => {
    const counted = countingDb(db, (n) => (n === 1 ? 'before' : undefined));
    const agg = new UsageAggregator({ db: counted, ...quiet });
    agg.record({ keyId: 'key:k1', tool: 't', outcome: 'ok', latencyMs: 3, at: T0 });
    await agg.flush();
    expect(counted.batches).toBe(2);
    expect((await usageRows('h'))[0]).toMatchObject({ ok: 1 });
    expect(agg.stats()).toMatchObject({ lost: { calls: 0 }, failedFlushes: 0, batchesSent: 2 });
  });

  it('does not count twice when the store committed but the answer was lost', async () => {
    const counted = countingDb(db, (n) => (n === 1 ? 'after' : undefined));
    const agg = new UsageAggregator({ db: counted, ...quiet });
    agg.record({ keyId: 'key:k1', tool: 't', outcome: 'ok', latencyMs: 3, resultBytes: 10, at: T0 });
    await agg.flush();
    expect(counted.batches).toBe(2); // the retry hit the batch id already stored, so it is a no-op
    expect((await usageRows('h'))[0]).toMatchObject({ ok: 1, result_bytes: 10 });
    expect((await usageRows('d'))[0]).toMatchObject({ ok: 1 });
    expect(agg.stats().lost.calls).toBe(0);
  });

  it('a row the store refuses is dropped on its own, counted and logged; the rest of the batch lands', async () => {
    const agg = new UsageAggregator({ db, retryDelaysMs: [0] });
    const tools = ['a', 'b', 'c', 'x'.repeat(200), 'd', 'e', 'f'];
    for (const tool of tools) agg.record({ keyId: 'key:k1', tool, outcome: 'ok', latencyMs: 2, at: T0 });
    agg.record({ keyId: 'key:k1', tool: 'x'.repeat(200), outcome: 'upstream_4xx', latencyMs: 2, at: T0 });
    await agg.flush();
    expect((await usageRows('h')).map((r) => r.tool)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect((await usageRows('d')).map((r) => r.ok)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(agg.stats()).toMatchObject({ lost: { calls: 2, cells: 1 }, unreportedLoss: { calls: 0 }, pending: { cells: 0 } });
    expect(log()).toContainEqual(expect.objectContaining({ event: 'usage_lost', reason: 'refused', calls: 2, error: expect.stringMatching(/CHECK constraint/) }));
    // The loss is in the store too, for the CLI and /admin/usage.
    expect(await db.prepare('SELECT calls, rows FROM usage_loss').first()).toEqual({ calls: 2, rows: 1 });
  });

  it('store unavailable: calls are still recorded cheaply, kept, retried with back-off, then counted as lost', async () => {
    await db.exec('ALTER TABLE usage RENAME TO usage_offline');
    const counted = countingDb(db);
    const agg = new UsageAggregator({ db: counted, retryDelaysMs: [0], maxAttempts: 2 });
    for (let i = 0; i < 10; i++) expect(agg.record({ keyId: 'key:k1', tool: 't', outcome: 'ok', latencyMs: 4, at: T0 })).toBeUndefined();
    expect(counted.batches).toBe(0);

    await agg.flush(); // first failure: kept for later
    let s = agg.stats();
    expect(s).toMatchObject({ pending: { cells: 1, calls: 10 }, lost: { calls: 0 }, failedFlushes: 1 });
    expect(s.lastError?.message).toMatch(/no such table: usage/);
    expect(Date.parse(s.retryAfter!)).toBeGreaterThan(Date.now());
    expect(log()).toContainEqual(expect.objectContaining({ event: 'usage_flush_failed', kept: 1 }));

    agg.record({ keyId: 'key:k1', tool: 't', outcome: 'ok', latencyMs: 4, at: T0 });
    await agg.flush(); // second failure: maxAttempts reached, dropped and counted
    s = agg.stats();
    expect(s).toMatchObject({ pending: { cells: 0, calls: 0 }, lost: { calls: 11, cells: 1 }, unreportedLoss: { calls: 11, cells: 1 }, failedFlushes: 2 });
    expect(log()).toContainEqual(expect.objectContaining({ event: 'usage_lost', reason: 'store_unavailable', calls: 11 }));

    // The store is back: the next flush writes new calls and the loss.
    await db.exec('ALTER TABLE usage_offline RENAME TO usage');
    agg.record({ keyId: 'key:k1', tool: 't', outcome: 'ok', latencyMs: 4, at: T0 });
    await agg.flush();
    expect((await usageRows('h'))[0]).toMatchObject({ ok: 1 });
    expect(await db.prepare('SELECT calls, rows FROM usage_loss').first()).toEqual({ calls: 11, rows: 1 });
    expect(agg.stats()).toMatchObject({ unreportedLoss: { calls: 0 }, lost: { calls: 11 } });
  });

  it('a store that answers reads but refuses every write keeps the cells for later, within a bounded split', async () => {
    await db.exec("CREATE TRIGGER usage_read_only BEFORE INSERT ON usage BEGIN SELECT RAISE(ABORT, 'read only'); END");
    const counted = countingDb(db);
    const agg = new UsageAggregator({ db: counted, ...quiet });
    for (let i = 0; i < 64; i++) agg.record({ keyId: 'key:k1', tool: `t${i}`, outcome: 'ok', latencyMs: 2, at: T0 });
    await agg.flush();
    expect(counted.batches).toBeLessThanOrEqual(3 + 8 + 4); // the batch and its retries, then a split that gives up early
    expect(agg.stats()).toMatchObject({ pending: { cells: 64, calls: 64 }, lost: { calls: 0 }, failedFlushes: 1 });
    await db.exec('DROP TRIGGER usage_read_only');
    await agg.flush();
    expect(await usageRows('h')).toHaveLength(64);
    expect(agg.stats()).toMatchObject({ pending: { cells: 0 }, lost: { calls: 0 } });
  });

  it('a store back within the attempts loses nothing', async () => {
    await db.exec('ALTER TABLE usage RENAME TO usage_offline');
    const agg = new UsageAggregator({ db, ...quiet });
    agg.record({ keyId: 'key:k1', tool: 't', outcome: 'ok', latencyMs: 4, at: T0 });
    await agg.flush();
    agg.record({ keyId: 'key:k1', tool: 't', outcome: 'ok', latencyMs: 4, at: T0 });
    await db.exec('ALTER TABLE usage_offline RENAME TO usage');
    await agg.flush();
    expect((await usageRows('h'))[0]).toMatchObject({ ok: 2 });
    expect(agg.stats()).toMatchObject({ lost: { calls: 0 }, pending: { cells: 0 } });
  });

  it('without a binding every call is kept, then lost and counted; nothing throws', async () => {
    const agg = new UsageAggregator({ maxAttempts: 1 });
    agg.record({ keyId: 'key:k1', tool: 't', outcome: 'ok', latencyMs: 4 });
    await expect(agg.flush()).resolves.toBeUndefined();
    expect(agg.stats()).toMatchObject({ lost: { calls: 1 }, lastError: { message: 'no USAGE binding' } });
  });

  it('memory is bounded: events for cells beyond maxCells are counted as lost', async () => {
    const agg = new UsageAggregator({ db, ...quiet, maxCells: 3 });
    for (let i = 0; i < 5; i++) agg.record({ keyId: 'key:k1', tool: `t${i}`, outcome: 'ok', latencyMs: 1, at: T0 });
    agg.record({ keyId: 'key:k1', tool: 't0', outcome: 'ok', latencyMs: 1, at: T0 });
    expect(agg.stats()).toMatchObject({ pending: { cells: 3, calls: 4 }, lost: { calls: 2, cells: 0 } });
    await agg.flush();
    expect(await db.prepare('SELECT calls FROM usage_loss').first()).toEqual({ calls: 2 });
  });
});

describe('configuration', () => {
  it('vars: metering on unless "off", flush delay capped at 20 s, retention defaults 90 daily / 14 hourly days', () => {
    expect(readUsageConfig({})).toEqual({ enabled: true, flushDelayMs: 5000, retention: { dailyDays: 90, hourlyDays: 14 } });
    expect(readUsageConfig({ USAGE_METERING: 'off', USAGE_FLUSH_MS: '0', USAGE_RETENTION_DAYS: '400', USAGE_HOURLY_RETENTION_DAYS: '3' })).toEqual({
      enabled: false,
      flushDelayMs: 0,
      retention: { dailyDays: 400, hourlyDays: 3 },
    });
    expect(readUsageConfig({ USAGE_FLUSH_MS: '60000', USAGE_RETENTION_DAYS: '-1', USAGE_HOURLY_RETENTION_DAYS: 'x' })).toMatchObject({ flushDelayMs: 20_000, retention: { dailyDays: 90, hourlyDays: 14 } });
  });

  it('usageFor: one aggregator per isolate; none when metering is off or the binding is missing', async () => {
    expect(usageFor({ USAGE: db, USAGE_METERING: 'off' })).toBeUndefined();
    expect(usageFor({})).toBeUndefined();
    expect(usageFor({})).toBeUndefined();
    expect(log().filter((l) => l.event === 'binding_missing' && l.binding === 'USAGE')).toEqual([{ event: 'binding_missing', binding: 'USAGE', effect: 'usage is not metered' }]);
    const a = usageFor({ USAGE: db, USAGE_FLUSH_MS: '0' })!;
    expect(usageFor({ USAGE: db, USAGE_FLUSH_MS: '0' })).toBe(a);
    const ctx = createExecutionContext();
    a.track({ keyId: 'key:k1', tool: 't', outcome: 'ok', latencyMs: 1, resultBytes: 5 }, (p) => ctx.waitUntil(p));
    expect(isolateUsageStats()).toMatchObject({ pending: { calls: 1 } });
    await waitOnExecutionContext(ctx);
    expect(isolateUsageStats()).toMatchObject({ pending: { calls: 0 }, written: { calls: 1 } });
    expect((await usageRows('h'))[0]).toMatchObject({ ok: 1, result_bytes: 5 });
  });
});
