// Per-isolate usage aggregate. track() (record + flushSoon) is two map lookups and a few additions; the flush writes
// everything gathered in the next USAGE_FLUSH_MS as one D1 batch inside ctx.waitUntil. Nothing here can delay, fail
// or throw into a call.
//
// Failure model (docs/usage.md): a batch is retried; a batch the store refuses is split so only the refused rows are
// dropped; while the store is unavailable the cells wait in memory (bounded) and later flushes back off; cells that
// cannot be kept are counted as lost, logged, and added to usage_loss once the store takes writes again.
import { log } from '../lib/log.ts';
import { CellTable } from './cells.ts';
import { addEvent, hourOf, mergeCell, type UsageCell, type UsageEvent } from './rows.ts';
import { writeCells, writeLoss } from './writer.ts';

export interface AggregatorOptions {
  /** The store; undefined means every flush finds it unavailable. */
  db?: D1Database;
  /** Wait before a scheduled flush, ms (default 5000); calls arriving meanwhile join the batch. */
  flushDelayMs?: number;
  /** Distinct (hour, key, tool) cells kept in memory; events for new cells beyond it are lost (default 10,000). */
  maxCells?: number;
  /** Flushes a cell may find the store unavailable before it is dropped (default 5). */
  maxAttempts?: number;
  /** Pauses before retrying a failed batch, ms (default [100, 500]). */
  retryDelaysMs?: number[];
  /** Cells per batch (default 400: 800 rows, 21 statements). */
  cellsPerBatch?: number;
}

export interface UsageStats {
  /** Recorded, not yet written or lost: in memory or in a flush under way. */
  pending: { cells: number; calls: number };
  written: { cells: number; calls: number };
  /** D1 batches sent, retries and splits included. */
  batchesSent: number;
  /** Flushes that left cells unwritten (retried later or lost). */
  failedFlushes: number;
  /** Calls and cells this isolate could not store, since it started. */
  lost: { calls: number; cells: number };
  /** Part of `lost` not yet added to usage_loss. */
  unreportedLoss: { calls: number; cells: number };
  lastError?: { at: string; message: string };
  /** After a failed flush, no flush starts before this time. */
  retryAfter?: string;
}

/** Longest wait a flush may be scheduled with: waitUntil work is cut off 30 s after the response. */
export const MAX_FLUSH_WAIT_MS = 20_000;
/**
 * Back-off after failed flushes, in flush delays (5, 10, 20, 40, 60 s at the default 5 s): a deployment that flushes
 * often also notices a recovered store sooner. Never below 100 ms, so a zero delay cannot hammer a store that is down.
 */
const BACKOFF_STEPS = [1, 2, 4, 8, 12];
const MIN_BACKOFF_MS = 100;

export class UsageAggregator {
  db: D1Database | undefined;
  flushDelayMs: number;
  private readonly maxCells: number;
  private readonly maxAttempts: number;
  private readonly retryDelaysMs: number[];
  private readonly cellsPerBatch: number;

  private cells = new CellTable();
  /** Calls recorded and not yet written or lost, whether in the table or in a flush under way. */
  private pendingCalls = 0;
  /** Cells a flush has taken from the table and not yet settled. */
  private inFlightCells = 0;
  private scheduledAt: number | undefined;
  private scheduledWait = 0;
  private retryAt = 0;
  private failures = 0;
  private readonly id = crypto.randomUUID();
  private batchSeq = 0;
  private readonly unreported = new Map<number, { calls: number; cells: number }>();
  private readonly totals = { batches: 0, cells: 0, calls: 0, failedFlushes: 0, lostCalls: 0, lostCells: 0 };
  private lastError: { at: string; message: string } | undefined;
  private memoryFullLoggedFor = -1;

  constructor(opts: AggregatorOptions = {}) {
    this.db = opts.db;
    this.flushDelayMs = opts.flushDelayMs ?? 5000;
    this.maxCells = opts.maxCells ?? 10_000;
    this.maxAttempts = opts.maxAttempts ?? 5;
    this.retryDelaysMs = opts.retryDelaysMs ?? [100, 500];
    this.cellsPerBatch = opts.cellsPerBatch ?? 400;
  }

  /**
   * What the call path calls once per metered request: record() and flushSoon() with one clock read.
   * `waitUntil` is the request's ctx.waitUntil. Never throws, never waits.
   */
  track(e: UsageEvent, waitUntil?: (p: Promise<unknown>) => void): void {
    try {
      const now = Date.now();
      this.add(e, e.at ?? now);
      this.flushSoon(waitUntil, now);
    } catch {
      /* metering must never fail a call (a waitUntil refused after the response, for one) */
    }
  }

  /** Counts one metered request. Never throws. */
  record(e: UsageEvent): void {
    this.add(e, e.at ?? Date.now());
  }

  private add(e: UsageEvent, at: number): void {
    try {
      const cell = this.cells.cell(hourOf(at), e.keyId, e.tool, this.maxCells);
      if (!cell) {
        this.lose(1, 0, 'memory_full');
        return;
      }
      addEvent(cell, e);
      this.pendingCalls++;
    } catch {
      /* metering must never fail a call */
    }
  }

  /**
   * Makes sure a flush of what is pending runs soon, inside `waitUntil` (the request's ctx.waitUntil). At most one
   * flush is scheduled at a time. Without waitUntil the flush runs unattended (tests, or no execution context).
   */
  flushSoon(waitUntil?: (p: Promise<unknown>) => void, now = Date.now()): void {
    if (this.cells.size === 0 && this.unreported.size === 0) return;
    // A scheduled flush whose request was cut off would otherwise block every later one.
    if (this.scheduledAt !== undefined && now - this.scheduledAt < this.scheduledWait + 30_000) return;
    const wait = Math.max(this.flushDelayMs, this.retryAt - now);
    if (wait > MAX_FLUSH_WAIT_MS) return; // backing off; a later request schedules it
    this.scheduledAt = now;
    this.scheduledWait = wait;
    const p = (wait > 0 ? new Promise((r) => setTimeout(r, wait)) : Promise.resolve()).then(() => this.flush());
    if (waitUntil) waitUntil(p);
    else void p;
  }

  /** Writes everything pending now. Resolves when done; never rejects. */
  async flush(): Promise<void> {
    this.scheduledAt = undefined;
    try {
      await this.flushNow();
    } catch (e) {
      this.noteError(e instanceof Error ? e.message : String(e));
    }
  }

  private async flushNow(): Promise<void> {
    if (this.cells.size === 0 && this.unreported.size === 0) return;
    const cells = this.cells.values();
    this.cells = new CellTable();
    this.inFlightCells += cells.length;
    const db = this.db;
    if (!db) {
      this.inFlightCells -= cells.length;
      this.keepOrLose(cells, 'no USAGE binding');
      return;
    }
    let unavailable: UsageCell[] = [];
    let firstError: string | undefined;
    for (let i = 0; i < cells.length; i += this.cellsPerBatch) {
      const chunk = cells.slice(i, i + this.cellsPerBatch);
      if (unavailable.length) {
        unavailable.push(...chunk);
        continue;
      }
      const r = await writeCells(db, chunk, {
        retryDelaysMs: this.retryDelaysMs,
        nextBatchId: () => `${this.id}:${++this.batchSeq}`,
        nowSeconds: Math.floor(Date.now() / 1000),
      });
      this.totals.batches += r.attempts;
      this.totals.cells += r.written.length;
      for (const c of r.written) this.totals.calls += c.calls;
      firstError ??= r.error;
      if (r.refused.length) {
        const calls = r.refused.reduce((n, c) => n + c.calls, 0);
        this.lose(calls, r.refused.length, 'refused', r.error);
      }
      for (const c of [...r.written, ...r.refused]) this.pendingCalls -= c.calls;
      this.inFlightCells -= r.written.length + r.refused.length;
      unavailable = r.unavailable;
    }
    if (unavailable.length) {
      this.inFlightCells -= unavailable.length;
      this.keepOrLose(unavailable, firstError ?? 'store unavailable');
      return;
    }
    this.failures = 0;
    this.retryAt = 0;
    if (firstError !== undefined) this.totals.failedFlushes++;
    await this.reportLoss(db);
  }

  /** Puts unwritten cells back for a later flush, or drops those that have waited too often. */
  private keepOrLose(cells: UsageCell[], error: string): void {
    this.totals.failedFlushes++;
    this.noteError(error);
    this.failures++;
    this.retryAt = Date.now() + Math.max(this.flushDelayMs, MIN_BACKOFF_MS) * BACKOFF_STEPS[Math.min(this.failures, BACKOFF_STEPS.length) - 1]!;
    let lostCalls = 0;
    let lostCells = 0;
    let kept = 0;
    for (const c of cells) {
      c.attempts++;
      const now = this.cells.find(c);
      if (c.attempts >= this.maxAttempts || (!now && this.cells.size >= this.maxCells)) {
        lostCalls += c.calls;
        lostCells++;
        this.pendingCalls -= c.calls;
        continue;
      }
      if (now) mergeCell(now, c);
      else this.cells.put(c);
      kept++;
    }
    log('usage_flush_failed', { error, cells: cells.length, kept, retryInMs: this.retryAt - Date.now() });
    if (lostCells) this.lose(lostCalls, lostCells, 'store_unavailable', error);
  }

  private lose(calls: number, cells: number, reason: string, error?: string): void {
    this.totals.lostCalls += calls;
    this.totals.lostCells += cells;
    const hour = hourOf(Date.now());
    const u = this.unreported.get(hour) ?? { calls: 0, cells: 0 };
    u.calls += calls;
    u.cells += cells;
    this.unreported.set(hour, u);
    // A full memory loses one call at a time: log the first of each hour, the stats carry the count.
    if (reason === 'memory_full') {
      if (this.memoryFullLoggedFor === hour) return;
      this.memoryFullLoggedFor = hour;
    }
    log('usage_lost', { reason, calls, cells, ...(error ? { error } : {}) });
  }

  private async reportLoss(db: D1Database): Promise<void> {
    for (const [hour, u] of [...this.unreported]) {
      try {
        await writeLoss(db, hour, u.calls, u.cells);
        this.unreported.delete(hour);
      } catch (e) {
        this.noteError(e instanceof Error ? e.message : String(e));
        return;
      }
    }
  }

  private noteError(message: string): void {
    this.lastError = { at: new Date().toISOString(), message };
  }

  stats(): UsageStats {
    let uc = 0;
    let ucells = 0;
    for (const u of this.unreported.values()) {
      uc += u.calls;
      ucells += u.cells;
    }
    const t = this.totals;
    return {
      pending: { cells: this.cells.size + this.inFlightCells, calls: this.pendingCalls },
      written: { cells: t.cells, calls: t.calls },
      batchesSent: t.batches,
      failedFlushes: t.failedFlushes,
      lost: { calls: t.lostCalls, cells: t.lostCells },
      unreportedLoss: { calls: uc, cells: ucells },
      ...(this.lastError ? { lastError: this.lastError } : {}),
      ...(this.retryAt > Date.now() ? { retryAfter: new Date(this.retryAt).toISOString() } : {}),
    };
  }
}
