// A key's upstream calls at once (src/tools/call-slots.ts): the cap, the order of those waiting, the bounded queue,
// cancellation while waiting, and slots taken back when the request that held them never gave them back.
import { describe, expect, it } from 'vitest';
import { MAX_WAITING_CALLS_PER_KEY, runningCalls, takeCallSlot, type CallSlot } from '../../src/tools/call-slots.ts';

const released = (s: CallSlot) => {
  if (!('release' in s)) throw new Error(`no slot: ${JSON.stringify(s)}`);
  return s;
};

describe('a key runs at most MAX_CALLS_PER_KEY upstream calls at once', () => {
  it('calls past the cap wait, and start in the order they came as slots free up; other keys do not wait', async () => {
    const limits = { max: 2, leaseMs: 60_000 };
    const a = released(await takeCallSlot('k1', limits));
    const b = released(await takeCallSlot('k1', limits));
    const started: number[] = [];
    const waiting = [1, 2, 3].map((n) => Promise.resolve(takeCallSlot('k1', limits)).then((s) => (started.push(n), released(s))));
    const other = released(await takeCallSlot('k2', limits));
    expect(started).toEqual([]);
    a.release();
    const first = await waiting[0]!;
    expect(started).toEqual([1]);
    b.release();
    first.release();
    const rest = await Promise.all(waiting.slice(1));
    expect(started).toEqual([1, 2, 3]);
    for (const s of [...rest, other]) s.release();
    expect(runningCalls()).toBe(0);
  });

  it('past the waiting bound a call is refused at once with the cap and what to do', async () => {
    const limits = { max: 1, leaseMs: 60_000 };
    const held = released(await takeCallSlot('k3', limits));
    const controller = new AbortController();
    const queued = Array.from({ length: MAX_WAITING_CALLS_PER_KEY }, () => takeCallSlot('k3', { ...limits, signal: controller.signal }));
    const over = await takeCallSlot('k3', limits);
    expect('refused' in over && over.refused).toMatch(/^Concurrency limit: this key already has 1 tool calls running on this server and 100 waiting, the most it may queue \(MAX_CALLS_PER_KEY is 1 at once\)\. Wait for your calls to finish/);
    controller.abort();
    expect((await Promise.all(queued)).every((s) => 'cancelled' in s)).toBe(true);
    held.release();
    expect(runningCalls()).toBe(0);
  });

  it('a slot held past its lease is taken back, so a cancelled request cannot block its key for good', async () => {
    const limits = { max: 1, leaseMs: 50 };
    await takeCallSlot('k4', limits);
    const next = released(await takeCallSlot('k4', limits));
    next.release();
    expect(runningCalls()).toBe(0);
  });
});
