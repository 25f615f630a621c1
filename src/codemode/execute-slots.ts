// How many executes run at once in this isolate: at most CODE_MAX_EXECUTES_PER_KEY for one key and CODE_MAX_EXECUTES
// for all keys together (docs/code-mode.md, "Host-side budgets"). Each execute holds a sandbox, its compile, its
// api calls in flight and their arguments; without a cap one key's batch of 100 executes took workerd from 583 MB to
// 1.57 GB and made another client's tools/list wait 7 s. A slot is taken before the program is compiled and given
// back when the execute ends; an execute over a cap is refused at once with the time the oldest one ends by, so the
// caller knows when to retry. The caps are per isolate: requests of one key that reach different isolates each meet
// their own.

/** The running executes' start times, oldest first: per key, and all of them. */
const byKey = new Map<string, number[]>();
const all: number[] = [];

export interface SlotLimits {
  maxExecutesPerKey: number;
  maxExecutes: number;
  /** The wall limit of one execute: the latest a running one ends, with the host's grace second. */
  timeoutMs: number;
}

export type Slot = { release(): void } | { refused: string; limit: 'per_key' | 'isolate' };

/** Takes a slot for `key`, or says which cap refused it and when to retry. */
export function takeSlot(key: string, limits: SlotLimits, now = Date.now()): Slot {
  expire(key, limits, now);
  const mine = byKey.get(key) ?? [];
  if (mine.length >= limits.maxExecutesPerKey) {
    return {
      limit: 'per_key',
      refused:
        `Concurrency limit: this key is already running ${mine.length} executes at once, the most one key may run on this server (CODE_MAX_EXECUTES_PER_KEY). ` +
        `Wait for one to finish, then run this one again: retry after ${retryAfter(mine, limits, now)} s at the latest. Run programs one after another, or do the work in one program.`,
    };
  }
  if (all.length >= limits.maxExecutes) {
    return {
      limit: 'isolate',
      refused:
        `Server busy: ${all.length} executes are running on this server at once, the most it runs for all keys together (CODE_MAX_EXECUTES). ` +
        `Retry after ${retryAfter(all, limits, now)} s at the latest; one usually ends within a second or two.`,
    };
  }
  mine.push(now);
  byKey.set(key, mine);
  all.push(now);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      remove(mine, now);
      if (!mine.length && byKey.get(key) === mine) byKey.delete(key);
      remove(all, now);
    },
  };
}

/** Executes running now in this isolate (tests check that none leak). */
export function runningExecutes(): number {
  return all.length;
}

/** Whole seconds until the oldest of `starts` has reached its wall limit, at least 1. */
function retryAfter(starts: number[], limits: SlotLimits, now: number): number {
  const oldest = starts[0] ?? now;
  return Math.max(1, Math.ceil((oldest + limits.timeoutMs + 1_000 - now) / 1000));
}

/**
 * A slot is a lease: a request that workerd cancelled (a client gone, a request it judged hung) never runs the
 * execute's `finally`, and a slot it held would refuse the key for good. None is held past its execute's wall limit
 * plus the compile and the host's grace, so older ones are taken back.
 */
function expire(key: string, limits: SlotLimits, now: number): void {
  const oldest = now - limits.timeoutMs - LEASE_GRACE_MS;
  while (all.length && all[0]! < oldest) all.shift();
  const mine = byKey.get(key);
  while (mine?.length && mine[0]! < oldest) mine.shift();
  if (mine && !mine.length) byKey.delete(key);
}

/** Beyond the wall limit: the compile (5 s of CPU at most) and the host's grace second. */
const LEASE_GRACE_MS = 10_000;

function remove(list: number[], value: number): void {
  const i = list.indexOf(value);
  if (i >= 0) list.splice(i, 1);
}
