// Issue 36's sandbox half: built-ins that allocate from a small input are charged from its size before they run,
// and serialisation (the result, console output, a thrown value, the program's own JSON.stringify) stops at its
// budget under the guards. Each program here crashed or blocked the runtime before; now each one is a clear limit or
// a bounded result, and the runtime keeps serving (docs/code-mode.md, "Threat model").
import { beforeAll, describe, expect, it } from 'vitest';
import { executeResult } from '../../src/codemode/execute-result.ts';
import { runCode, stillServing, warmUp } from './fixtures/codemode.ts';

const LIMIT = /^(Memory|Step|CPU) limit: /;

async function limited(code: string, limits = {}) {
  const out = await runCode(code, { limits });
  expect(out.error?.kind, `${code}\n${out.json ?? ''}`).toBe('limit');
  expect(out.error!.message, code).toMatch(LIMIT);
  expect(await stillServing()).toBe(true);
  return out.error!.message;
}

describe('built-ins that allocate from a small input are charged before they run', () => {
  beforeAll(warmUp, 60_000);

  it('issue 36: Object.entries of 4 M characters, Object.keys of 6 M, a spread of 8 M characters of segments', async () => {
    expect(await limited('return Object.entries("a".repeat(4e6)).length')).toMatch(/^Memory limit: /);
    expect(await limited('return Object.keys("a".repeat(6e6)).length')).toMatch(/^Memory limit: /);
    await limited('return [...new Intl.Segmenter().segment("a".repeat(8e6))].length');
  });

  it('the same amplification by every other route: own-key lists, copies of indexed properties, iterables of unknown size', async () => {
    const programs = [
      'return Object.values("字".repeat(7e6)).length',
      'return Reflect.ownKeys(new String("a".repeat(4e6))).length',
      'return Object.getOwnPropertyNames(new Uint8Array(3e7)).length',
      'return Object.keys(new Uint8Array(5e7)).length',
      'return Object.getOwnPropertyDescriptors("a".repeat(1e6)).length',
      'return Object.assign({}, "a".repeat(8e6)).length',
      'const s = "a".repeat(8e6);\nreturn Object.keys({ ...s }).length',
      'let n = 0;\nfor (const k in "a".repeat(8e6)) n++;\nreturn n;',
      'return Array.from(new Intl.Segmenter("en", { granularity: "word" }).segment("a b ".repeat(2e6))).length',
      'return new Intl.Segmenter().segment("a".repeat(8e6))[Symbol.iterator]().toArray().length',
      'return "a".repeat(1.6e7)[Symbol.iterator]().toArray().length',
      'const m = new Map(Array.from({ length: 4e5 }, (_, i) => [i, i]));\nconst k = [];\nfor (;;) k.push([...m.entries()]);',
      'const s = new Set(Array.from({ length: 4e5 }, (_, i) => i));\nconst k = [];\nfor (;;) k.push(Array.from(s.entries()));',
      'return [..."a".repeat(4e6).matchAll(/a/g)].length',
      'return new Set(new Intl.Segmenter().segment("a".repeat(8e6))).size',
      'return JSON.parse("[" + "{},".repeat(4e6) + "{}]").length',
      'return new URLSearchParams("a=1&".repeat(4e6)).size',
      'const big = "x".repeat(4e6);\nreturn Array(60).fill(big).join("").length',
      'return Array(15000).fill(Array(5000).fill(0)).flat().length',
      'const row = Array(5000).fill(0);\nreturn Array(15000).fill(0).flatMap(() => row).length',
      'return String.raw({ raw: { length: 1e9 } }).length',
    ];
    for (const code of programs) await limited(code);
    // An array that holds itself, flattened to any depth: V8's own RangeError, at once.
    expect((await runCode('const a = [];\na.push(a);\nreturn a.flat(Infinity).length')).error).toMatchObject({ kind: 'error', name: 'RangeError' });
  });

  it('objects, entries and slots made one at a time in loops and callbacks are charged, so the memory limit ends them before the heap', async () => {
    // A fast idle machine runs all 5 M steps within the CPU limit: memory, not time, must decide.
    const programs = [
      'const out = [];\nfor (let i = 0; i < 4.9e6; i++) out.push({ i, s: "x" + i });\nreturn out.length',
      'const m = new Map();\nfor (let i = 0; i < 4.9e6; i++) m.set(i, i);\nreturn m.size',
      'const o = {};\nfor (let i = 0; i < 4.9e6; i++) o[i * 2] = i;\nreturn Object.keys(o).length',
      'const a = [];\nfor (let i = 0; i < 4.9e6; i++) a[i] = i + 0.5;\nreturn a.length',
      'const a = Array.from({ length: 3e6 }, (_, i) => i);\nreturn a.map(Object).length',
      'return Array.from({ length: 4.9e6 }, () => ({ a: 1, b: 2, c: 3 })).length',
      'function f(n) { return n ? { n, next: f(n - 1) } : null; }\nconst k = [];\nfor (let j = 0; j < 2000; j++) k.push(f(2000));\nreturn k.length',
      'const k = [];\nfor (let i = 0; i < 4.9e6; i++) k.push(String(i));\nreturn k.length',
      'const k = [];\nfor (let i = 0; i < 4.9e6; i++) k.push(Promise.resolve(i));\nreturn k.length',
      'const k = [];\nfor (let i = 0; i < 4.9e6; i++) k.push(Object.create(null));\nreturn k.length',
      'const k = [];\nfor (let i = 0; i < 4.9e6; i++) k.push(Symbol());\nreturn k.length',
      'const k = [];\nfor (let i = 0; i < 4.9e6; i++) k.push(new Error());\nreturn k.length',
      'const k = [];\nfor (let i = 0; i < 4.9e6; i++) { try { null.x; } catch (e) { k.push(e); } }\nreturn k.length',
      'function* g() {}\nconst k = [];\nfor (let i = 0; i < 4.9e6; i++) k.push(g());\nreturn k.length',
      'async function a() {}\nconst k = [];\nfor (let i = 0; i < 4.9e6; i++) k.push(a());\nreturn k.length',
      'function f() {}\nconst k = [];\nfor (let i = 0; i < 4.9e6; i++) k.push(f.bind(null, i));\nreturn k.length',
      'const k = [];\nfor (let i = 0; i < 4.9e6; i++) k.push(new RegExp("a" + i));\nreturn k.length',
      'const k = [];\nfor (let i = 0; i < 4.9e6; i++) k.push(new Intl.NumberFormat("en", { maximumFractionDigits: i % 20 }));\nreturn k.length',
    ];
    for (const code of programs) expect(await limited(code, { cpuMs: 120_000, timeoutMs: 120_000 }), code).toMatch(/^Memory limit: /);
    // Updating what exists makes nothing new: a counting loop over 1 M items is not charged per update.
    const counted = await runCode('const m = new Map();\nconst o = {};\nfor (let i = 0; i < 1e6; i++) { m.set(i % 100, (m.get(i % 100) ?? 0) + 1); }\nreturn m.get(7);', { limits: { cpuMs: 120_000 } });
    expect(counted).toMatchObject({ ok: true, json: '10000' });
  });

  it('an argument list applied costs what its spread costs, whatever the callee makes from it', async () => {
    // Each crashed the runtime through a production-sized isolate: 60,000 arguments a call, nothing charged for the result.
    const programs = [
      'const a = new Array(60000).fill(0x5b57);\nconst k = [];\nfor (let i = 0; i < 3000; i++) k.push(String.fromCharCode.apply(null, a));\nreturn k.length',
      'const a = new Array(60000).fill(0x1f600);\nconst k = [];\nfor (let i = 0; i < 3000; i++) k.push(Reflect.apply(String.fromCodePoint, null, a));\nreturn k.length',
      'const a = new Array(60000).fill(1);\nconst k = [];\nfor (let i = 0; i < 3000; i++) k.push(Reflect.apply(Array.of, null, a), Array.of.apply(null, a));\nreturn k.length',
    ];
    for (const code of programs) expect(await limited(code, { cpuMs: 120_000, timeoutMs: 120_000 }), code).toMatch(/^Memory limit: /);
    const out = await runCode('return Math.max.apply(null, [1, 5, 3]) + Reflect.apply(String.fromCharCode, null, [104, 105]).length + Reflect.construct(Array, [1, 2]).length;');
    expect(out).toMatchObject({ ok: true, json: '9' });
  });

  it('ordinary uses of the same built-ins stay well within the budget', async () => {
    const programs: Array<[string, unknown]> = [
      ['const rows = Array.from({ length: 10000 }, (_, i) => ({ id: i, tags: ["a", "b"] }));\nreturn Object.entries(rows[7]).length + Object.keys(rows).length;', 10002],
      ['return [...new Intl.Segmenter("en", { granularity: "word" }).segment("the quick brown fox")].filter((s) => s.isWordLike).length;', 4],
      ['const m = new Map([[1, "a"], [2, "b"]]);\nreturn [...m.entries()].flat().join("-");', '1-a-2-b'],
      ['let n = 0;\nfor (const k in { a: 1, b: 2 }) n++;\nfor (const c of "héllo") n++;\nreturn n;', 7],
      ['return [[1, [2]], [3]].flat(Infinity).concat([[4]].flatMap((x) => x)).join();', '1,2,3,4'],
      ['return Object.assign({}, { a: 1 }, "xy", [7]);', { 0: 7, 1: 'y', a: 1 }],
      ['const o = { ...[1, 2], ..."ab", c: 3 };\nreturn Object.keys(o).join();', '0,1,c'],
      ['return Array.from("a𝒳b").length + Array.from(new Set([1, 1, 2])).length;', 5],
    ];
    for (const [code, expected] of programs) {
      const out = await runCode(code);
      expect(out.error, code).toBeUndefined();
      expect(JSON.parse(out.json!), code).toEqual(expected);
    }
  });
});

describe('serialisation stops at its budget, under the guards', () => {
  beforeAll(warmUp, 60_000);

  it('issue 36: a result of 75 M shared elements is a result limit, not seconds of native work', async () => {
    const out = await runCode('return Array(15000).fill(Array(5000).fill(0))');
    expect(out.error).toMatchObject({ kind: 'limit' });
    expect(out.error!.message).toMatch(/^Result limit: the return value is more than 25000 tokens of JSON, over the 25000 tokens left in the result budget/);
    expect(out.ms).toBeLessThan(10_000);
    expect(await stillServing()).toBe(true);
  });

  it("the program's own JSON.stringify of shared rows stops at the largest string; a small one is exactly V8's", async () => {
    await limited('const rows = Array(15000).fill(Array(5000).fill(12345));\nreturn JSON.stringify(rows).length');
    expect(await limited('const rows = Array(15000).fill(Array(5000).fill(12345));\nreturn JSON.stringify(rows).length', { maxSteps: 1e9, cpuMs: 60_000 })).toMatch(/^Memory limit: JSON\.stringify would make a string of more than/);
    expect(await limited('const row = { a: "b".repeat(1e6) };\nreturn JSON.stringify(Array(200).fill(row)).length')).toMatch(/^(Memory|Step|CPU) limit: /);
  });

  it('console.log of the same value keeps the log budget and says at least how much was dropped', async () => {
    const code = 'console.log("rows", Array(15000).fill(Array(5000).fill(0)));\nreturn 1;';
    const out = await runCode(code);
    expect(out).toMatchObject({ ok: true, json: '1' });
    expect(out.logs.length).toBeLessThanOrEqual(20_000);
    expect(out.logs.startsWith('rows [[0,0,0')).toBe(true);
    expect(out.droppedAtLeast).toBe(true);
    expect((executeResult(out, code).content[1] as { text: string }).text).toMatch(/\n\[at least \d+ more characters of console output were dropped\]$/);
  });

  it('a thrown value of 75 M shared elements is cut in the error text', async () => {
    const out = await runCode('throw Array(15000).fill(Array(5000).fill(0));');
    expect(out.error).toMatchObject({ kind: 'error' });
    expect(out.error!.message).toMatch(/^Uncaught \[\[0,0,/);
    expect(out.error!.message.length).toBeLessThanOrEqual(4_000);
  });

  it('JSON.stringify keeps its semantics: toJSON, replacers, indents, wrappers, holes, cycles, escapes', async () => {
    const cases = () => {
      const d = new Date(0);
      const o = { b: [1, undefined, () => 1, Symbol('s'), NaN, -0, Infinity], a: { toJSON: (k: string) => `key:${k}` }, u: undefined, s: 'q"\\\n\u0001\ud800é字', d };
      const sparse = [1, , 3]; // eslint-disable-line no-sparse-arrays
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      let circular = 'none';
      try {
        JSON.stringify(cyclic);
      } catch (e) {
        circular = (e as Error).name;
      }
      return [
        JSON.stringify(o),
        JSON.stringify(o, null, 2),
        JSON.stringify(o, ['b', 's', 'missing'], '\t'),
        JSON.stringify(o, (k, v) => (typeof v === 'number' ? v * 2 : v)),
        JSON.stringify([new Number(3), new String('x'), new Boolean(false), sparse, {}, []], null, new Number(3) as unknown as number),
        JSON.stringify(undefined),
        JSON.stringify(() => 1),
        JSON.stringify('plain'),
        JSON.stringify({ nested: { deeper: [{}] } }, null, 'abcdefghijklmn'),
        circular,
      ];
    };
    const out = await runCode(`return (${cases.toString()})();`);
    expect(out.error).toBeUndefined();
    expect(JSON.parse(out.json!)).toEqual(JSON.parse(JSON.stringify(cases())));
  });
});
