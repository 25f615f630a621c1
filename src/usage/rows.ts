// In-memory usage cells (one per hour, key and tool) and the SQL that adds them to the store.
// Runtime-neutral (no Workers types), so tests and the CLI can build the same statements.
import { BUCKETS, bucketOf } from './histogram.ts';
import { DAY_S, HOUR_S, INTERNAL_ERROR, MAX_COLUMN, OUTCOME_INDEX, OUTCOMES, REFUSALS, SUM_COLUMNS, TABLE, type Grain, type UsageOutcome } from './schema.ts';

/** One metered request, as the call path reports it. Names, counts, sizes and timings only. */
export interface UsageEvent {
  /** The caller's public id (Caller.id, e.g. "key:7915fa80ab12"); never the key. */
  keyId: string;
  /** The tool's catalogue name, or NO_TOOL ('') for a refused request that named none. */
  tool: string;
  outcome: UsageOutcome;
  /** Wall time of the tools/call execution, ms. Omitted for refusals. */
  latencyMs?: number;
  /** Size of the result sent back (serialised CallToolResult), bytes. */
  resultBytes?: number;
  /** When it happened, ms since the epoch; default now. */
  at?: number;
}

export interface UsageCell {
  /** Period start, unix seconds (an hour for cells; an hour or a day for rows). */
  start: number;
  keyId: string;
  tool: string;
  /** Counts per OUTCOMES index. */
  counts: Float64Array;
  resultBytes: number;
  latencySumMs: number;
  latencyMaxMs: number;
  /** Latency histogram (histogram.ts buckets). */
  hist: Float64Array;
  /** Events in this cell: what is lost if it is dropped. */
  calls: number;
  /** Flushes that found the store unavailable while holding this cell. */
  attempts: number;
}

export function newCell(start: number, keyId: string, tool: string): UsageCell {
  return { start, keyId, tool, counts: new Float64Array(OUTCOMES.length), resultBytes: 0, latencySumMs: 0, latencyMaxMs: 0, hist: new Float64Array(BUCKETS), calls: 0, attempts: 0 };
}

export function hourOf(atMs: number): number {
  return Math.floor(atMs / 3_600_000) * HOUR_S;
}

export function cellKey(start: number, keyId: string, tool: string): string {
  return `${start}\n${keyId}\n${tool}`;
}

/** Adds one event. Bad numbers count as 0 rather than poisoning a row the store would refuse. */
export function addEvent(cell: UsageCell, e: UsageEvent): void {
  const i = OUTCOME_INDEX[e.outcome] ?? INTERNAL_ERROR;
  cell.counts[i]!++;
  cell.calls++;
  if (REFUSALS.has(e.outcome)) return;
  const bytes = e.resultBytes;
  if (bytes !== undefined && bytes > 0 && bytes < Number.MAX_SAFE_INTEGER) cell.resultBytes += Math.round(bytes);
  const ms = e.latencyMs;
  if (ms === undefined) return;
  const v = ms > 0 && ms < 1e9 ? ms : 0;
  cell.hist[bucketOf(v)]!++;
  cell.latencySumMs += Math.round(v);
  if (v > cell.latencyMaxMs) cell.latencyMaxMs = v;
}

/** Adds `from` into `to` (same period, key and tool). */
export function mergeCell(to: UsageCell, from: UsageCell): void {
  for (let i = 0; i < to.counts.length; i++) to.counts[i]! += from.counts[i]!;
  for (let i = 0; i < to.hist.length; i++) to.hist[i]! += from.hist[i]!;
  to.resultBytes += from.resultBytes;
  to.latencySumMs += from.latencySumMs;
  if (from.latencyMaxMs > to.latencyMaxMs) to.latencyMaxMs = from.latencyMaxMs;
  to.calls += from.calls;
  to.attempts = Math.max(to.attempts, from.attempts);
}

export interface UsageRow {
  grain: Grain;
  cell: UsageCell;
}

/** The rows a set of hourly cells adds: each cell's hourly row, and their sums per UTC day, key and tool. */
export function rowsOf(cells: readonly UsageCell[]): UsageRow[] {
  const rows: UsageRow[] = [];
  const days = new Map<string, UsageCell>();
  for (const c of cells) {
    rows.push({ grain: 'h', cell: c });
    const day = c.start - (c.start % DAY_S);
    const k = cellKey(day, c.keyId, c.tool);
    let d = days.get(k);
    if (!d) days.set(k, (d = newCell(day, c.keyId, c.tool)));
    mergeCell(d, c);
  }
  for (const d of days.values()) rows.push({ grain: 'd', cell: d });
  return rows;
}

export interface SqlStatement {
  sql: string;
  params: Array<string | number>;
}

/**
 * Upserts that add `rows` to the table, several rows per statement. Numbers are written as integer literals (they
 * are ours and checked); the two names per row are bound, which keeps each statement under D1's 100 bound parameters.
 */
export function upsertStatements(rows: readonly UsageRow[], rowsPerStatement = 40): SqlStatement[] {
  const out: SqlStatement[] = [];
  const columns = ['grain', 'start', 'key_id', 'tool', ...SUM_COLUMNS, MAX_COLUMN].join(', ');
  const update = [...SUM_COLUMNS.map((c) => `${c} = ${c} + excluded.${c}`), `${MAX_COLUMN} = max(${MAX_COLUMN}, excluded.${MAX_COLUMN})`].join(', ');
  for (let i = 0; i < rows.length; i += rowsPerStatement) {
    const chunk = rows.slice(i, i + rowsPerStatement);
    const params: string[] = [];
    const values = chunk.map(({ grain, cell: c }) => {
      params.push(c.keyId, c.tool);
      const nums = [...c.counts, c.resultBytes, c.latencySumMs, ...c.hist, c.latencyMaxMs].map(int);
      return `('${grain === 'd' ? 'd' : 'h'}', ${int(c.start)}, ?, ?, ${nums.join(', ')})`;
    });
    out.push({ sql: `INSERT INTO ${TABLE} (${columns}) VALUES ${values.join(', ')} ON CONFLICT (grain, start, key_id, tool) DO UPDATE SET ${update}`, params });
  }
  return out;
}

/** A non-negative integer literal; anything else would be a bug, so it is refused rather than written. */
function int(n: number): string {
  const v = Math.round(n);
  if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`usage: not a count: ${n}`);
  return String(v);
}
