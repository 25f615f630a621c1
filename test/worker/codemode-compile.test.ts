// The code-mode compiler inside workerd (it must run without eval): TypeScript stripped with lines kept,
// imports and reserved names refused, and every loop, function and spread instrumented.
import { describe, expect, it } from 'vitest';
import { compileProgram, RESERVED_PREFIX } from '../../src/codemode/compile.ts';
import { runCode, warmUp } from './fixtures/codemode.ts';

const MAX = 100_000;

function compiled(code: string): string {
  const out = compileProgram(code, MAX);
  if (!out.ok) throw new Error(`compile failed: ${out.error.message}`);
  return out.module;
}

const count = (text: string, needle: string) => text.split(needle).length - 1;

describe('code mode compiler', () => {
  it('strips TypeScript and keeps every line where it was', () => {
    const code = [
      'interface Issue { number: number; title?: string }',
      'type Counts = Record<number, number>;',
      'const issues = (await api.list({})) as Issue[];',
      'const counts: Counts = {};',
      'const first = issues[0]!;',
      'const ids = issues.map(<T extends Issue>(i: T): number => i.number) satisfies number[];',
      'enum Kind { Bug, Feature }',
      'function pick(this: void, a: string, b?: number): string { return a; }',
      'return { counts, first, ids, kind: Kind.Feature, p: pick("x") };',
    ].join('\n');
    const module = compiled(code);
    const lines = module.split('\n');
    // The module is the program's lines plus the closing brace and a newline.
    expect(lines.length).toBe(code.split('\n').length + 2);
    expect(lines[2]).toContain('const issues = (await api.list({}))');
    expect(lines[8]).toContain('return { counts, first, ids');
    expect(module).not.toMatch(/interface|: Counts|as Issue|satisfies|<T extends/);
  });

  it('puts a guard in every loop body and function body, and wraps every spread and for-in object', () => {
    const module = compiled(
      'for (let i = 0; i < 3; i++) {}\nwhile (false) x();\ndo {} while (false);\nfor (const a of [...b]) {}\nfor (const k in {}) ;\nfunction f() {}\nconst g = () => 1;\nconst h = async () => { return 2; };\nclass C { m() {} get v() { return 1; } }\nconst o = { ...p, q() {} };\nf(...args);',
    );
    // Bodies that call something or are async are charged for what a call or a promise makes.
    expect(count(module, '__cm_g(')).toBe(5 + 6);
    expect(count(module, '__cm_g()')).toBe(5 + 6 - 2);
    expect(count(module, '__cm_s(')).toBe(4);
    // Iterated spreads and for-in say so: they are charged per element and per key, {...p} per property.
    expect(module).toContain('[...__cm_s(b, 1)]');
    expect(module).toContain('f(...__cm_s(args, 1))');
    expect(module).toContain('{ ...__cm_s(p), q()');
    expect(module).toContain('for (const k in __cm_s({}, 2)) {__cm_g();;}');
    expect(module).toContain('while (false) {__cm_g(16);x();}');
    expect(module).toContain('const h = async () => {__cm_g(64); return 2; };');
    expect(module).toContain('const g = () => (__cm_g(), 1);');
  });

  it('keeps nested and concise forms valid', async () => {
    await warmUp();
    const code = 'const out = [];\nouter: for (const a of [1, 2, 3]) for (const b of [1, 2]) { if (b === 2) continue outer; out.push([a, b]); }\nconst obj = (() => ({ n: out.length }))();\nlet i = 0;\ndo i++; while (i < 5)\nreturn { out, obj, i, spread: [...out, ...[9]].length };';
    const out = await runCode(code);
    expect(JSON.parse(out.json!)).toEqual({ out: [[1, 1], [2, 1], [3, 1]], obj: { n: 3 }, i: 5, spread: 4 });
  });

  it('refuses imports in every form, with the line', () => {
    for (const [code, line] of [
      ['import { connect } from "cloudflare:sockets";', 1],
      ['const x = 1;\nimport fs from "node:fs";', 2],
      ['const x = 1;\n\nconst m = await import("cloudflare:workers");', 3],
      ['return import.meta.url;', 1],
      ['export const x = 1;', 1],
    ] as const) {
      const out = compileProgram(code, MAX);
      expect(out.ok, code).toBe(false);
      if (!out.ok) expect(out.error, code).toMatchObject({ kind: 'forbidden', line });
    }
  });

  it(`refuses names starting with ${RESERVED_PREFIX}, however they are written`, () => {
    for (const code of ['let __cm_g = () => {};\nreturn 1;', 'const x = 1;\nconst __cm_anything = 2;', 'const \\u005f_cm_g = 1;', 'return obj.__cm_s;']) {
      const out = compileProgram(code, MAX);
      expect(out.ok, code).toBe(false);
      if (!out.ok) expect(out.error.message, code).toMatch(/^Names starting with __cm are reserved; rename __cm/);
    }
  });

  it('refuses code that closes the function body early, blaming the stray }', () => {
    const message = 'SyntaxError: Unexpected "}": it closes the program before its end. Check that every { has a matching }.';
    expect(compileProgram('return 1;\n}\nexport const leaked = 2;\n{', MAX)).toEqual({ ok: false, error: { kind: 'syntax', message, line: 2 } });
    expect(compileProgram('}; (function () {', MAX)).toEqual({ ok: false, error: { kind: 'syntax', message, line: 1 } });
    expect(compileProgram('const x=1;\n}\nreturn 2;', MAX)).toEqual({ ok: false, error: { kind: 'syntax', message, line: 2 } });
    // Braces inside strings, templates and regular expressions are not counted.
    expect(compileProgram('const s = "}";\nconst t = `${"}"}`;\nconst r = /}/;\nreturn [s, t, r.source];', MAX).ok).toBe(true);
  });

  it('charges strings built with +, += and templates, and turns regex literals into the sandbox RegExp', () => {
    const module = compiled('let s = "a" + b;\ns += "c";\nconst t = `x${s}`;\nconst u = tag`y${s}`;\nconst r = /a+(b)/gi;\nreturn s.match(r);');
    expect(module).toContain('let s = __cm_c("a" + b);');
    expect(module).toContain('__cm_c(s += "c");');
    expect(module).toContain('const t = __cm_c(`x${s}`);');
    expect(module).toContain('const u = tag`y${s}`;');
    expect(module).toContain('const r = __cm_x("a+(b)", "gi");');
    expect(compileProgram('return 1 + 2;', MAX)).toMatchObject({ ok: true, regex: false });
    for (const code of ['return /x/.test("x");', 'return new RegExp("x");', 'return "x".match("x");', 'return s.search("x");', 'const { matchAll } = String.prototype;']) {
      expect(compileProgram(code, MAX), code).toMatchObject({ ok: true, regex: true });
    }
  });

  it('charges a generator per call and a catch per caught error; literals and calls in a body with its step', () => {
    const module = compiled('function* gen() { yield 1; }\nconst e = function* () {};\nconst o = { *m() {} };\ntry { x(); } catch (err) { y(); }\nfor (;;) out.push({ a: 1, b: [2] });');
    // A declaration keeps its hoisting: its name is rebound to the wrapper at the top of its block.
    expect(module).toContain('export default async function (api) {gen = __cm_f(gen);function* gen() {__cm_g(); yield 1; }');
    expect(module).toContain('const e = __cm_f(function* () {__cm_g();})');
    expect(module).toContain('const o = { *m() {__cm_g();} }');
    expect(module).toContain('catch (err) {__cm_g(256); y(); }');
    // { a, b: [2] } is 2 + 2 + 1 allocations of 16 bytes, push a call of 16.
    expect(module).toContain('for (;;) {__cm_g(96);out.push({ a: 1, b: [2] });}');
  });

  it('hands the guards over as imports, not parameters, and refuses BigInt literals', () => {
    const module = compiled('return arguments.length;');
    expect(module).toMatch(/^import \{ g as __cm_g, s as __cm_s, c as __cm_c, x as __cm_x, f as __cm_f \} from "\.\/guards\.js"; export default async function \(api\) \{return arguments\.length;/);
    expect(compileProgram('const x = 1;\nreturn 2n ** 64n;', MAX)).toMatchObject({ ok: false, error: { kind: 'forbidden', line: 2 } });
  });

  it('reports syntax errors with the line of the program, not of the wrapper', () => {
    const cases: Array<[string, number]> = [
      ['const a = ;', 1],
      ['const a = 1;\nconst b: = 2;', 2],
      ['const a = 1;\n\n\nif (a) {\n  return a;\n', 6],
      ['const s = "unterminated;\nreturn s;', 1],
    ];
    for (const [code, line] of cases) {
      const out = compileProgram(code, MAX);
      expect(out.ok, code).toBe(false);
      if (!out.ok) {
        expect(out.error.kind, code).toBe('syntax');
        expect(out.error.line, code).toBe(line);
        expect(out.error.message, code).toMatch(/^SyntaxError: /);
      }
    }
  });

  it('refuses programs over the size limit before compiling them', () => {
    expect(compileProgram('x'.repeat(101), 100)).toEqual({ ok: false, error: { kind: 'too_long', message: 'The program is 101 characters long; the limit is 100. Send a shorter program.' } });
  });
});
