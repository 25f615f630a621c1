// Upstream calls running at once in this isolate, per key: at most MAX_CALLS_PER_KEY, the rest wait their turn in
// order (docs/keys.md, "Concurrency"). Every way of calling a tool comes through callTool (tools/call, a JSON-RPC
// batch, discovery's call_tool, code mode's api calls), so this one cap holds whichever a key uses. Why: one
// key's 100 parallel tools/call, each answered with 4 MB of JSON, queued 100 parses on the isolate's one thread, and
// another client's tools/list waited 6 to 8 s behind them. A wait is cheap (a promise), a running call is not (its
// body, its parse, its shaping). The queue is bounded too: past it a call is refused at once with what to do.
import { sha256Hex } from '../lib/bytes.ts';
import type { RequestScope } from './scope.ts';

/** Calls of one key that may wait for a slot; past this they are refused. The largest JSON-RPC batch is 100. */
export const MAX_WAITING_CALLS_PER_KEY = 100;

interface KeySlots {
  running: number;
  waiting: Array<{ go: () => void }>;
}

const byKey = new Map<string, KeySlots>();

export type CallSlot = { release(): void } | { refused: string } | { cancelled: true };

/**
 * A slot for one upstream call of `key`: at once while fewer than `max` run, else after the calls ahead of it; a
 * refusal when the queue is full; `cancelled` when `signal` aborts while it waits.
 */
export async function takeCallSlot(key: string, max: number, signal?: AbortSignal): Promise<CallSlot> {
  let slots = byKey.get(key);
  if (!slots) byKey.set(key, (slots = { running: 0, waiting: [] }));
  const s = slots;
  if (s.running >= max) {
    if (s.waiting.length >= MAX_WAITING_CALLS_PER_KEY) {
      return {
        refused:
          `Concurrency limit: this key already has ${s.running} tool calls running on this server and ${s.waiting.length} waiting, the most it may queue ` +
          `(MAX_CALLS_PER_KEY is ${max} at once). Wait for your calls to finish, then send the rest; fewer calls at once answer sooner.`,
      };
    }
    const entry = { go: () => {} };
    const started = new Promise<boolean>((resolve) => {
      entry.go = () => resolve(true);
      signal?.addEventListener('abort', () => resolve(false), { once: true });
    });
    s.waiting.push(entry);
    if (!(await started)) {
      const i = s.waiting.indexOf(entry);
      if (i >= 0) s.waiting.splice(i, 1);
      else next(key, s);
      return { cancelled: true };
    }
  } else s.running++;
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      next(key, s);
    },
  };
}

/** A slot is free: the next waiting call takes it, or the count goes down. */
function next(key: string, s: KeySlots): void {
  const w = s.waiting.shift();
  if (w) return w.go();
  s.running--;
  if (s.running === 0 && byKey.get(key) === s) byKey.delete(key);
}

/** Calls running now in this isolate for all keys (tests check that none leak). */
export function runningCalls(): number {
  let n = 0;
  for (const s of byKey.values()) n += s.running;
  return n;
}

/**
 * Whose calls count together: the key (its public id). In passthrough mode every customer is the caller
 * "passthrough", so the credential they present tells them apart, by its digest (never kept or logged).
 */
export async function callerSlotKey(scope: RequestScope): Promise<string> {
  const { caller } = scope;
  if (caller.id !== 'passthrough' || !caller.secrets?.[0]) return caller.id;
  return `passthrough:${(await sha256Hex(caller.secrets[0])).slice(0, 32)}`;
}
