// Writes usage cells to D1: one batch (a transaction) per flush, retried; a batch the store keeps refusing is split
// until the refused rows are isolated, so one bad row never costs the others.
import { rowsOf, upsertStatements, type UsageCell } from './rows.ts';
import { FLUSHES_TABLE, LOSS_TABLE, TABLE } from './schema.ts';

export interface WriteOptions {
  /** Pauses between attempts of the same batch, ms; its length is the number of retries. */
  retryDelaysMs: readonly number[];
  /** A fresh, unique batch id (rows in usage_flushes make retries of a committed batch no-ops). */
  nextBatchId: () => string;
  /** Unix seconds, stored with the batch id for retention. */
  nowSeconds: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface WriteResult {
  written: UsageCell[];
  /** Cells the store refused on their own (it took the others): dropped. */
  refused: UsageCell[];
  /** Cells not written because the store is unreachable or unusable (no table, outage): the caller may retry later. */
  unavailable: UsageCell[];
  /** Batches sent, attempts included. */
  attempts: number;
  error?: string;
}

export async function writeCells(db: D1Database, cells: readonly UsageCell[], opts: WriteOptions): Promise<WriteResult> {
  const result: WriteResult = { written: [], refused: [], unavailable: [], attempts: 0 };
  if (!cells.length) return result;
  const first = await attemptWithRetries(db, cells, opts, result);
  if (first === undefined) {
    result.written.push(...cells);
    return result;
  }
  result.error = first;
  // Is it the store or the data? A store that answers a trivial read of the table is up, so the batch held a row it refuses.
  if (!(await reachable(db))) {
    result.unavailable.push(...cells);
    return result;
  }
  await split(db, cells, opts, result);
  return result;
}

/**
 * Halves a refused set until each refused cell stands alone; every other cell is written. If the store stops
 * answering meanwhile, what is left is unavailable rather than refused.
 */
async function split(db: D1Database, cells: readonly UsageCell[], opts: WriteOptions, result: WriteResult, state = { down: false }): Promise<void> {
  if (state.down) {
    result.unavailable.push(...cells);
  } else if (cells.length === 1) {
    if (await reachable(db)) result.refused.push(cells[0]!);
    else {
      state.down = true;
      result.unavailable.push(cells[0]!);
    }
  } else {
    const mid = Math.ceil(cells.length / 2);
    for (const half of [cells.slice(0, mid), cells.slice(mid)]) {
      const error = state.down ? 'store unavailable' : await attempt(db, half, opts.nextBatchId(), opts, result);
      if (error === undefined) result.written.push(...half);
      else await split(db, half, opts, result, state);
    }
  }
}

async function attemptWithRetries(db: D1Database, cells: readonly UsageCell[], opts: WriteOptions, result: WriteResult): Promise<string | undefined> {
  const id = opts.nextBatchId();
  let error = await attempt(db, cells, id, opts, result);
  for (const delay of opts.retryDelaysMs) {
    if (error === undefined) break;
    await (opts.sleep ?? sleep)(delay);
    error = await attempt(db, cells, id, opts, result);
  }
  return error;
}

/** One batch: the batch id, then the upserts. Undefined on success, else the error text. */
async function attempt(db: D1Database, cells: readonly UsageCell[], id: string, opts: WriteOptions, result: WriteResult): Promise<string | undefined> {
  result.attempts++;
  try {
    const statements = [
      db.prepare(`INSERT INTO ${FLUSHES_TABLE} (at, id) VALUES (?, ?)`).bind(opts.nowSeconds, id),
      ...upsertStatements(rowsOf(cells)).map((s) => db.prepare(s.sql).bind(...s.params)),
    ];
    await db.batch(statements);
    return undefined;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // The batch id is already there: an earlier attempt of this very batch committed and only its answer was lost.
    if (/UNIQUE constraint failed/i.test(message) && message.includes(FLUSHES_TABLE)) return undefined;
    return message;
  }
}

async function reachable(db: D1Database): Promise<boolean> {
  try {
    await db.prepare(`SELECT 1 FROM ${TABLE} LIMIT 1`).first();
    return true;
  } catch {
    return false;
  }
}

/** Adds counts the metering could not store to the hour's loss row. */
export async function writeLoss(db: D1Database, start: number, calls: number, rows: number): Promise<void> {
  await db
    .prepare(`INSERT INTO ${LOSS_TABLE} (start, calls, rows) VALUES (?, ?, ?) ON CONFLICT (start) DO UPDATE SET calls = calls + excluded.calls, rows = rows + excluded.rows`)
    .bind(start, calls, rows)
    .run();
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
}
