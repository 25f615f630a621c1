// Reading usage: filters → SQL → the report that both `npm run keys -- usage` and /admin/usage return.
// Runtime-neutral: the Worker runs the SQL on its D1 binding (read.ts), the CLI through `wrangler d1 execute`.
import { customerOf } from './customers.ts';
import { quantile, RELATIVE_ERROR } from './histogram.ts';
import { DAY_S, ERROR_KINDS, HIST_COLUMNS, HOUR_S, HOURLY_FROM, LOSS_TABLE, MAX_COLUMN, META_TABLE, SUM_COLUMNS, TABLE, type ErrorKind, type Grain } from './schema.ts';
import type { SqlStatement } from './rows.ts';

export type UsageBy = 'tool' | 'day';

/** Filters as given on the command line or in the /admin/usage query string. */
export interface UsageQueryInput {
  /** A key id or a prefix of one, with or without "key:". */
  key?: string;
  /** 7d, 24h, 90m, or an ISO date/time. Default 7d. */
  since?: string;
  /** Same forms; exclusive; default now. */
  until?: string;
  by?: string;
}

export interface UsageQuery {
  key: string | undefined;
  /** Unix seconds: the window [since, until), before rounding to the rows' grain. */
  since: number;
  until: number;
  by: UsageBy;
}

export class UsageQueryError extends Error {}

/** How errors name the filters: `--since 7d` on the command line (default), `since=7d` in the /admin/usage query. */
export type FilterStyle = 'flags' | 'query';

const KEY_PATTERN = /^[A-Za-z0-9:_.-]{1,128}$/;

export function parseUsageQuery(input: UsageQueryInput, nowMs: number, style: FilterStyle = 'flags'): UsageQuery {
  const name = (f: string) => (style === 'flags' ? `--${f}` : f);
  const set = (f: string, v: string) => (style === 'flags' ? `--${f} ${v}` : `${f}=${v}`);
  const by = input.by ?? 'tool';
  if (by !== 'tool' && by !== 'day') throw new UsageQueryError(`${name('by')} must be "tool" or "day", not "${by}"`);
  const key = input.key?.trim() || undefined;
  if (key !== undefined && !KEY_PATTERN.test(key)) throw new UsageQueryError(`${name('key')}: "${key}" is not a key id (letters, digits, ":", "_", ".", "-")`);
  const now = Math.floor(nowMs / 1000);
  const since = timeOf(input.since ?? '7d', now, name('since'));
  const until = input.until === undefined ? now + 1 : timeOf(input.until, now, name('until'));
  if (until <= since) throw new UsageQueryError(`the window is empty: ${set('since', input.since ?? '7d')} is not before ${set('until', input.until ?? 'now')}`);
  return { key, since, until, by };
}

function timeOf(raw: string, now: number, flag: string): number {
  const s = raw.trim();
  const rel = /^(\d+)\s*([dhm])$/i.exec(s);
  if (rel) return now - Number(rel[1]) * { d: DAY_S, h: HOUR_S, m: 60 }[rel[2]!.toLowerCase() as 'd' | 'h' | 'm'];
  const t = /^\d{4}-\d{2}-\d{2}/.test(s) ? Date.parse(s) : NaN;
  if (!Number.isFinite(t)) throw new UsageQueryError(`${flag}: "${raw}" is neither a duration (7d, 24h, 90m) nor a date (2026-11-01, 2026-11-01T12:00Z)`);
  return Math.floor(t / 1000);
}

/** What usageReport needs, in this order: where hourly rows start, the hourly and the daily sums, the loss. */
export interface UsageStatements {
  hourlyFrom: SqlStatement;
  hourly: SqlStatement;
  daily: SqlStatement;
  loss: SqlStatement;
}

/**
 * The reads behind a report. Both grains are summed and the report picks one: hourly rows (to the hour) when the
 * retention cleanup has kept every one of them since the window's start, else daily rows (to the UTC day). Hourly and
 * daily rows are written in the same transaction, so whichever is picked holds every call in its window.
 */
export function usageStatements(q: UsageQuery): UsageStatements {
  return {
    hourlyFrom: { sql: `SELECT value FROM ${META_TABLE} WHERE name = ?`, params: [HOURLY_FROM] },
    hourly: sumStatement(q, 'h'),
    daily: sumStatement(q, 'd'),
    loss: { sql: `SELECT COALESCE(SUM(calls), 0) AS calls, COALESCE(SUM(rows), 0) AS rows FROM ${LOSS_TABLE} WHERE start >= ? AND start < ?`, params: [floor(q.since, 'h'), q.until] },
  };
}

function sumStatement(q: UsageQuery, grain: Grain): SqlStatement {
  const group = q.by === 'tool' ? 'tool' : `start - (start % ${DAY_S})`;
  const sums = SUM_COLUMNS.map((c) => `SUM(${c}) AS ${c}`).join(', ');
  const params: Array<string | number> = [grain, floor(q.since, grain), q.until];
  let where = 'grain = ? AND start >= ? AND start < ?';
  if (q.key) {
    const bare = q.key.startsWith('key:') ? q.key.slice(4) : q.key;
    where += ' AND (substr(key_id, 1, ?) = ? OR substr(key_id, 1, ?) = ?)';
    params.push(bare.length, bare, bare.length + 4, `key:${bare}`);
  }
  return { sql: `SELECT key_id, ${group} AS grp, ${sums}, MAX(${MAX_COLUMN}) AS ${MAX_COLUMN} FROM ${TABLE} WHERE ${where} GROUP BY key_id, grp`, params };
}

function floor(t: number, grain: Grain): number {
  return t - (t % (grain === 'h' ? HOUR_S : DAY_S));
}

export interface UsageFigures {
  /** tools/call executions: ok plus every isError kind. */
  calls: number;
  ok: number;
  errors: number;
  /** Non-zero kinds only. */
  errorsByKind: Partial<Record<ErrorKind, number>>;
  /** Requests the per-key rate limit refused. */
  rateLimited: number;
  /** Calls of catalogue tools outside the key's scope or the URL's slice, refused without running. */
  outOfScope: number;
  /** From the merged latency histograms (p50/p95 within ±9.1 %), null without calls. */
  latencyMs: { p50: number | null; p95: number | null; mean: number | null; max: number | null };
  resultBytes: number;
}

export interface UsageLine extends UsageFigures {
  key: string;
  /** Whose key it is (src/usage/customers.ts): the customer's name, or what the id is when no customer's. */
  customer: string;
  tool?: string;
  /** UTC day, YYYY-MM-DD. */
  day?: string;
}

export interface UsageReport {
  window: { since: string; until: string; grain: 'hour' | 'day' };
  key: string | null;
  by: UsageBy;
  rows: UsageLine[];
  totals: UsageFigures;
  /** Calls the metering could not store in this window (store down or a refused row; docs/usage.md). */
  lost: { calls: number; rows: number };
  percentiles: { method: string; relativeError: number };
}

type DbRow = Record<string, unknown>;

export interface UsageResults {
  hourlyFrom: readonly DbRow[];
  hourly: readonly DbRow[];
  daily: readonly DbRow[];
  loss: readonly DbRow[];
}

export function usageReport(q: UsageQuery, results: UsageResults, customers: ReadonlyMap<string, string> = new Map()): UsageReport {
  const grain: Grain = floor(q.since, 'h') >= num(results.hourlyFrom[0]?.value) ? 'h' : 'd';
  const rows = grain === 'h' ? results.hourly : results.daily;
  const total = emptySums();
  const lines = rows.map((r) => {
    const sums = sumsOf(r);
    addSums(total, sums);
    const key = String(r.key_id);
    const line: UsageLine = { key, customer: customerOf(key, customers), ...(q.by === 'tool' ? { tool: String(r.grp) } : { day: isoDay(Number(r.grp)) }), ...figures(sums) };
    return line;
  });
  lines.sort((a, b) =>
    a.key < b.key ? -1 : a.key > b.key ? 1 : q.by === 'day' ? a.day!.localeCompare(b.day!) : b.calls + b.rateLimited + b.outOfScope - (a.calls + a.rateLimited + a.outOfScope) || a.tool!.localeCompare(b.tool!),
  );
  const loss = results.loss[0];
  return {
    window: { since: new Date(floor(q.since, grain) * 1000).toISOString(), until: new Date(q.until * 1000).toISOString(), grain: grain === 'h' ? 'hour' : 'day' },
    key: q.key ?? null,
    by: q.by,
    rows: lines,
    totals: figures(total),
    lost: { calls: num(loss?.calls), rows: num(loss?.rows) },
    percentiles: { method: 'nearest rank over merged log-scale histograms (4 buckets per doubling)', relativeError: Math.round(RELATIVE_ERROR * 1e4) / 1e4 },
  };
}

interface Sums {
  values: Record<string, number>;
  max: number;
}

function emptySums(): Sums {
  return { values: Object.fromEntries(SUM_COLUMNS.map((c) => [c, 0])), max: 0 };
}

function sumsOf(r: DbRow): Sums {
  return { values: Object.fromEntries(SUM_COLUMNS.map((c) => [c, num(r[c])])), max: num(r[MAX_COLUMN]) };
}

function addSums(to: Sums, from: Sums): void {
  for (const c of SUM_COLUMNS) to.values[c]! += from.values[c]!;
  to.max = Math.max(to.max, from.max);
}

function figures(s: Sums): UsageFigures {
  const v = s.values;
  const errorsByKind: Partial<Record<ErrorKind, number>> = {};
  let errors = 0;
  for (const k of ERROR_KINDS) {
    if (v[k]) errorsByKind[k] = v[k];
    errors += v[k]!;
  }
  const hist = HIST_COLUMNS.map((c) => v[c]!);
  const timed = hist.reduce((a, b) => a + b, 0);
  const ms = (x: number | undefined) => (x === undefined ? null : Math.round(x * 10) / 10);
  return {
    calls: v.ok! + errors,
    ok: v.ok!,
    errors,
    errorsByKind,
    rateLimited: v.rate_limited!,
    outOfScope: v.out_of_scope!,
    latencyMs: {
      p50: ms(quantile(hist, 0.5, s.max)),
      p95: ms(quantile(hist, 0.95, s.max)),
      mean: timed ? ms(v.latency_sum_ms! / timed) : null,
      max: timed ? s.max : null,
    },
    resultBytes: v.result_bytes!,
  };
}

function num(x: unknown): number {
  const n = Number(x ?? 0);
  return Number.isFinite(n) ? n : 0;
}

function isoDay(s: number): string {
  return new Date(s * 1000).toISOString().slice(0, 10);
}
