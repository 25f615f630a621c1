// Hostile programs against the sandbox, by class of attack (docs/code-mode.md, "Threat model"): each promise of the
// threat model has a describe block here, with the exact programs of issue 23 and variants of the same class. Every
// attempt must be refused or bounded with a clear error, and the runtime must serve the next execution.
import { beforeAll, describe, expect, it } from 'vitest';
import { executeResult } from '../../src/codemode/execute-result.ts';
import { sandboxModules, SANDBOX_COMPATIBILITY_DATE } from '../../src/codemode/run-program.ts';
import { callInRun, closeRun, openRun } from '../../src/codemode/runs.ts';
import { ALLOWED_GLOBALS } from '../../src/codemode/sandbox-lockdown.ts';
import { DEFAULT_CODE_LIMITS } from '../../src/limit-defaults.ts';
import { apiEntrypoint, fakeGitHub, loader, runCode, stillServing, warmUp } from './fixtures/codemode.ts';

const json = async (code: string, limits = {}) => {
  const out = await runCode(code, { limits });
  expect(out.error, code).toBeUndefined();
  return JSON.parse(out.json!) as unknown;
};
const failure = async (code: string, limits = {}) => {
  const out = await runCode(code, { limits });
  expect(out.ok, code).toBe(false);
  expect(await stillServing()).toBe(true);
  return out.error!;
};

describe('hostile programs: nothing but the language', () => {
  beforeAll(warmUp, 60_000);

  it('issue 23: re-entering the sandbox through process.getBuiltinModule is a ReferenceError', async () => {
    const code = `const { exports } = process.getBuiltinModule('cloudflare:workers');
if (globalThis.inner) { let n = 0; const t = Date.now(); while (Date.now() - t < 3000) n++; return n; }
globalThis.inner = true; const big = 1e15;
return await exports.default.run({ timeoutMs: big, cpuMs: big, maxCalls: 50, maxSteps: big, memoryBytes: 64 * 1048576, resultChars: 100000, logChars: 20000, maxCodeChars: 100000 });`;
    expect(await failure(code)).toMatchObject({ kind: 'error', name: 'ReferenceError', message: 'process is not defined', line: 1 });
  });

  it('every global, own or inherited, is on the allow-list: no process, env, bindings, I/O or host objects', async () => {
    const names = (await json(`const out = [];
for (let o = globalThis; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) out.push(...Reflect.ownKeys(o).map(String));
return out.filter((k) => k !== 'constructor' && k !== 'Symbol(cloudflare:internal-class)');`)) as string[];
    const harness = ['RegExp', 'console', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'scheduler', 'crypto'];
    expect(names.filter((n) => !(ALLOWED_GLOBALS as readonly string[]).includes(n) && !harness.includes(n))).toEqual([]);
    for (const gone of ['process', 'Buffer', 'fetch', 'caches', 'navigator', 'WebAssembly', 'SharedArrayBuffer', 'Atomics', 'BigInt', 'BigInt64Array', 'structuredClone', 'Response', 'Blob', 'ReadableStream', 'DecompressionStream', 'URLPattern', 'HTMLRewriter', 'performance', 'Cloudflare', 'self', 'global', 'WeakRef', 'FinalizationRegistry']) {
      expect(names, gone).not.toContain(gone);
    }
  });

  it('no route leads back to process or a host module', async () => {
    const routes = [
      "return typeof globalThis['pro' + 'cess'];",
      "return typeof Reflect.get(globalThis, 'process');",
      "return typeof Object.getOwnPropertyDescriptor(Object.getPrototypeOf(globalThis), 'process');",
      'return typeof Object.getOwnPropertyDescriptors(globalThis).process;',
      'return typeof this;',
      'return arguments.length;',
      'return [typeof api.constructor, Object.getPrototypeOf(api), Reflect.ownKeys(api).length];',
      'return Object.isFrozen(scheduler) && Object.isFrozen(crypto) && Object.isFrozen(console) && typeof crypto.subtle;',
      'return typeof setTimeout(() => {}, 0).constructor?.constructor?.("return process");',
    ];
    const answers = [];
    for (const code of routes) {
      const out = await runCode(code);
      answers.push(out.json ? JSON.parse(out.json) : `${out.error?.name}: ${out.error?.message}`);
    }
    expect(answers.slice(0, 6)).toEqual(['undefined', 'undefined', 'undefined', 'undefined', 'undefined', 1]);
    expect(answers[6]).toEqual(['undefined', null, 0]);
    expect(answers[7]).toBe('undefined');
    expect(String(answers[8])).toMatch(/^EvalError: /);
    // Code generation from strings stays blocked on every constructor route.
    for (const code of ['return [].constructor.constructor("return process")();', 'return Object.getPrototypeOf(async function () {}).constructor("return 1")();', 'return (0, eval)("this");']) {
      expect(await failure(code), code).toMatchObject({ kind: 'error', name: 'EvalError' });
    }
  });

  it('stack tricks: no program-defined stack formatter, no captureStackTrace, stacks carry text only', async () => {
    const out = (await json(`const tries = {};
try { Error.prepareStackTrace = (e, sites) => sites.map((s) => s.getThis()); tries.prepare = 'set'; } catch (e) { tries.prepare = e.name; }
try { Error.stackTraceLimit = 0; tries.limit = 'set'; } catch (e) { tries.limit = e.name; }
tries.capture = typeof Error.captureStackTrace;
tries.stack = typeof new Error('x').stack;
return tries;`)) as Record<string, string>;
    expect(out).toEqual({ prepare: 'TypeError', limit: 'TypeError', capture: 'undefined', stack: 'string' });
  });

  it('the harness runs once: a second run() of the same sandbox is refused, and run() takes no limits', async () => {
    const run = openRun(fakeGitHub().call, { ...DEFAULT_CODE_LIMITS, maxCalls: 5 });
    try {
      const worker = loader.load({
        compatibilityDate: SANDBOX_COMPATIBILITY_DATE,
        mainModule: 'harness.js',
        modules: sandboxModules('import { g } from "./guards.js"; export default async function (api) { g(); return 7; }\n', false, DEFAULT_CODE_LIMITS),
        env: { API: apiEntrypoint({ props: { run } }) },
        globalOutbound: null,
      });
      const entry = worker.getEntrypoint() as unknown as { run(limits?: unknown): Promise<{ ok: boolean; json?: string; error?: { message: string } }> };
      expect(await entry.run({ maxSteps: 1e15, timeoutMs: 1e15 })).toMatchObject({ ok: true, json: '7' });
      expect(await entry.run()).toMatchObject({ ok: false, error: { message: 'This sandbox has already run its program.' } });
    } finally {
      closeRun(run);
    }
  });

  it('guards cannot be switched off: planted setters, replaced built-ins and caught limits change nothing', async () => {
    const planted = await failure(`Object.defineProperty(Error.prototype, 'name', { set() { throw 1; }, get() { return 'x'; } });
Math.round = () => { throw new Error('no'); };
Date.now = () => 0;
const a = [];
for (;;) { try { a.push(new Array(1e6).fill(0)); } catch {} }`);
    expect(planted).toMatchObject({ kind: 'limit', name: 'LimitError' });
    expect(planted.message).toMatch(/^Memory limit: the program allocated more than 64 MB/);
    const clock = await failure('Date.now = () => 0;\nlet x = 0;\nfor (;;) { x = (x * 31 + 7) % 1000003; }', { maxSteps: 1e12, cpuMs: 150 });
    expect(clock.message).toBe('CPU limit: the program computed for more than 150 ms.');
  });
});

describe('hostile programs: the guards hold at the stack limit', () => {
  beforeAll(warmUp, 60_000);

  it('a recursion that catches its own stack overflows cannot skip the clock', async () => {
    const error = await failure('function f(n) { try { return f(n + 1); } catch { return f(n + 1); } }\nreturn f(0);', { maxSteps: 1e9, cpuMs: 300 });
    expect(error).toMatchObject({ kind: 'limit', message: 'CPU limit: the program computed for more than 300 ms.' });
  });
});

describe('hostile programs: api refusals hold on the host', () => {
  beforeAll(warmUp, 60_000);

  it('a refusal for the rate limit fails the execute however the program handles it, and ends its later calls', async () => {
    const { call, calls } = fakeGitHub();
    let n = 0;
    const limited: typeof call = async (name, args) => (++n >= 2 ? { ok: false, limit: true, error: 'Rate limit: this key allows 1 requests per minute, and each api call counts as one. Retry after 30 s.' } : call(name, args));
    const out = await runCode('const got = [];\nfor (let i = 0; i < 5; i++) {\n  try { got.push(await api.echo({ i })); } catch (e) { got.push(e.message); }\n}\nreturn got;', { call: limited });
    expect(out.error).toMatchObject({ kind: 'limit', message: 'Rate limit: this key allows 1 requests per minute, and each api call counts as one. Retry after 30 s.' });
    expect(n).toBe(2);
    expect(calls).toHaveLength(1);
  });

  it('the host records the refusal itself: a call made around the harness is refused and fails the run', async () => {
    let n = 0;
    const run = openRun(async () => (++n > 1 ? { ok: false, limit: true, error: 'Rate limit: spent.' } : { ok: true, value: 1, size: 1 }), { ...DEFAULT_CODE_LIMITS, maxCalls: 10 });
    const stub = apiEntrypoint({ props: { run } }) as unknown as { call(name: string, args: unknown): Promise<unknown> };
    expect(await stub.call('echo', {})).toMatchObject({ ok: true });
    expect(await stub.call('echo', {})).toEqual({ ok: false, limit: true, error: 'Rate limit: spent.' });
    expect(await callInRun(run, 'echo', {})).toEqual({ ok: false, limit: true, error: 'Rate limit: spent.' });
    expect(n).toBe(2);
    expect(closeRun(run)).toEqual({ calls: 2, limitHit: 'Rate limit: spent.' });
  });
});

describe('hostile programs: values crossing the boundary', () => {
  beforeAll(warmUp, 60_000);

  it("the return value's getters, toJSON and Proxy traps run under the guards, in the sandbox, and reach nothing", async () => {
    const getter = await failure('const o = {};\nObject.defineProperty(o, "x", { enumerable: true, get() { return process; } });\nreturn o;');
    expect(getter).toMatchObject({ kind: 'error', name: 'TypeError', message: 'The return value cannot be sent as JSON: process is not defined' });
    for (const code of ['return { toJSON() { for (;;) {} } };', 'return new Proxy({}, { ownKeys() { for (;;) {} } });', 'const e = new Error("m");\ne.name = { toString() { for (;;) {} } };\nthrow e;']) {
      const error = await failure(code);
      expect(['limit', 'error'], code).toContain(error.kind);
      if (error.kind === 'limit') expect(error.message).toMatch(/^Step limit: /);
    }
    expect(await json('const a = {};\na.a = a;\ntry { return JSON.stringify(a); } catch (e) { return e.name; }')).toBe('TypeError');
    expect((await failure('let a = [];\nfor (let i = 0; i < 200000; i++) a = [a];\nreturn a;')).message).toBe('The return value cannot be sent as JSON: Maximum call stack size exceeded');
  });

  it('api arguments are JSON data: functions, dates and deep nesting are refused with a reason; proxies and getters are read once, as data', async () => {
    const reason = async (args: string) => {
      const out = await runCode(`try { return await api.echo(${args}); } catch (e) { return e.message; }`);
      return JSON.parse(out.json!) as unknown;
    };
    // The sandbox sends a copy it made while measuring: a Proxy is what its traps show, read once under the guards.
    expect(await reason('new Proxy({}, {})')).toEqual({});
    expect(await reason('new Proxy({ a: 1 }, { get: () => () => 1 })')).toMatch(/: \$\.a is a function\.$/);
    expect(await json('let n = 0;\nconst r = await api.echo({ get x() { return ++n; } });\nreturn [r.x, n];')).toEqual([1, 1]);
    expect(await reason('[1]')).toBe('The arguments of api.echo must be one object, e.g. api.echo({ ... }).');
    expect(await reason('{ f() { return 1; } }')).toMatch(/: \$\.f is a function\.$/);
    expect(await reason('{ d: new Date(0) }')).toMatch(/: \$\.d is a Date\.$/);
    expect(await reason('(() => { let a = {}; for (let i = 0; i < 2000; i++) a = { a }; return a; })()')).toMatch(/ is nested too deeply\.$/);
    expect(await reason('(() => { let a = {}; for (let i = 0; i < 200000; i++) a = { a }; return a; })()')).toMatch(/ is nested too deeply\.$/);
    // Getters are read in the sandbox; a __proto__ key is data, not a prototype.
    expect(await reason('Object.defineProperty({}, "x", { enumerable: true, get() { return 5; } })')).toEqual({ x: 5 });
    expect(await reason('JSON.parse(\'{"__proto__": {"x": 1}}\')')).toEqual(JSON.parse('{"__proto__": {"x": 1}}'));
    for (const name of ['__proto__', 'hasOwnProperty', 'toLocaleString']) {
      expect(await json(`try { return await api[${JSON.stringify(name)}]({}); } catch (e) { return e.message; }`)).toBe(`Unknown tool: ${name}. Use search to find tool names.`);
    }
  });

  it('a polluted Object.prototype forges no api reply, and nothing a program changes survives into the next execute', async () => {
    const forged = await json('Object.prototype.ok = true;\nObject.prototype.value = "forged";\nObject.prototype.limit = undefined;\ntry { return await api.nope({}); } catch (e) { return "caught " + e.message; }');
    expect(forged).toBe('caught Unknown tool: nope. Use search to find tool names.');
    expect(await json('globalThis.leak = "run 1";\nObject.prototype.leak2 = 1;\nArray.prototype.push = () => 0;\nreturn 1;')).toBe(1);
    expect(await json('const a = [];\na.push(1);\nreturn [typeof globalThis.leak, typeof ({}).leak2, a.length];')).toEqual(['undefined', 'undefined', 1]);
  });
});
