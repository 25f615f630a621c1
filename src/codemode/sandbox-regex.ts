// The sandbox's regex.js (JavaScript source): the program's RegExp is RE2 (the re2js port, src/codemode/generated/
// re2.txt), which matches in time linear in the input, so no pattern can backtrack for minutes inside one native
// call (V8's engine can, and local workerd then blocks every request). Regex literals become this class at compile
// time; String.prototype.match, matchAll and search with a string argument, which would build V8's RegExp
// internally, build this one. Lookahead and backreferences have no linear-time form: they are a SyntaxError that
// says so. Each match charges steps for the text it scans times the pattern's size, and reads the clock on big inputs.
export const REGEX_MODULE = 'regex.js';
export const RE2_MODULE = 're2.js';
export const ENGINE_MODULE = 'engine.js';

/** engine.js: the RegExp engine when the program may use one, else null (see above). */
export function engineSource(regex: boolean): string {
  return regex ? `export { RE2JS } from './${RE2_MODULE}';\n` : 'export const RE2JS = null;\n';
}

export const REGEX_SOURCE = String.raw`
// engine.js re-exports re2.js for programs that may use regular expressions (compile.ts), else exports null: a
// static import, so the engine starts before the lockdown, at native speed and outside the program's budget.
import { RE2JS } from './engine.js';

const MISSING = 'This program cannot build a regular expression here: write it as a literal (/…/) or call RegExp, match, matchAll or search by name, so the sandbox loads its regular-expression engine.';

const { apply, construct, defineProperty } = Reflect;
const toStr = String;
const ErrorCtor = SyntaxError;
const TypeErrorCtor = TypeError;
const mathCeil = Math.ceil;
const arrayPush = Array.prototype.push;
const arrayJoin = Array.prototype.join;
const FLAGS = 'dgimsuvy';
const NOTE = ' (execute runs regular expressions on a linear-time engine, RE2: lookahead, lookbehind with captures and backreferences are not supported)';

export function regexEngine({ steps, mark, charge, maxString }) {
  const cache = new Map();
  const compiled = (source, flags) => {
    if (!RE2JS) throw construct(ErrorCtor, [MISSING]);
    const key = flags + '/' + source;
    let re = cache.get(key);
    if (re) return re;
    let f = RE2JS.LOOKBEHINDS;
    if (flags.includes('i')) f |= RE2JS.CASE_INSENSITIVE;
    if (flags.includes('m')) f |= RE2JS.MULTILINE;
    if (flags.includes('s')) f |= RE2JS.DOTALL;
    try {
      re = RE2JS.compile(RE2JS.translateRegExp(source), f);
    } catch (e) {
      throw construct(ErrorCtor, ['Invalid regular expression: /' + source + '/' + flags + ': ' + toStr(e && e.message) + NOTE]);
    }
    // A compiled program is kilobytes, kept by every RegExp made from it: \`new RegExp("a" + i)\` in a loop.
    charge(1024 + re.programSize() * 64);
    if (cache.size > 500) cache.clear();
    cache.set(key, re);
    return re;
  };
  // Scanning n characters costs about n × program size / 4096 steps; refused up front when it cannot fit.
  const scan = (re, n) => {
    if (n > 4096) {
      steps(mathCeil((n * (re.programSize() + 1)) / 4096));
      return true;
    }
    return false;
  };

  class RegExp {
    #re;
    #source;
    #flags;
    constructor(pattern, flags) {
      let source;
      if (pattern instanceof RegExp) {
        source = pattern.source;
        if (flags === undefined) flags = pattern.flags;
      } else source = pattern === undefined ? '(?:)' : toStr(pattern);
      flags = flags === undefined ? '' : toStr(flags);
      for (let i = 0; i < flags.length; i++) {
        if (!FLAGS.includes(flags[i]) || flags.indexOf(flags[i]) !== i) throw construct(ErrorCtor, ["Invalid flags supplied to RegExp constructor '" + flags + "'"]);
      }
      this.#source = source;
      this.#flags = [...FLAGS].filter((c) => flags.includes(c)).join('');
      this.#re = compiled(source, this.#flags);
      defineProperty(this, 'lastIndex', { value: 0, writable: true, enumerable: false, configurable: false });
    }
    get source() { return this.#source; }
    get flags() { return this.#flags; }
    get global() { return this.#flags.includes('g'); }
    get ignoreCase() { return this.#flags.includes('i'); }
    get multiline() { return this.#flags.includes('m'); }
    get dotAll() { return this.#flags.includes('s'); }
    get unicode() { return this.#flags.includes('u'); }
    get unicodeSets() { return this.#flags.includes('v'); }
    get sticky() { return this.#flags.includes('y'); }
    get hasIndices() { return this.#flags.includes('d'); }
    toString() { return '/' + this.#source + '/' + this.#flags; }
    static escape(s) { if (!RE2JS) throw construct(ErrorCtor, [MISSING]); return RE2JS.quote(toStr(s)); }

    // One match at or after \`from\` (exactly at it when sticky): an exec result, or null.
    #matchAt(s, from) {
      const re = this.#re;
      const big = scan(re, s.length - from);
      const m = re.matcher(s);
      const found = m.find(from);
      if (big) mark();
      if (!found || (this.sticky && m.start() !== from)) return null;
      const n = m.groupCount();
      // The match array with its index, input and groups: a spread of matchAll keeps every one.
      charge(64 + 16 * n);
      const out = [];
      for (let i = 0; i <= n; i++) { const g = m.group(i); apply(arrayPush, out, [g === null ? undefined : g]); }
      out.index = m.start();
      out.input = s;
      const names = re.namedGroups();
      let groups;
      for (const name in names) {
        if (!groups) groups = Object.create(null);
        const g = m.group(names[name]);
        groups[name] = g === null ? undefined : g;
      }
      out.groups = groups;
      if (this.hasIndices) {
        const indices = [];
        for (let i = 0; i <= n; i++) apply(arrayPush, indices, [m.group(i) === null ? undefined : [m.start(i), m.end(i)]]);
        out.indices = indices;
      }
      out.end = m.end();
      return out;
    }
    exec(input) {
      const s = toStr(input);
      const moves = this.global || this.sticky;
      const from = moves ? Math.max(0, Math.floor(Number(this.lastIndex)) || 0) : 0;
      if (from > s.length) { if (moves) this.lastIndex = 0; return null; }
      const r = this.#matchAt(s, from);
      if (moves) this.lastIndex = r ? r.end : 0;
      if (r) delete r.end;
      return r;
    }
    test(input) { return this.exec(input) !== null; }
    // Every match from the start, advancing past empty ones.
    #all(s, each) {
      let at = 0;
      while (at <= s.length) {
        const r = this.#matchAt(s, at);
        if (!r) break;
        steps(1);
        each(r);
        at = r.end > r.index ? r.end : r.end + 1;
        if (this.sticky && r.end === r.index) break;
      }
    }
    [Symbol.match](input) {
      const s = toStr(input);
      if (!this.global) return this.exec(s);
      const out = [];
      this.#all(s, (r) => { apply(arrayPush, out, [r[0]]); });
      this.lastIndex = 0;
      return out.length ? out : null;
    }
    *[Symbol.matchAll](input) {
      const s = toStr(input);
      const copy = new RegExp(this, this.flags);
      copy.lastIndex = this.lastIndex;
      for (;;) {
        const r = copy.exec(s);
        if (!r) return;
        if (r[0] === '') copy.lastIndex++;
        yield r;
      }
    }
    [Symbol.search](input) {
      const s = toStr(input);
      const r = this.#matchAt(s, 0);
      return r ? r.index : -1;
    }
    [Symbol.replace](input, replacement) {
      const s = toStr(input);
      const parts = [];
      let size = 0;
      let last = 0;
      const fn = typeof replacement === 'function';
      const text = fn ? '' : toStr(replacement);
      const one = (r) => {
        let piece;
        if (fn) {
          const args = [...r];
          apply(arrayPush, args, [r.index, s]);
          if (r.groups) apply(arrayPush, args, [r.groups]);
          piece = toStr(apply(replacement, undefined, args));
        } else piece = expand(text, r, s);
        size += r.index - last + piece.length;
        if (size > maxString) charge(Infinity);
        apply(arrayPush, parts, [s.slice(last, r.index), piece]);
        last = r.end;
      };
      if (this.global) { this.#all(s, one); this.lastIndex = 0; }
      else { const r = this.#matchAt(s, this.sticky ? this.lastIndex : 0); if (r) one(r); }
      apply(arrayPush, parts, [s.slice(last)]);
      charge(size + s.length - last);
      return apply(arrayJoin, parts, ['']);
    }
    [Symbol.split](input, limit) {
      const s = toStr(input);
      const max = limit === undefined ? 4294967295 : limit >>> 0;
      const out = [];
      if (max === 0) return out;
      if (s.length === 0) return this.#matchAt(s, 0) ? out : [s];
      let p = 0;
      let q = 0;
      while (q < s.length) {
        const r = this.#matchAt(s, q);
        if (!r || r.index >= s.length) break;
        const e = Math.min(r.end, s.length);
        if (e === p) { q = r.index + 1; continue; }
        apply(arrayPush, out, [s.slice(p, r.index)]);
        if (out.length === max) return out;
        for (let i = 1; i < r.length; i++) {
          apply(arrayPush, out, [r[i]]);
          if (out.length === max) return out;
        }
        p = e;
        q = p;
      }
      apply(arrayPush, out, [s.slice(p)]);
      charge(out.length * 8);
      return out;
    }
  }

  // String methods that would build V8's RegExp from a string argument build this one instead.
  const S = String.prototype;
  const isRegExp = (x) => x !== null && x !== undefined && typeof x[Symbol.match] === 'function';
  const define = (name, fn) => defineProperty(S, name, { value: fn, writable: true, configurable: true, enumerable: false });
  define('match', function match(pattern) { return (isRegExp(pattern) ? pattern : new RegExp(pattern))[Symbol.match](toStr(this)); });
  define('search', function search(pattern) { return (isRegExp(pattern) ? pattern : new RegExp(pattern))[Symbol.search](toStr(this)); });
  define('matchAll', function matchAll(pattern) {
    if (isRegExp(pattern) && !toStr(pattern.flags).includes('g')) throw construct(TypeErrorCtor, ['String.prototype.matchAll called with a non-global RegExp argument']);
    return (isRegExp(pattern) ? pattern : new RegExp(pattern, 'g'))[Symbol.matchAll](toStr(this));
  });
  return RegExp;
}

// $$, $&, $\`, $', $1…$99 and $<name> in a replacement string.
function expand(text, r, s) {
  if (!text.includes('$')) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== '$' || i + 1 === text.length) { out += c; continue; }
    const d = text[i + 1];
    if (d === '$') { out += '$'; i++; }
    else if (d === '&') { out += r[0]; i++; }
    else if (d === '\u0060') { out += s.slice(0, r.index); i++; }
    else if (d === "'") { out += s.slice(r.index + r[0].length); i++; }
    else if (d >= '0' && d <= '9') {
      const two = text.slice(i + 1, i + 3);
      if (/^\d\d$/.test(two) && Number(two) > 0 && Number(two) < r.length) { out += r[Number(two)] ?? ''; i += 2; }
      else if (Number(d) > 0 && Number(d) < r.length) { out += r[Number(d)] ?? ''; i++; }
      else out += c;
    } else if (d === '<' && r.groups) {
      const end = text.indexOf('>', i);
      if (end < 0) { out += c; continue; }
      out += r.groups[text.slice(i + 2, end)] ?? '';
      i = end;
    } else out += c;
  }
  return out;
}
`;
