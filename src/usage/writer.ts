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
  /** Cells the store refused on their own while it took others: dropped. */
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
  // Is it the store or the data? A store that answers a trivial read of the table is up: the batch may hold a row it
  // refuses, so split it.
  if (!(await reachable(db))) {
    result.unavailable.push(...cells);
    return result;
  }
  const state: SplitState = { down: false, spent: 0, alone: [] };
  if (cells.length === 1) state.alone.push(cells[0]!);
  else await split(db, cells, opts, result, state);
  // A cell that fails alone is the row's fault only if the store took other rows meanwhile and still answers;
  // otherwise it is kept for a later flush like the rest.
  if (state.alone.length) {
    if (result.written.length && (await reachable(db))) result.refused.push(...state.alone);
    else result.unavailable.push(...state.alone);
  }
  return result;
}

/** Batches a split may spend, so a flush stays well inside a request's subrequest limit. */
const SPLIT_BATCHES = 32;
/** Split batches that may fail before anything is written: past that the store refuses everything, not a row. */
const SPLIT_FAILURES_BEFORE_GIVING_UP = 8;

interface SplitState {
  down: boolean;
  spent: number;
  /** Cells that failed on their own. */
  alone: UsageCell[];
}

/**
 * Halves a failing set until each failing cell stands alone; every other cell is written. When the store refuses
 * everything or the budget runs out, what is left is unavailable (kept for a later flush).
 */
async function split(db: D1Database, cells: readonly UsageCell[], opts: WriteOptions, result: WriteResult, state: SplitState): Promise<void> {
  const mid = Math.ceil(cells.length / 2);
  for (const half of [cells.slice(0, mid), cells.slice(mid)]) {
    if (state.down || state.spent >= SPLIT_BATCHES) {
      result.unavailable.push(...half);
      continue;
    }
    state.spent++;
    const error = await attempt(db, half, opts.nextBatchId(), opts, result);
    if (error === undefined) result.written.push(...half);
    else {
      if (!result.written.length && state.spent >= SPLIT_FAILURES_BEFORE_GIVING_UP) state.down = true;
      if (half.length === 1) state.alone.push(half[0]!);
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
