// Reading usage back: percentiles from histograms merged across isolates and rows, filters, grains, loss.
import { beforeEach, describe, expect, it } from 'vitest';
import { UsageAggregator } from '../../src/usage/aggregator.ts';
import { bucketBounds, bucketOf, BUCKETS, OVERFLOW_MS, quantile, RELATIVE_ERROR } from '../../src/usage/histogram.ts';
import { UsageQueryError } from '../../src/usage/query.ts';
import { CALL_OUTCOMES } from '../../src/lib/call-outcome.ts';
import { ERROR_KINDS, OUTCOMES } from '../../src/usage/schema.ts';
import { readUsage } from '../../src/usage/read.ts';
import { cleanupUsage } from '../../src/usage/retention.ts';
import { freshUsageDb } from './fixtures/usage-db.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 10, 30, 12, 30);
const quiet = { retryDelaysMs: [0] };

let db: D1Database;
beforeEach(async () => {
  db = await freshUsageDb();
});

/** Deterministic PRNG (mulberry32), so the samples are the same on every run. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Log-normal latencies around 80 ms, from sub-millisecond to tens of seconds. */
function latencies(n: number, seed: number): number[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => {
    const z = Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
    return Math.round(80 * Math.exp(1.6 * z) * 10) / 10;
  });
}

function exact(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

describe('histogram', () => {
  it('buckets are contiguous, four per doubling, with an underflow and an overflow bucket', () => {
    expect([0, 0.5, 0.999, -3, NaN].map(bucketOf)).toEqual([0, 0, 0, 0, 0]);
    expect([1, 2, 4, 1024].map(bucketOf)).toEqual([1, 5, 9, 41]);
    expect(bucketOf(OVERFLOW_MS)).toBe(BUCKETS - 1);
    expect(bucketOf(3_600_000)).toBe(BUCKETS - 1);
    for (let i = 1; i < BUCKETS - 1; i++) {
      const [lo, hi] = bucketBounds(i);
      expect(bucketOf(lo * (1 + 1e-12))).toBe(i);
      expect(bucketOf(hi * (1 - 1e-12))).toBe(i);
      expect(hi / lo).toBeCloseTo(2 ** 0.25, 12);
    }
  });

  it('a percentile lies within the documented relative error of the exact nearest-rank value', () => {
    for (const seed of [1, 2, 3]) {
      const samples = latencies(4000, seed).filter((v) => v >= 1 && v < OVERFLOW_MS);
      const hist = new Array<number>(BUCKETS).fill(0);
      for (const v of samples) hist[bucketOf(v)]!++;
      for (const q of [0.5, 0.95, 0.99]) {
        const est = quantile(hist, q, Math.max(...samples))!;
        expect(Math.abs(est - exact(samples, q)) / exact(samples, q)).toBeLessThanOrEqual(RELATIVE_ERROR + 1e-12);
      }
    }
    expect(quantile(new Array<number>(BUCKETS).fill(0), 0.5, 0)).toBeUndefined();
  });
});

describe('outcomes', () => {
  it('every call outcome the executor records is a stored kind, in table order, with the refusals after them', () => {
    expect(OUTCOMES.slice(0, CALL_OUTCOMES.length)).toEqual([...CALL_OUTCOMES]);
    expect(OUTCOMES.slice(CALL_OUTCOMES.length)).toEqual(['rate_limited', 'out_of_scope']);
    expect(ERROR_KINDS).toEqual(CALL_OUTCOMES.filter((o) => o !== 'ok'));
  });

  it('an event with an unknown outcome is counted as internal_error, not dropped', async () => {
    const agg = new UsageAggregator({ db, ...quiet });
    agg.record({ keyId: 'key:k1', tool: 't', outcome: 'constructor' as never, latencyMs: 3, at: NOW });
    await agg.flush();
    expect((await readUsage(db, { since: '1d' }, NOW)).totals).toMatchObject({ calls: 1, errorsByKind: { internal_error: 1 } });
  });
});

describe('readUsage', () => {
  it('p50/p95 from histograms merged across isolates, flushes and hours equal those of one combined histogram', async () => {
    const samples = latencies(3000, 7);
    const isolates = [0, 1, 2].map(() => new UsageAggregator({ db, ...quiet }));
    const single = new UsageAggregator({ db: undefined });
    samples.forEach((ms, i) => {
      const e = { keyId: 'key:aaaa00000001', tool: 'repos_get', outcome: 'ok' as const, latencyMs: ms, resultBytes: 10, at: NOW - (i % 5) * HOUR };
      isolates[i % 3]!.record(e);
      single.record(e);
    });
    for (const [i, agg] of isolates.entries()) {
      await agg.flush();
      if (i === 0) isolates[0]!.record({ keyId: 'key:aaaa00000001', tool: 'repos_get', outcome: 'ok', latencyMs: samples[0]!, at: NOW });
    }
    await isolates[0]!.flush();
    const all = [...samples, samples[0]!];

    const report = await readUsage(db, { since: '24h' }, NOW);
    expect(report.window.grain).toBe('hour');
    expect(report.rows).toHaveLength(1);
    const line = report.rows[0]!;
    expect(line).toMatchObject({ key: 'key:aaaa00000001', tool: 'repos_get', calls: all.length, ok: all.length, errors: 0, resultBytes: samples.length * 10 });
    for (const [q, got] of [[0.5, line.latencyMs.p50], [0.95, line.latencyMs.p95]] as const) {
      const want = exact(all, q);
      expect(Math.abs(got! - want) / want).toBeLessThanOrEqual(RELATIVE_ERROR + 0.001);
    }
    expect(line.latencyMs.max).toBe(Math.round(Math.max(...all)));

    // The daily rows hold the same histogram (a window older than the hourly retention reads them).
    await cleanupUsage(db, { dailyDays: 90, hourlyDays: 14 }, NOW);
    const daily = await readUsage(db, { since: '60d' }, NOW);
    expect(daily.window.grain).toBe('day');
    expect(daily.rows[0]!.latencyMs).toEqual(line.latencyMs);
    expect(report.totals.latencyMs).toEqual(line.latencyMs);
  });

  async function seed(): Promise<void> {
    const agg = new UsageAggregator({ db, ...quiet });
    const at = (h: number) => NOW - h * HOUR;
    for (let i = 0; i < 4; i++) agg.record({ keyId: 'key:aaaa00000001', tool: 'repos_get', outcome: 'ok', latencyMs: 20, resultBytes: 1000, at: at(1) });
    agg.record({ keyId: 'key:aaaa00000001', tool: 'issues_create', outcome: 'invalid_arguments', latencyMs: 1, resultBytes: 200, at: at(1) });
    agg.record({ keyId: 'key:aaaa00000001', tool: 'repos_get', outcome: 'upstream_5xx', latencyMs: 400, resultBytes: 300, at: at(30) });
    agg.record({ keyId: 'key:bbbb00000002', tool: 'repos_get', outcome: 'ok', latencyMs: 30, resultBytes: 500, at: at(2) });
    agg.record({ keyId: 'key:bbbb00000002', tool: '', outcome: 'rate_limited', at: at(2) });
    agg.record({ keyId: 'key:bbbb00000002', tool: '', outcome: 'rate_limited', at: at(2) });
    agg.record({ keyId: 'key:bbbb00000002', tool: 'repos_get', outcome: 'ok', latencyMs: 30, resultBytes: 500, at: NOW - 40 * DAY });
    await agg.flush();
    await cleanupUsage(db, { dailyDays: 90, hourlyDays: 14 }, NOW); // the 40-day-old call keeps only its daily row
    await db.prepare('INSERT INTO usage_loss (start, calls, rows) VALUES (?, 3, 1)').bind((NOW - 3 * HOUR) / 1000 - (((NOW - 3 * HOUR) / 1000) % 3600)).run();
  }

  it('per key and tool, busiest first, with error kinds, refusals, bytes and the loss in the window', async () => {
    await seed();
    const r = await readUsage(db, { since: '7d' }, NOW);
    expect(r.rows.map((l) => [l.key, l.tool, l.calls, l.ok, l.errors, l.rateLimited])).toEqual([
      ['key:aaaa00000001', 'repos_get', 5, 4, 1, 0],
      ['key:aaaa00000001', 'issues_create', 1, 0, 1, 0],
      ['key:bbbb00000002', '', 0, 0, 0, 2],
      ['key:bbbb00000002', 'repos_get', 1, 1, 0, 0],
    ]);
    expect(r.rows[0]!.errorsByKind).toEqual({ upstream_5xx: 1 });
    expect(r.rows[1]!.errorsByKind).toEqual({ invalid_arguments: 1 });
    expect(r.rows[2]!.latencyMs).toEqual({ p50: null, p95: null, mean: null, max: null });
    expect(r.totals).toMatchObject({ calls: 7, ok: 5, errors: 2, rateLimited: 2, resultBytes: 5000 });
    expect(r.lost).toEqual({ calls: 3, rows: 1 });
  });

  it('filters by key id or prefix (with or without "key:") and by window; --by day', async () => {
    await seed();
    for (const key of ['aaaa', 'key:aaaa', 'aaaa00000001', 'key:aaaa00000001']) {
      const r = await readUsage(db, { key, since: '7d' }, NOW);
      expect(new Set(r.rows.map((l) => l.key))).toEqual(new Set(['key:aaaa00000001']));
      expect(r.key).toBe(key);
    }
    expect((await readUsage(db, { key: 'cccc', since: '7d' }, NOW)).rows).toEqual([]);
    const recent = await readUsage(db, { since: '24h' }, NOW);
    expect(recent.totals.calls).toBe(6); // the 30-hour-old 5xx is outside
    const byDay = await readUsage(db, { key: 'aaaa', since: '7d', by: 'day' }, NOW);
    expect(byDay.rows.map((l) => [l.day, l.calls])).toEqual([
      ['2026-11-29', 1],
      ['2026-11-30', 5],
    ]);
    const long = await readUsage(db, { key: 'bbbb', since: '60d', by: 'day' }, NOW);
    expect(long.window).toMatchObject({ grain: 'day', since: '2026-10-01T00:00:00.000Z' });
    expect(long.rows.map((l) => l.day)).toEqual(['2026-10-21', '2026-11-30']);
    const until = await readUsage(db, { since: '2026-10-01', until: '2026-11-01' }, NOW);
    expect(until.rows.map((l) => [l.key, l.calls])).toEqual([['key:bbbb00000002', 1]]);
  });

  it('answers from hourly rows while they reach back to the window start, else from daily rows', async () => {
    const agg = new UsageAggregator({ db, ...quiet });
    agg.record({ keyId: 'key:k1', tool: 't', outcome: 'ok', latencyMs: 5, at: NOW - 20 * DAY });
    agg.record({ keyId: 'key:k1', tool: 't', outcome: 'ok', latencyMs: 5, at: NOW - 2 * HOUR });
    await agg.flush();
    await cleanupUsage(db, { dailyDays: 90, hourlyDays: 14 }, NOW);
    const month = await readUsage(db, { since: '30d' }, NOW);
    expect(month.window).toMatchObject({ grain: 'day', since: '2026-10-31T00:00:00.000Z' });
    expect(month.totals.calls).toBe(2);
    const week = await readUsage(db, { since: '7d' }, NOW);
    expect(week.window).toMatchObject({ grain: 'hour', since: '2026-11-23T12:00:00.000Z' });
    expect(week.totals.calls).toBe(1);
    expect((await readUsage(db, { since: '3h' }, NOW)).totals.calls).toBe(1);
    expect((await readUsage(db, { since: '1h' }, NOW)).totals.calls).toBe(0);
  });

  it('refuses bad filters with a message naming the flag', async () => {
    const bad: Array<[object, RegExp]> = [
      [{ by: 'week' }, /--by must be "tool" or "day"/],
      [{ since: 'yesterday' }, /--since: "yesterday" is neither a duration/],
      [{ until: 'soon' }, /--until/],
      [{ key: "a' OR 1=1" }, /--key: .* is not a key id/],
      [{ since: '1d', until: '2d' }, /window is empty/],
    ];
    for (const [input, message] of bad) {
      const error: unknown = await readUsage(db, input, NOW).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageQueryError);
      expect((error as Error).message).toMatch(message);
    }
  });
});
