// Upstream calls running at once in this isolate, per key: at most MAX_CALLS_PER_KEY, the rest wait their turn in
// order (docs/keys.md, "Concurrency"). Every way of calling a tool comes through callTool (tools/call, a JSON-RPC
// batch, discovery's call_tool, code mode's api calls), so this one cap holds whichever a key uses. Why: one key's
// 100 parallel tools/call, each answered with 4 MB of JSON, queued 100 parses on the isolate's one thread, and another
// client's tools/list waited 6 to 8 s behind them. The MCP routes hold a key's requests to the same number with the
// same slots (under their own name): 60 parallel tools/list of distinct slices and profiles, each building its
// listing, held another client 4.5 s.
// Two properties of workerd shape how a call waits:
//   - a waiter polls on a timer of its own request: a promise resolved by another request's release would run the
//     waiter's upstream fetch in that other request's context, and a request with nothing of its own pending is
//     cancelled as hung (it was: 500 "the Workers runtime canceled this request");
//   - a cancelled request never runs its `finally` (nor its timers), so a slot is a lease, taken back once held
//     longer than a call can take, and a waiting call that stopped polling is dropped from the queue: a client that
//     gave up while its call waited left a ticket at the head that every later call of its key waited behind, for good.
import { sha256Hex } from '../lib/bytes.ts';

/** Calls of one key that may wait for a slot; past this they are refused. The largest JSON-RPC batch is 100. */
export const MAX_WAITING_CALLS_PER_KEY = 100;
/** How often a waiting call looks for a free slot. */
const POLL_MS = 50;
/** A waiting call that has not looked for this long belongs to a request that was cancelled. */
const STALE_MS = 10_000;

interface KeySlots {
  /** Start times of the calls running, oldest first. */
  running: number[];
  /** Waiting calls, in order, with when each last looked for a slot. */
  waiting: Array<{ seen: number }>;
}

const byKey = new Map<string, KeySlots>();

export interface CallSlotLimits {
  /** Calls of one key at once (MAX_CALLS_PER_KEY). */
  max: number;
  /** What is counted, for the refusal: tool calls (the default), or requests (the MCP routes, src/pipeline/steps.ts). */
  what?: 'tool calls' | 'requests';
  /** The longest one call can hold its slot (the upstream deadline and time to read and shape the answer). */
  leaseMs: number;
  signal?: AbortSignal | undefined;
}

export type CallSlot = { release(): void } | { refused: string } | { cancelled: true };

/**
 * A slot for one upstream call of `key`: at once, and synchronously, while fewer than `max` run and none wait (so the
 * common call awaits nothing here), else after the calls ahead of it.
 */
export function takeCallSlot(key: string, limits: CallSlotLimits): CallSlot | Promise<CallSlot> {
  let s = byKey.get(key);
  if (!s) byKey.set(key, (s = { running: [], waiting: [] }));
  const slots = s;
  const take = (): CallSlot => {
    const started = Date.now();
    slots.running.push(started);
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        const i = slots.running.indexOf(started);
        if (i >= 0) slots.running.splice(i, 1);
        forget(key, slots);
      },
    };
  };
  expire(slots, limits.leaseMs);
  if (slots.running.length < limits.max && !slots.waiting.length) return take();
  if (slots.waiting.length >= MAX_WAITING_CALLS_PER_KEY) {
    return {
      refused:
        `Concurrency limit: this key already has ${slots.running.length} ${limits.what ?? 'tool calls'} running on this server and ${slots.waiting.length} waiting, the most it may queue ` +
        `(MAX_CALLS_PER_KEY is ${limits.max} at once). Wait for your calls to finish, then send the rest; fewer calls at once answer sooner.`,
    };
  }
  return waitForSlot(key, slots, limits, take);
}

async function waitForSlot(key: string, slots: KeySlots, limits: CallSlotLimits, take: () => CallSlot): Promise<CallSlot> {
  const ticket = { seen: Date.now() };
  slots.waiting.push(ticket);
  try {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (limits.signal?.aborted) return { cancelled: true };
      ticket.seen = Date.now();
      expire(slots, limits.leaseMs);
      // This call's own ticket was taken for a dead one (its request was held past STALE_MS): back in line.
      if (!slots.waiting.includes(ticket)) slots.waiting.push(ticket);
      if (slots.waiting[0] === ticket && slots.running.length < limits.max) {
        slots.waiting.shift();
        return take();
      }
    }
  } finally {
    const i = slots.waiting.indexOf(ticket);
    if (i >= 0) slots.waiting.splice(i, 1);
    forget(key, slots);
  }
}

/** Slots held past their lease, and waiting calls that stopped looking, belong to requests that were cancelled. */
function expire(slots: KeySlots, leaseMs: number): void {
  const now = Date.now();
  while (slots.running.length && slots.running[0]! < now - leaseMs) slots.running.shift();
  if (slots.waiting.some((w) => w.seen < now - STALE_MS)) slots.waiting = slots.waiting.filter((w) => w.seen >= now - STALE_MS);
}

function forget(key: string, slots: KeySlots): void {
  if (!slots.running.length && !slots.waiting.length && byKey.get(key) === slots) byKey.delete(key);
}

/** Calls running now in this isolate for all keys (tests check that none leak). */
export function runningCalls(): number {
  let n = 0;
  for (const s of byKey.values()) n += s.running.length;
  return n;
}

/**
 * Whose calls count together: the key (its public id). In passthrough mode every customer is the caller
 * "passthrough", so the credential they present tells them apart, by its digest (never kept or logged). Synchronous
 * for a key, so the common request awaits nothing here.
 */
export function callerSlotKey(scope: { caller: { id: string; secrets?: readonly string[] | undefined } }): string | Promise<string> {
  const { caller } = scope;
  if (caller.id !== 'passthrough' || !caller.secrets?.[0]) return caller.id;
  return sha256Hex(caller.secrets[0]).then((digest) => `passthrough:${digest.slice(0, 32)}`);
}
