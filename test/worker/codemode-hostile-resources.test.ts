// Hostile programs against the sandbox's resources, by class (docs/code-mode.md, "Threat model"): memory (ropes
// included), liveness (catastrophic regexes, slow native work in loops), waiting versus computing, the result budget
// in tokens, and the messages a model gets. The exact programs of issue 23 are here, with variants of each class.
import { beforeAll, describe, expect, it } from 'vitest';
import { estimateTokens } from '../../src/lib/tokens.ts';
import { executeResult } from '../../src/codemode/execute-result.ts';
import type { ToolCall } from '../../src/codemode/api-reply.ts';
import { runCode, stillServing, warmUp } from './fixtures/codemode.ts';

const failure = async (code: string, limits = {}) => {
  const out = await runCode(code, { limits });
  expect(out.ok, code).toBe(false);
  expect(await stillServing()).toBe(true);
  return out.error!;
};
const MEMORY = /^Memory limit: /;

describe('hostile programs: memory counts what a program holds', () => {
  beforeAll(warmUp, 60_000);

  it('issue 23: ropes doubled with s + s and flattened are counted (2 and 16 of them)', async () => {
    for (const n of [2, 16]) {
      const error = await failure(`const k = []; for (let j = 0; j < ${n}; j++) { let s = "x" + j; for (let i = 0; i < 27; i++) s = s + s; s.indexOf("z"); k.push(s) } return k.length`);
      expect(error).toMatchObject({ kind: 'limit', line: 1 });
      expect(error.message).toMatch(MEMORY);
    }
  });

  it('every way of building big strings is counted: +=, templates, concat, repeat, join, padStart, replaceAll, encoding', async () => {
    const programs = [
      'let s = "ab"; const k = [];\nfor (;;) { s += s; k.push(s.charCodeAt(s.length - 1)); }',
      'let s = "ab";\nfor (;;) { s = `${s}${s}`; s.indexOf("z"); }',
      'let s = "ab";\nfor (;;) s = s.concat(s);',
      'const k = [];\nfor (let i = 0; i < 1e6; i++) k.push("x".repeat(1 << 20) + i);',
      'const k = [];\nconst part = "y".repeat(1000);\nfor (;;) k.push(part + k.length);',
      'const k = [];\nfor (;;) k.push(Array(1e6).fill("abcdefgh").join("-"));',
      'return "x".padStart(2 ** 29).length;',
      'return "a".repeat(1e6).replaceAll("a", "b".repeat(500)).length;',
      'return encodeURIComponent("\\u4e00".repeat(4e6)).length;',
      'const k = [];\nfor (;;) k.push(JSON.stringify(Array(1e5).fill({ a: "bbbbbbbb" })));',
    ];
    for (const code of programs) {
      const error = await failure(code);
      expect(error.kind, code).toBe('limit');
      expect(error.message, code).toMatch(/^(Memory|Step|CPU) limit: /);
    }
  });

  it('arrays, typed arrays, maps and copies are counted, sparse lengths included', async () => {
    const programs = [
      'const k = [];\nfor (;;) k.push(new Float64Array(1e6));',
      'const a = new Uint8Array(1e7);\nconst k = [];\nfor (;;) k.push(a.slice());',
      'const a = Array.from({ length: 1e6 }, (_, i) => i);\nconst k = [];\nfor (;;) k.push(a.toSorted());',
      'const a = Array(5e5).fill(1);\nconst k = [];\nfor (;;) k.push(Object.entries(a));',
      'const a = Array(5e5).fill(1).map((_, i) => i);\nconst k = [];\nfor (;;) k.push(new Set(a));',
      'const a = [];\na.length = 2 ** 32 - 1;\nreturn a.indexOf(1);',
      'const a = [];\na[2 ** 32 - 2] = 1;\nreturn [...a.keys()].length;',
      'const a = [];\na.length = 2 ** 32 - 1;\nreturn JSON.stringify({ a }).length;',
    ];
    for (const code of programs) {
      const error = await failure(code);
      expect(error.kind, code).toBe('limit');
      expect(error.message, code).toMatch(/^(Memory|Step|CPU) limit: /);
    }
  });

  it("the program's own literals and the copies natives make are counted", async () => {
    const big = `[${Array(20_000).fill('0').join(',')}]`;
    const programs = [
      `const k = [];\nfor (;;) k.push(${big});`,
      `const k = [];\nconst f = () => ${big};\nfor (;;) k.push(f());`,
      'const m = "e".repeat(1e6);\nconst k = [];\nfor (;;) k.push(new Error(m).stack);',
      'const m = "u".repeat(1e6);\nconst k = [];\nfor (;;) k.push(new URL("http://h/" + m).href);',
      `function f() { return ${big}; }\nconst k = [];\nfor (;;) k.push(f.toString());`,
      'const s = new Set(Array.from({ length: 2e5 }, (_, i) => i));\nconst k = [];\nfor (;;) k.push(s.union(new Set([-1])));',
      'const a = Array.from({ length: 2e5 }, (_, i) => ({ ["k" + i]: i }));\nconst o = Object.assign({}, ...a.slice(0, 5e4));\nconst k = [];\nfor (;;) k.push(Reflect.ownKeys(o));',
    ];
    for (const code of programs) {
      const error = await failure(code);
      expect(error.kind, code.slice(0, 80)).toBe('limit');
      expect(error.message, code.slice(0, 80)).toMatch(/^(Memory|Step|CPU) limit: /);
    }
    // Ordinary loops that build small objects are not charged for them.
    const ok = await runCode('const out = [];\nfor (let i = 0; i < 100000; i++) out.push({ n: i, title: "t" + i, open: i % 2 === 0 });\nreturn out.length;');
    expect(ok).toMatchObject({ ok: true, json: '100000' });
  });

  it('a memory bomb does not fail another execution running at the same time', async () => {
    const [bomb, other] = await Promise.all([
      runCode('const k = [];\nfor (let j = 0; j < 64; j++) { let s = "x" + j; for (let i = 0; i < 26; i++) s = s + s; s.indexOf("z"); k.push(s); }\nreturn k.length;'),
      runCode('await scheduler.wait(50);\nreturn (await api.echo({ n: 42 })).n;'),
    ]);
    expect(bomb.error?.message).toMatch(MEMORY);
    expect(other).toMatchObject({ ok: true, json: '42' });
  });
});

describe('ordinary programs are not refused by the guards', () => {
  beforeAll(warmUp, 60_000);

  it('big but ordinary data work runs to its result', async () => {
    const programs: Array<[string, unknown]> = [
      ['const out = [];\nfor (let i = 0; i < 200000; i++) out.push({ n: i, t: "t" + i });\nreturn out.filter((x) => x.n % 2).map((x) => x.n).reduce((a, b) => a + b, 0);', 10000000000],
      ['const a = Array.from({ length: 20000 }, (_, i) => ({ id: (i * 7919) % 20000 }));\na.sort((x, y) => x.id - y.id);\nreturn a[19999].id;', 19999],
      ['const ids = Array.from({ length: 2000 }, (_, i) => i);\nlet hits = 0;\nfor (let i = 0; i < 2000; i++) if (ids.includes(i * 3)) hits++;\nreturn hits;', 667],
      ['let out = "";\nfor (let i = 0; i < 3000; i++) out += `| ${i} | issue title number ${i} |\\n`;\nreturn out.length;', 102780],
      ['const rows = [];\nfor (let i = 0; i < 5000; i++) rows.push(["#" + i, "label-" + (i % 7), "open"].join(","));\nreturn rows.join("\\n").split("\\n").filter((r) => /label-3,/.test(r)).length;', 714],
      ['const data = Array.from({ length: 20000 }, (_, i) => ({ id: i, body: "x".repeat(50) }));\nconst s = JSON.stringify(data);\nreturn JSON.parse(s).length + Object.keys(data[0]).length;', 20002],
      ['const byLabel = new Map();\nfor (let i = 0; i < 50000; i++) { const k = "l" + (i % 100); byLabel.set(k, (byLabel.get(k) ?? 0) + 1); }\nreturn Object.fromEntries(byLabel).l7;', 500],
    ];
    for (const [code, expected] of programs) {
      const out = await runCode(code);
      expect(out.error, code).toBeUndefined();
      expect(JSON.parse(out.json!), code).toEqual(expected);
    }
  });
});

describe('hostile programs: no program holds the runtime', () => {
  beforeAll(warmUp, 60_000);

  it('issue 23: the catastrophic regex answers at once, in every form a program can write it', async () => {
    const forms = [
      'return /^(a+)+$/.test("a".repeat(40) + "b");',
      'return new RegExp("^(a+)+$").test("a".repeat(40) + "b");',
      'return ("a".repeat(40) + "b").match("^(a+)+$");',
      'return ("a".repeat(40) + "b").search(/^(a+)+$/);',
      'return ("a".repeat(40) + "b").replace(/^(a+)+$/, "x").length;',
      'return ("a".repeat(40) + "b").split(/(a+)+b/).length;',
      'return [..."aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac".matchAll(/(a|aa)+b/g)].length + [..."aab aab".matchAll(/(a|aa)+b/g)].length;',
    ];
    const answers = [];
    for (const code of forms) {
      const out = await runCode(code);
      expect(out.error, code).toBeUndefined();
      answers.push(JSON.parse(out.json!));
    }
    expect(answers).toEqual([false, false, null, -1, 41, 3, 2]);
  });

  it('issue 23: 200 slow regex tests in a loop finish well within the CPU limit', async () => {
    const out = await runCode('let n = 0;\nfor (let i = 0; i < 200; i++) if (/^(a+)+$/.test("a".repeat(24) + "b")) n++;\nreturn n;');
    expect(out).toMatchObject({ ok: true, json: '0' });
  });

  it('regular expressions behave as JavaScript\'s for ordinary use; lookahead and backreferences are a clear SyntaxError', async () => {
    const out = await runCode(`return [
  "a-b_c".replace(/[-_]/g, (m) => (m === "-" ? "+" : "=")),
  "2024-01-05".match(/(?<y>\\d+)-(\\d+)/).groups.y,
  "a,b,,c".split(/,/),
  [..."x1y22z".matchAll(/\\d+/g)].map((m) => m[0] + "@" + m.index),
  "John Smith".replace(/(\\w+)\\s(\\w+)/, "$2, $1"),
  /HELLO/i.test("say hello"),
  "a\\nb".match(/^b$/m)[0],
  (() => { const r = /o/g; const seen = []; let m; while ((m = r.exec("foo boo"))) seen.push(m.index); return seen; })(),
  "x".replace("x", "$&$&"),
];`);
    expect(JSON.parse(out.json!)).toEqual(['a+b=c', '2024', ['a', 'b', '', 'c'], ['1@1', '22@3'], 'Smith, John', true, 'b', [1, 2, 5, 6], 'xx']);
    for (const code of ['return /(?=a)b/.test("ab");', 'return /(a)\\1/.test("aa");']) {
      const error = await failure(code);
      expect(error, code).toMatchObject({ kind: 'error', name: 'SyntaxError', line: 1 });
      expect(error.message, code).toMatch(/linear-time engine, RE2: lookahead, lookbehind with captures and backreferences are not supported/);
    }
  });

  it('slow native work inside loops is stopped by the CPU or step limit', async () => {
    const programs = [
      'const a = Array.from({ length: 1e6 }, (_, i) => i);\nfor (;;) a.sort();',
      'const s = "ab".repeat(2 ** 22);\nlet n = 0;\nfor (;;) n += s.indexOf("abc");',
      'const a = Array(1e6).fill(7);\nlet n = 0;\nfor (;;) n += a.includes(8) ? 1 : 0;',
      'const s = "a".repeat(1e6);\nfor (;;) /a*a*a*a*b/.test(s);',
      'const a = Array(4e6).fill(1);\nfor (;;) a.reverse();',
    ];
    for (const code of programs) {
      const error = await failure(code, { maxSteps: 1e9 });
      expect(error.kind, code).toBe('limit');
      expect(error.message, code).toMatch(/^(CPU|Step) limit: /);
    }
  });

  it('a sort whose comparator is a built-in pays for its comparisons before it runs', async () => {
    // Intl.Collator's compare is native: no guard runs in it, so one sort of 1 M strings was 4.5 s of one native call;
    // a native comparison also scans its strings, so their length counts, however few there are.
    for (const code of [
      'const a = Array.from({ length: 1e6 }, (_, i) => "k" + ((i * 7919) % 1e6));\nconst c = new Intl.Collator("en");\nfor (;;) a.sort(c.compare);',
      'const u = new Float64Array(1e6).map((_, i) => (i * 7919) % 1e6);\nreturn u.toSorted(new Intl.Collator("en").compare)[5];',
      // Few elements, long strings: each native comparison scans them (12 s, and 73 s with the Collator's compare).
      'const s1 = "a".repeat(1.6e7);\nconst s2 = "a".repeat(1.5e7) + "a".repeat(1e6);\nconst a = [];\nfor (let i = 0; i < 4000; i++) a.push(i % 2 ? s1 : s2);\na.sort();\nreturn 1;',
      'const s1 = "a".repeat(1.6e7);\nconst s2 = "a".repeat(1.5e7) + "a".repeat(1e6);\nconst a = [];\nfor (let i = 0; i < 4000; i++) a.push(i % 2 ? s1 : s2);\nreturn a.toSorted(new Intl.Collator("en").compare).length;',
    ]) {
      const error = await failure(code);
      expect(error.message, code).toMatch(/^Step limit: /);
    }
    const out = await runCode('const a = ["b", "a", "c"];\nreturn a.sort(new Intl.Collator("en").compare).join() + new Float64Array([3, 1, 2]).sort().join();');
    expect(out).toMatchObject({ ok: true, json: '"a,b,c1,2,3"' });
  });

  it('BigInt, whose arithmetic no guard can interrupt, is refused', async () => {
    expect(await failure('return 2n ** 100000000n;')).toMatchObject({ kind: 'forbidden', line: 1 });
    expect(await failure('return BigInt(2) ** BigInt(1e8);')).toMatchObject({ kind: 'error', name: 'ReferenceError' });
    expect(await failure('const v = new DataView(new ArrayBuffer(8));\nreturn typeof v.getBigInt64(0);')).toMatchObject({ kind: 'error', name: 'TypeError', line: 2 });
  });

  it('a CPU-bound program does not keep a concurrent execution waiting for its whole wall limit', async () => {
    const started = Date.now();
    let otherDone = 0;
    const [hog, other] = await Promise.all([
      runCode('let x = 0;\nfor (;;) { x = (x * 31 + 7) % 1000003; }', { limits: { maxSteps: 1e12, timeoutMs: 60_000 } }),
      runCode('return 6 * 7').then((r) => ((otherDone = Date.now() - started), r)),
    ]);
    expect(hog.error?.message).toBe('CPU limit: the program computed for more than 1000 ms.');
    expect(other.json).toBe('42');
    // Bounded by the hog's CPU limit (1 s), not by its 60 s wall limit; generous for a loaded machine.
    expect(otherDone).toBeLessThan(20_000);
  });
});

describe('hostile programs: waiting is not computing', () => {
  beforeAll(warmUp, 60_000);

  it('issue 23: scheduler.wait(1500) then a small loop, and setInterval, are within a 1000 ms CPU limit', async () => {
    const waited = await runCode('await scheduler.wait(1500);\nlet x = 0;\nfor (let i = 0; i < 3; i++) x++;\nreturn x;');
    expect(waited).toMatchObject({ ok: true, json: '3' });
    const ticks = await runCode('let n = 0;\nawait new Promise((done) => { const id = setInterval(() => { if (++n === 5) { clearInterval(id); done(); } }, 300); });\nreturn n;');
    expect(ticks).toMatchObject({ ok: true, json: '5' });
  });

  it('a slow api call is waiting too, and computing after a wait is still counted', async () => {
    const slow: ToolCall = async () => {
      await new Promise((r) => setTimeout(r, 1500));
      return { ok: true, value: 1, size: 1 };
    };
    const out = await runCode('const v = await api.slow({});\nlet x = 0;\nfor (let i = 0; i < 1000; i++) x += i;\nreturn v + x;', { call: slow });
    expect(out).toMatchObject({ ok: true, json: '499501' });
    const busy = await failure('await scheduler.wait(200);\nlet x = 0;\nfor (;;) { x = (x * 31 + 7) % 1000003; }', { maxSteps: 1e12, cpuMs: 300 });
    expect(busy).toMatchObject({ kind: 'limit', message: 'CPU limit: the program computed for more than 300 ms.', line: 3 });
  });
});

describe('hostile programs: the result budget is in tokens', () => {
  beforeAll(warmUp, 60_000);

  it("issue 23: '字'.repeat(99000) is over the 25,000-token budget; 20,000 CJK characters or 90,000 characters of English words fit", async () => {
    const cjk = await failure("return '字'.repeat(99000)");
    // o200k: 99,002 tokens (src/lib/tokens.ts estimates; test/node/token-estimate.test.ts checks it against the tokenizer).
    expect(cjk.message).toMatch(/^Result limit: the return value is about 98996 tokens of JSON, over the 25000 tokens left in the result budget \(25000 tokens in all, console output included\)/);
    expect((await runCode("return '字'.repeat(20000)")).ok).toBe(true);
    expect((await runCode("return 'hello world '.repeat(7500)")).ok).toBe(true);
    // One letter repeated merges into long tokens or none at all ('z'.repeat(n) is n/2 tokens): no discount past 32.
    expect((await failure("return 'z'.repeat(90000)")).message).toMatch(/^Result limit: the return value is about 44995 tokens/);
  });

  it('console output is cut to its token budget, CJK included', async () => {
    const out = await runCode("console.log('字'.repeat(30000));\nreturn 1;");
    expect(out.ok).toBe(true);
    expect(estimateTokens(out.logs)).toBeLessThanOrEqual(5000);
    expect(out.logs.length).toBeGreaterThan(4900);
    expect(out.logs.length + out.droppedLogChars).toBe(30000);
  });
});

describe('hostile programs: clear messages', () => {
  beforeAll(warmUp, 60_000);

  it('issue 23: returning a function, a Symbol, a Map or a Set says so', async () => {
    const cases: Array<[string, RegExp]> = [
      ['return () => 1;', /^The program returned a function, which JSON cannot carry\./],
      ['return Symbol("x");', /^The program returned a Symbol, which JSON cannot carry\./],
      ['return new Map([[1, 2]]);', /holds a Map, which JSON would turn into \{\}\. Convert it first, e\.g\. Object\.fromEntries\(map\)/],
      ['return { tags: new Set(["a"]) };', /holds a Set \(at key "tags"\), which JSON would turn into \{\}\. Convert it first, e\.g\. \[\.\.\.set\]/],
    ];
    for (const [code, message] of cases) {
      const error = await failure(code);
      expect(error, code).toMatchObject({ kind: 'error', name: 'TypeError' });
      expect(error.message, code).toMatch(message);
    }
  });

  it('issue 23: a setTimeout loop past the time limit is a time limit', async () => {
    const error = await failure('function tick() { setTimeout(tick, 10); }\ntick();\nawait new Promise(() => {});', { timeoutMs: 500 });
    expect(error).toMatchObject({ kind: 'limit', message: 'Time limit: the program ran longer than 500 ms.' });
  });

  it('issue 23: a stray } is blamed on its own line', async () => {
    const code = 'const x=1;\n}\nreturn 2;';
    const out = await runCode(code);
    expect(out.error).toMatchObject({ kind: 'syntax', line: 2 });
    expect((executeResult(out, code).content[0] as { text: string }).text).toBe('SyntaxError: Unexpected "}": it closes the program before its end. Check that every { has a matching }. (line 2)\n  2 | }');
  });
});
