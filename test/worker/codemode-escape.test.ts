// Escape attempts and limits in the code-mode sandbox, inside workerd. Each attempt must be refused with a clear
// error, and the runtime must still serve the next execution: locally an endless loop or a heap overflow in a
// Dynamic Worker would stop the whole runtime (and this test run), so these also prove the local guards work.
import { beforeAll, describe, expect, it } from 'vitest';
import { estimateTokens } from '../../src/lib/tokens.ts';
import { fakeGitHub, runCode, stillServing, warmUp } from './fixtures/codemode.ts';

async function refused(code: string, limits = {}) {
  const out = await runCode(code, { limits });
  expect(out.ok).toBe(false);
  expect(await stillServing()).toBe(true);
  return out.error!;
}

describe('code mode: escape attempts', () => {
  beforeAll(warmUp, 60_000);

  it('has no network: fetch, WebSocket, EventSource and connect are not there at all', async () => {
    for (const name of ['fetch', 'WebSocket', 'EventSource', 'connect', 'Request', 'Response', 'caches']) {
      const error = await refused(`return await ${name}("http://127.0.0.1:1/");`);
      expect(error, name).toMatchObject({ kind: 'error', name: 'ReferenceError', message: `${name} is not defined`, line: 1 });
    }
  });

  it('refuses connect() and sockets: no import of cloudflare:sockets, no connect global', async () => {
    const imported = await refused('import { connect } from "cloudflare:sockets";\nconst s = connect("127.0.0.1:1");\nreturn 1;');
    expect(imported).toMatchObject({ kind: 'forbidden', line: 1 });
    expect(imported.message).toMatch(/^import is not available in execute/);
    const dynamic = await refused('const { connect } = await import("cloudflare:sockets");\nreturn connect("127.0.0.1:1");');
    expect(dynamic).toMatchObject({ kind: 'forbidden', line: 1 });
    const global = await refused('return connect("127.0.0.1:1");');
    expect(global).toMatchObject({ kind: 'error', name: 'ReferenceError', line: 1 });
  });

  it('refuses importing cloudflare:* and node:* modules in every form', async () => {
    for (const code of ['import { env } from "cloudflare:workers";\nreturn env;', 'return (await import("cloudflare:workers")).env;', 'return import.meta.url;', 'return require("node:fs");']) {
      const error = await refused(code);
      expect(error.kind === 'forbidden' || (error.kind === 'error' && error.name === 'ReferenceError')).toBe(true);
    }
  });

  it('cannot read env: no env, no bindings on globalThis, an empty process.env, no `this`', async () => {
    const out = await runCode(
      'return { env: typeof env, api: typeof globalThis.API, apiProxy: typeof api, this: typeof this, processEnv: JSON.stringify(globalThis.process?.env ?? {}), globals: Object.keys(globalThis).filter((k) => /env|api|loader/i.test(k)) };',
    );
    expect(JSON.parse(out.json!)).toEqual({ env: 'undefined', api: 'undefined', apiProxy: 'object', this: 'undefined', processEnv: '{}', globals: [] });
  });

  it('cannot generate code from strings', async () => {
    for (const code of ['return eval("1 + 1");', 'return new Function("return 1")();', 'return (async () => {}).constructor("return 1")();']) {
      const error = await refused(code);
      expect(error).toMatchObject({ kind: 'error', name: 'EvalError' });
    }
  });

  it('stops endless loops, even when the program catches the limit error', async () => {
    const loop = await refused('let i = 0;\nwhile (true) { i++; }', { maxSteps: 100_000 });
    expect(loop).toMatchObject({ kind: 'limit', name: 'LimitError', line: 2 });
    expect(loop.message).toMatch(/^Step limit: more than 100000 loop iterations and function calls/);
    const swallowed = await refused('for (;;) {\n  try { for (;;) {} } catch {}\n}', { maxSteps: 100_000 });
    expect(swallowed).toMatchObject({ kind: 'limit' });
    const escaped = await refused('try { while (true) {} } catch (e) { return "escaped"; }', { maxSteps: 100_000 });
    expect(escaped).toMatchObject({ kind: 'limit' });
    const callbacks = await refused('const a = [1, 2, 3];\nwhile (a.length) a.forEach((x) => x);', { maxSteps: 100_000 });
    expect(callbacks).toMatchObject({ kind: 'limit' });
  });

  it('stops a loop by CPU time when the step budget is large', async () => {
    const error = await refused('let x = 0;\nfor (;;) { x = (x * 31 + 7) % 1000003; }', { maxSteps: 1e12, cpuMs: 150 });
    expect(error).toMatchObject({ kind: 'limit', line: 2 });
    expect(error.message).toBe('CPU limit: the program computed for more than 150 ms.');
  });

  it('stops an async loop by wall time; waiting on timers is not CPU', async () => {
    const error = await refused('for (;;) {\n  await new Promise((r) => setTimeout(r, 20));\n}', { maxSteps: 1e12, cpuMs: 100, timeoutMs: 400 });
    expect(error).toMatchObject({ kind: 'limit' });
    expect(error.message).toBe('Time limit: the program ran longer than 400 ms.');
    const slept = await runCode('await new Promise((r) => setTimeout(r, 300));\nreturn "slept";', { limits: { cpuMs: 100 } });
    expect(slept.json).toBe('"slept"');
  });

  it('gives up on a program that waits forever', async () => {
    // workerd sees that nothing can settle the promise and cancels the sandbox's request.
    const error = await refused('await new Promise(() => {});', { timeoutMs: 300 });
    expect(error).toEqual({ kind: 'limit', name: 'LimitError', message: 'The program waits for a promise that can never settle, so it cannot finish.' });
    // A promise that an outstanding timer could still settle is cut by the host's wall clock instead.
    const pending = await refused('setTimeout(() => {}, 60_000);\nawait new Promise(() => {});', { timeoutMs: 300 });
    expect(pending.message).toBe('Time limit: the program did not finish within 300 ms (it was still waiting for a timer, an api call or a promise).');
  });

  it('stops endless recursion', async () => {
    // V8's stack limit comes first with the default step budget; a catchable RangeError either way.
    const deep = await refused('function f(n: number): number { return f(n + 1) + 1; }\nreturn f(0);');
    expect(deep).toMatchObject({ kind: 'error', name: 'RangeError', message: 'Maximum call stack size exceeded', line: 1 });
    const mutual = await refused('const a = (n) => b(n);\nconst b = (n) => a(n);\nreturn a(0);');
    expect(mutual).toMatchObject({ kind: 'error', name: 'RangeError' });
    // Recursion that unwinds and recurses again forever is stopped by the step budget.
    const retrying = await refused('function f(n) { try { return f(n + 1); } catch { return f(n + 1); } }\nreturn f(0);', { maxSteps: 200_000 });
    expect(retrying).toMatchObject({ kind: 'limit', name: 'LimitError' });
  });

  it('stops memory bombs before they take down the runtime', async () => {
    const bombs = [
      'const a = [];\nwhile (true) a.push(new Array(1e6).fill(0));',
      'const chunks = [];\nfor (;;) chunks.push("x".repeat(1 << 20));',
      'let a = [1];\nfor (;;) a = [...a, ...a];',
      'let a = [1];\nfor (;;) a = a.concat(a);',
      'return Array.from({ length: 1e9 }, (_, i) => i).length;',
      'return new Uint8Array(2 ** 31).length;',
      'return new ArrayBuffer(4e9).byteLength;',
      'return [].constructor(1e9).fill(1).length;',
      'const parts = [];\nfor (;;) parts.push(Array(100000).join("ab"));',
      'const e = new TextEncoder();\nconst s = "y".repeat(1e6);\nconst out = [];\nfor (;;) out.push(e.encode(s));',
      'const r = new ArrayBuffer(1, { maxByteLength: 2 ** 31 });\nr.resize(2 ** 31 - 1);',
    ];
    for (const code of bombs) {
      const error = await refused(code);
      expect(error, code).toMatchObject({ kind: 'limit' });
      // Spreads and Array.from walk their elements one step each, and copies take CPU: either limit may come first.
      expect(error.message, code).toMatch(/^(Memory limit: (the program allocated more than 64 MB|an array of|a string of)|(Step|CPU) limit: )/);
    }
    // WebAssembly.Memory would allocate gigabytes without any code: the sandbox has no WebAssembly.
    const wasm = await refused('return new WebAssembly.Memory({ initial: 65536 });');
    expect(wasm).toMatchObject({ kind: 'error', name: 'ReferenceError' });
    // Doubling a string: every string built with + counts its length.
    const strings = await refused('let s = "ab";\nfor (;;) s += s;');
    expect(strings).toMatchObject({ kind: 'limit', line: 2 });
    expect(strings.message).toMatch(/^Memory limit: /);
  });

  it('refuses 10 MB of output: the return value over the budget, console output cut with a note', async () => {
    const big = await refused('return "x".repeat(10 * 1024 * 1024);');
    expect(big.kind).toBe('limit');
    // The sandbox writes the value only up to the budget: past it, it knows no more than that.
    expect(big.message).toMatch(/^Result limit: the return value is more than 25000 tokens of JSON, over the 25000 tokens left in the result budget \(25000 tokens in all/);
    const logged = await runCode('console.log("y".repeat(10 * 1024 * 1024));\nreturn "done";');
    expect(logged).toMatchObject({ ok: true, json: '"done"' });
    // The log budget is 5,000 estimated tokens: a run of one letter counts half a token a character past its 32nd.
    expect(estimateTokens(logged.logs)).toBeLessThanOrEqual(5_000);
    expect(logged.logs.length).toBeGreaterThan(9_000);
    expect(logged.droppedLogChars).toBe(10 * 1024 * 1024 - logged.logs.length);
    const lines = await runCode('for (let i = 0; i < 100000; i++) console.log("line " + i);\nreturn 1;');
    expect(lines.ok).toBe(true);
    expect(lines.logs.length).toBeLessThanOrEqual(20_000);
    expect(lines.droppedLogChars).toBeGreaterThan(500_000);
  });

  it('refuses more api calls than the limit, even when the program catches the error', async () => {
    const { call, calls } = fakeGitHub();
    const code = 'for (let i = 0; i < 10; i++) {\n  try { await api.echo({ i }); } catch {}\n}\nreturn "done";';
    const out = await runCode(code, { call, limits: { maxCalls: 3 } });
    expect(out.error).toMatchObject({ kind: 'limit', line: 2, message: 'Call limit: more than 3 api calls in one execute.' });
    expect(calls).toHaveLength(3);
    expect(await stillServing()).toBe(true);
  });
});
