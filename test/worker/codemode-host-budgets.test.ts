// Issue 36's host half: what one execute can make the host hold is bounded before the work is done. The arguments of
// one api call, of the calls in flight and their number (measured and queued in the sandbox, re-checked on the host),
// and the executes running at once per key and per isolate, batches included (docs/code-mode.md, "Host-side budgets").
import { describe, expect, it } from 'vitest';
import type { ApiReply, ToolCall } from '../../src/codemode/api-reply.ts';
import { runningExecutes, takeSlot } from '../../src/codemode/execute-slots.ts';
import { callInRun, closeRun, measureJson, openRun } from '../../src/codemode/runs.ts';
import { DEFAULT_CODE_LIMITS } from '../../src/limit-defaults.ts';
import { runCode, stillServing } from './fixtures/codemode.ts';
import { codeEnv, fetcherFor, makeKey, ORIGIN, OPERATOR_KEY } from './fixtures/codemode-endpoint.ts';

/** A tool caller that answers after `ms`, recording the most calls and argument characters it held at once. */
function slowCaller(ms = 30) {
  const seen = { calls: 0, active: 0, maxActive: 0, held: 0, maxHeld: 0 };
  const call: ToolCall = async (_name, args) => {
    const size = measureJson(args, Infinity).size;
    seen.calls++;
    seen.active++;
    seen.held += size;
    seen.maxActive = Math.max(seen.maxActive, seen.active);
    seen.maxHeld = Math.max(seen.maxHeld, seen.held);
    await new Promise((r) => setTimeout(r, ms));
    seen.active--;
    seen.held -= size;
    return { ok: true, value: size, size: 8 } satisfies ApiReply;
  };
  return { call, seen };
}

describe('api arguments are bounded before they reach the host', () => {
  it('issue 36: 50 parallel calls sharing a 4 MB string are each refused in the sandbox, and nothing reaches the host', async () => {
    const { call, seen } = slowCaller();
    const code = 'const s = "a".repeat(4e6);\nconst r = await Promise.all(Array.from({ length: 50 }, () => api.repos_get({ owner: "o", repo: "r", junk: s }).catch((e) => e.message)));\nreturn [r.length, r[0]];';
    const out = await runCode(code, { call });
    expect(out.error).toBeUndefined();
    expect(JSON.parse(out.json!)).toEqual([
      50,
      'api.repos_get was not called: its arguments are more than 1048576 characters of JSON, the most one api call may send (CODE_MAX_ARG_BYTES). Send smaller arguments: only the fields the operation needs, or the data split over several calls.',
    ]);
    expect(seen.calls).toBe(0);
    expect(await stillServing()).toBe(true);
  });

  it('arguments just under the limit go through; the measure counts keys, nesting and escapes-free strings', async () => {
    const { call, seen } = slowCaller(1);
    const limits = { maxArgBytes: 1000 };
    const fits = await runCode('return await api.echo({ a: "x".repeat(990) });', { call, limits });
    expect(JSON.parse(fits.json!)).toBe(measureJson({ a: 'x'.repeat(990) }, Infinity).size);
    const over = await runCode('try { await api.echo({ a: "x".repeat(1000) }); } catch (e) { return e.message; }', { call, limits });
    expect(JSON.parse(over.json!)).toMatch(/^api\.echo was not called: its arguments are more than 1000 characters of JSON/);
    const nested = await runCode('try { await api.echo({ list: Array(300).fill({ k: 1 }) }); } catch (e) { return e.message; }', { call, limits });
    expect(JSON.parse(nested.json!)).toMatch(/more than 1000 characters/);
    expect(seen.calls).toBe(1);
  });

  it('Promise.all over 20 calls runs at most CODE_MAX_PARALLEL_CALLS at once, in order, and every call succeeds', async () => {
    const { call, seen } = slowCaller(40);
    const out = await runCode('const r = await Promise.all(Array.from({ length: 20 }, (_, i) => api.echo({ i })));\nreturn r.length;', { call, limits: { maxParallelCalls: 3 } });
    expect(out).toMatchObject({ ok: true, json: '20' });
    expect(seen.calls).toBe(20);
    expect(seen.maxActive).toBe(3);
  });

  it('calls in flight hold at most CODE_MAX_INFLIGHT_ARG_BYTES of arguments; a call alone always fits', async () => {
    const { call, seen } = slowCaller(40);
    const limits = { maxArgBytes: 2000, maxInflightArgBytes: 5000, maxParallelCalls: 10 };
    const out = await runCode('const s = "y".repeat(1490);\nconst r = await Promise.all(Array.from({ length: 10 }, () => api.echo({ s })));\nreturn r.length;', { call, limits });
    expect(out).toMatchObject({ ok: true, json: '10' });
    expect(seen.maxHeld).toBeLessThanOrEqual(5000);
    expect(seen.maxActive).toBe(3);
  });

  it('the host holds a run to the same budgets when a call gets around the sandbox: sticky refusals, and the size', async () => {
    const { call } = slowCaller(50);
    const run = openRun(call, { ...DEFAULT_CODE_LIMITS, maxParallelCalls: 2, maxArgBytes: 100, maxInflightArgBytes: 150 });
    expect(await callInRun(run, 'echo', { s: 'x'.repeat(200) })).toEqual({ ok: false, error: expect.stringMatching(/^api\.echo was not called: its arguments are more than 100 characters of JSON/) });
    const first = callInRun(run, 'echo', { s: 'x'.repeat(60) });
    const second = callInRun(run, 'echo', { s: 'x'.repeat(60) });
    const third = await callInRun(run, 'echo', { s: 'x' });
    expect(third).toMatchObject({ ok: false, limit: true, error: expect.stringMatching(/^Parallel call limit: more than 2 api calls in flight at once in one execute \(CODE_MAX_PARALLEL_CALLS\)\. Await some calls before starting more\.$/) });
    expect(await first).toMatchObject({ ok: true });
    await second;
    // Sticky: the run is over for every later call, and closing reports it.
    expect(await callInRun(run, 'echo', {})).toMatchObject({ ok: false, limit: true });
    expect(closeRun(run).limitHit).toMatch(/^Parallel call limit/);

    const bytes = openRun(call, { ...DEFAULT_CODE_LIMITS, maxArgBytes: 100, maxInflightArgBytes: 150 });
    const a = callInRun(bytes, 'echo', { s: 'x'.repeat(90) });
    expect(await callInRun(bytes, 'echo', { s: 'x'.repeat(90) })).toMatchObject({ ok: false, limit: true, error: expect.stringMatching(/^Argument limit: the api calls in flight would hold more than 150 characters of JSON arguments at once \(CODE_MAX_INFLIGHT_ARG_BYTES\)/) });
    await a;
    closeRun(bytes);
  });
});

describe('executes running at once are capped per key and per isolate', () => {
  const limits = { maxExecutesPerKey: 2, maxExecutes: 3, timeoutMs: 30_000 };

  it('a slot over a cap is refused with the cap, what to do and when to retry; released slots are free again', () => {
    const t = 1_000_000;
    const a1 = takeSlot('key:a', limits, t);
    const a2 = takeSlot('key:a', limits, t + 5_000);
    const a3 = takeSlot('key:a', limits, t + 10_000);
    expect('refused' in a3 && a3.refused).toBe('Concurrency limit: this key is already running 2 executes at once, the most one key may run on this server (CODE_MAX_EXECUTES_PER_KEY). Wait for one to finish, then run this one again: retry after 21 s at the latest. Run programs one after another, or do the work in one program.');
    const b1 = takeSlot('key:b', limits, t + 10_000);
    const c1 = takeSlot('key:c', limits, t + 10_000);
    expect('refused' in c1 && c1).toMatchObject({ limit: 'isolate', refused: expect.stringMatching(/^Server busy: 3 executes are running on this server at once, the most it runs for all keys together \(CODE_MAX_EXECUTES\)\. Retry after 21 s at the latest/) });
    for (const s of [a1, a2, b1]) if ('release' in s) s.release();
    expect(runningExecutes()).toBe(0);
    const again = takeSlot('key:a', limits, t + 11_000);
    expect('release' in again).toBe(true);
    if ('release' in again) again.release();
  });

  it('a slot is a lease: one its request never gave back (workerd cancelled it) is taken back after the wall limit and its grace', () => {
    const t = 2_000_000;
    takeSlot('key:gone', limits, t);
    takeSlot('key:gone', limits, t);
    expect('refused' in takeSlot('key:gone', limits, t + 30_000)).toBe(true);
    const later = takeSlot('key:gone', limits, t + 41_000);
    expect('release' in later).toBe(true);
    if ('release' in later) later.release();
    expect(runningExecutes()).toBe(0);
  });

  const post = (key: string, body: unknown, env = codeEnv({ CODE_MAX_EXECUTES_PER_KEY: '1' })) =>
    fetcherFor(env)(`${ORIGIN}/mcp/code`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify(body),
    });
  const execute = (id: number, code: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'execute', arguments: { code } } });
  interface Answer { id: number; result: { isError?: boolean; content: Array<{ text: string }> } }
  const answers = async (res: Response): Promise<Answer[]> => [...(await res.text()).matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as Answer);
  const SLOW = 'await scheduler.wait(1200);\nreturn 1;';

  it('through the endpoint: a second execute of the key is refused while the first runs; another key is not', async () => {
    const key = await makeKey();
    const other = await makeKey();
    const first = post(key, execute(1, SLOW));
    await new Promise((r) => setTimeout(r, 300));
    const [refused] = await answers(await post(key, execute(2, 'return 2;')));
    expect(refused!.result.isError).toBe(true);
    expect(refused!.result.content[0]!.text).toMatch(/^Concurrency limit: this key is already running 1 executes at once/);
    const [fine] = await answers(await post(other, execute(3, 'return 3;')));
    expect(fine!.result.content[0]!.text).toBe('3');
    const [done] = await answers(await first);
    expect(done!.result.content[0]!.text).toBe('1');
    // The slot is free again.
    const [after] = await answers(await post(key, execute(4, 'return 4;')));
    expect(after!.result.content[0]!.text).toBe('4');
    expect(runningExecutes()).toBe(0);
  });

  it('a batch counts against the cap per message: of three executes at once one runs, two get the refusal', async () => {
    const key = await makeKey();
    // The batch's first message runs alone (src/protocol/batch.ts), then the other three at once.
    const got = await answers(await post(key, [1, 2, 3, 4].map((id) => execute(id, SLOW))));
    expect(got.map((a) => a.id).sort()).toEqual([1, 2, 3, 4]);
    expect(got.filter((a) => !a.result.isError).map((a) => a.result.content[0]!.text)).toEqual(['1', '1']);
    expect(got.filter((a) => a.result.isError)).toHaveLength(2);
    for (const a of got.filter((x) => x.result.isError)) expect(a.result.content[0]!.text).toMatch(/^Concurrency limit: /);
  });

  it('the isolate cap holds across keys', async () => {
    const env = codeEnv({ CODE_MAX_EXECUTES: '1' });
    const key = await makeKey();
    const first = post(OPERATOR_KEY, execute(1, SLOW), env);
    await new Promise((r) => setTimeout(r, 300));
    const [busy] = await answers(await post(key, execute(2, 'return 2;'), env));
    expect(busy!.result.content[0]!.text).toMatch(/^Server busy: 1 executes are running on this server at once/);
    expect((await answers(await first))[0]!.result.content[0]!.text).toBe('1');
  });
});
