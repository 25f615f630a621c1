// Deterministic argument generator: inputSchema (the catalogue's JSON Schema) -> schema-valid arguments.
// Variant 0 = required properties only, plain values; 1 = every property; 2+ = alternating optional
// properties and other enum members / booleans / numbers. Values are chosen to pass a Prism mock's
// request validation (formats, patterns, bounds), not to be realistic.

import { isObj } from '../lib/is-object.ts';

type Schema = Record<string, any>;

interface GenContext {
  root: Schema;
  variant: number;
  /** Depth up to which optional properties are generated (default MAX_DEPTH); deeper, only required ones. */
  fullDepth?: number;
}

const MAX_DEPTH = 6;
/** Past MAX_DEPTH only required properties are generated (spec-valid, and finite for cyclic specs) up to here. */
const HARD_DEPTH = 24;

/**
 * Arguments for `variant`. When `valid` is given (a validator for the inputSchema), the next few variants
 * are tried until one passes it, so union branches and bounds the generator misjudges are skipped.
 */
export function generateArgs(inputSchema: Schema, variant: number, valid?: (args: unknown) => boolean): Record<string, unknown> {
  let first: Record<string, unknown> | undefined;
  for (let k = 0; k < (valid ? 6 : 1); k++) {
    const v = gen(inputSchema, { root: inputSchema, variant: variant + k }, 0, '');
    const args = isObj(v) ? v : {};
    first ??= args;
    if (!valid || valid(args)) return args;
  }
  return first!;
}

/** A value for any schema whose local $refs resolve against `root` (e.g. an OpenAPI document). */
export function generateValue(schema: unknown, root: Schema, variant = 0, fullDepth = MAX_DEPTH): unknown {
  return gen(schema, { root, variant, fullDepth }, 0, '');
}

function deref(s: unknown, ctx: GenContext, seen = 0): Schema {
  if (!isObj(s)) return s === false ? { not: {} } : {};
  if (typeof s.$ref === 'string' && s.$ref.startsWith('#/') && seen < 20) {
    const target = s.$ref
      .slice(2)
      .split('/')
      .reduce<any>((o, k) => (o == null ? o : o[k.replace(/~1/g, '/').replace(/~0/g, '~')]), ctx.root);
    const { $ref: _r, ...rest } = s;
    return { ...deref(target, ctx, seen + 1), ...rest };
  }
  if (Array.isArray(s.allOf) && s.allOf.length) {
    const merged: Schema = { ...s };
    delete merged.allOf;
    for (const part of s.allOf) {
      const p = deref(part, ctx, seen + 1);
      for (const [k, val] of Object.entries(p)) {
        if (k === 'properties') merged.properties = { ...merged.properties, ...val };
        else if (k === 'required') merged.required = [...new Set([...(merged.required ?? []), ...val])];
        else if (!(k in merged)) merged[k] = val;
      }
    }
    return merged;
  }
  return s;
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

function gen(raw: unknown, ctx: GenContext, depth: number, path: string): unknown {
  const s = deref(raw, ctx);
  const v = ctx.variant;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) {
    const members = s.enum.filter((e: unknown) => e !== null);
    const pool = members.length ? members : s.enum;
    return pool[(v + hash(path)) % pool.length];
  }
  if (v === 0 && 'default' in s && s.default !== null) return s.default;
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(s[key]) && s[key].length) {
      const branches = s[key].filter((b: unknown) => deref(b, ctx).type !== 'null');
      let pool = branches.length ? branches : s[key];
      if (depth > (ctx.fullDepth ?? MAX_DEPTH)) {
        // Deep inside a (possibly cyclic) structure, prefer a scalar branch (e.g. Stripe's expandable id-or-object).
        const scalar = pool.filter((b: unknown) => {
          const t = deref(b, ctx).type;
          return t === 'string' || t === 'integer' || t === 'number' || t === 'boolean';
        });
        if (scalar.length) pool = scalar;
      }
      const { [key]: _drop, ...rest } = s;
      // The branch adds to the schema beside it: GitHub's checks/create body keeps its own required name and head_sha
      // next to a branch that requires a status.
      const branch = deref(pool[v % pool.length], ctx);
      const merged: Schema = { ...rest, ...branch };
      if (isObj(rest.properties) && isObj(branch.properties)) merged.properties = { ...rest.properties, ...branch.properties };
      if (Array.isArray(rest.required) && Array.isArray(branch.required)) merged.required = [...new Set([...rest.required, ...branch.required])];
      return gen(merged, ctx, depth, path);
    }
  }
  let type = s.type;
  if (Array.isArray(type)) type = type.find((t: string) => t !== 'null') ?? 'null';
  // Without a type, the shape says it, as the generator reads it (schema-converter.ts): a map of Azure's `tags`
  // declares only `additionalProperties`, and a live API sends an object.
  if (!type) type = isObj(s.properties) || 'additionalProperties' in s ? 'object' : s.items ? 'array' : 'string';
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return (v + hash(path)) % 2 === 0;
    case 'integer':
    case 'number':
      return genNumber(s, type === 'integer', v);
    case 'string':
      return genString(s, v, path);
    case 'array': {
      const min = Number.isInteger(s.minItems) ? s.minItems : 0;
      if (depth > (ctx.fullDepth ?? MAX_DEPTH) && min === 0) return [];
      const max = Number.isInteger(s.maxItems) ? s.maxItems : Infinity;
      const n = Math.min(Math.max(min, 1), max);
      const out: unknown[] = [];
      for (let i = 0; i < n; i++) out.push(gen(s.items, { ...ctx, variant: v + i }, depth + 1, `${path}/${i}`));
      return s.uniqueItems ? dedupe(out) : out;
    }
    case 'object':
    default: {
      const out: Record<string, unknown> = {};
      if (depth > HARD_DEPTH) return out;
      const props: Schema = isObj(s.properties) ? s.properties : {};
      const required = new Set<string>(Array.isArray(s.required) ? s.required : []);
      const names = Object.keys(props);
      names.forEach((name, i) => {
        const include = required.has(name) || (depth <= (ctx.fullDepth ?? MAX_DEPTH) && (v === 1 || (v >= 2 && (i + v) % 2 === 0)));
        if (!include) return;
        // Never send deprecated-only or read-only fields unless required.
        const ps = deref(props[name], ctx);
        if (!required.has(name) && (ps.readOnly === true || ps.deprecated === true)) return;
        out[name] = gen(props[name], ctx, depth + 1, `${path}/${name}`);
      });
      const minP = Number.isInteger(s.minProperties) ? s.minProperties : 0;
      for (const name of names) {
        if (Object.keys(out).length >= minP) break;
        if (!(name in out)) out[name] = gen(props[name], ctx, depth + 1, `${path}/${name}`);
      }
      // A map (additionalProperties is a schema) that needs entries gets keys of its own.
      for (let i = 1; Object.keys(out).length < minP && isObj(s.additionalProperties) && i <= minP; i++) {
        out[`key${i}`] = gen(s.additionalProperties, ctx, depth + 1, `${path}/key${i}`);
      }
      return out;
    }
  }
}

function dedupe(xs: unknown[]): unknown[] {
  const seen = new Set<string>();
  return xs.filter((x) => {
    const k = JSON.stringify(x);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function genNumber(s: Schema, integer: boolean, v: number): number {
  let lo = typeof s.minimum === 'number' ? s.minimum : -Infinity;
  let hi = typeof s.maximum === 'number' ? s.maximum : Infinity;
  if (typeof s.exclusiveMinimum === 'number') lo = Math.max(lo, s.exclusiveMinimum + (integer ? 1 : 1e-6));
  if (typeof s.exclusiveMaximum === 'number') hi = Math.min(hi, s.exclusiveMaximum - (integer ? 1 : 1e-6));
  if (integer) {
    lo = Math.ceil(lo);
    hi = Math.floor(hi);
  }
  // A small positive value works as an id, a page size and a count.
  let x = [1, 2, 10][v % 3]!;
  if (!integer && v % 3 === 1) x = 2.5;
  if (x < lo) x = lo;
  if (x > hi) x = hi;
  const step = typeof s.multipleOf === 'number' && s.multipleOf > 0 ? s.multipleOf : undefined;
  if (step) {
    x = Math.ceil(x / step) * step;
    if (x > hi) x = Math.floor(hi / step) * step;
  }
  if (!Number.isFinite(x)) x = 0;
  return x;
}

const FORMATS: Record<string, string[]> = {
  // Several lengths: a spec may bound one (Unicourt's dates are 25 characters long, an offset form).
  'date-time': ['2024-01-15T10:30:00Z', '2023-06-01T00:00:00Z', '2024-01-15T10:30:00+00:00', '2024-01-15T10:30:00.000Z'],
  date: ['2024-01-15', '2023-06-01'],
  time: ['10:30:00Z'],
  email: ['user@example.com', 'sweep@example.org'],
  'idn-email': ['user@example.com'],
  uri: ['https://example.com/a', 'https://example.org/b'],
  url: ['https://example.com/a'],
  'uri-reference': ['https://example.com/a'],
  iri: ['https://example.com/a'],
  hostname: ['example.com'],
  ipv4: ['192.0.2.1'],
  ipv6: ['2001:db8::1'],
  uuid: ['3fa85f64-5717-4562-b3fc-2c963f66afa6', '7c9e6679-7425-40de-944b-e07fc1f90ae7'],
  byte: ['aGVsbG8=', 'c3dlZXA='],
  binary: ['aGVsbG8='],
  password: ['secret123'],
  duration: ['P1D'],
  'json-pointer': ['/a/b'],
  regex: ['^a$'],
  int32: ['1'],
  int64: ['1'],
};

function genString(s: Schema, v: number, path: string): string {
  const minLen = Number.isInteger(s.minLength) ? s.minLength : 0;
  const maxLen = Number.isInteger(s.maxLength) ? s.maxLength : Infinity;
  const fits = (x: string) => [...x].length >= minLen && [...x].length <= maxLen && (!s.pattern || testPattern(s.pattern, x));
  const candidates: string[] = [];
  if (s.contentEncoding === 'base64' || (typeof s.description === 'string' && /base64/i.test(s.description))) candidates.push(...rotate(FORMATS.byte!, v));
  if (typeof s.format === 'string' && FORMATS[s.format]) candidates.push(...rotate(FORMATS[s.format]!, v));
  if (typeof s.pattern === 'string') {
    for (let i = 0; i < 3; i++) {
      const g = sampleRegex(s.pattern, v + i, minLen);
      if (g !== undefined) candidates.push(g);
    }
  }
  const leaf = path.split('/').pop() || 'value';
  candidates.push(...rotate(['test', 'sweep', 'abc'], v), `${leaf}`.slice(0, 20) || 'x', 'a', '1', 'A1', 'abc123', 'abc-123', 'x'.repeat(Math.max(1, minLen)));
  for (const c of candidates) if (fits(c)) return c;
  // An unanchored pattern's sample may be padded to the minimum length (`arn:…` of at least 20 characters), with a
  // character the pattern takes (AWS's barcodes are `^[A-Z0-9]*$`, at least 5 long).
  for (const c of candidates.slice(0, 4)) {
    for (const ch of ['a', 'A', '0']) {
      const pad = ch.repeat(Math.max(0, minLen - [...c].length));
      if (fits(c + pad)) return c + pad;
      if (fits(pad + c)) return pad + c;
    }
  }
  // Pad or cut the plainest candidate to the length bounds.
  let x = 'a'.repeat(Math.max(minLen, 1));
  if (x.length > maxLen) x = x.slice(0, maxLen);
  return x;
}

function rotate<T>(xs: T[], v: number): T[] {
  const k = v % xs.length;
  return [...xs.slice(k), ...xs.slice(0, k)];
}

function testPattern(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(value);
  } catch {
    try {
      return new RegExp(pattern).test(value);
    } catch {
      return true; // an invalid pattern cannot be checked by anyone
    }
  }
}

// A tiny regex sampler: literals, escapes (\d \w \s \. …), classes with ranges, groups with
// alternation, quantifiers ? * + {n} {n,m}. Lookarounds and backrefs give up (undefined).
export function sampleRegex(pattern: string, seed: number, minLen = 0): string | undefined {
  let i = 0;
  const p = pattern;
  const pick = <T>(xs: T[]): T => xs[seed++ % xs.length]!;
  function alt(): string {
    const branches: string[] = [seq()];
    while (p[i] === '|') {
      i++;
      branches.push(seq());
    }
    return branches.length > 1 ? branches[0]! : branches[0]!;
  }
  function seq(): string {
    let out = '';
    while (i < p.length && p[i] !== '|' && p[i] !== ')') {
      const atomStart = i;
      const atom = one();
      let [lo, hi] = [1, 1];
      const q = p[i];
      const m = q === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i)) : null;
      if (q === '?' || q === '*' || q === '+') {
        [lo, hi] = q === '?' ? [0, 1] : q === '*' ? [0, 3] : [1, 3];
        i++;
      } else if (m) {
        lo = Number(m[1]);
        hi = m[2] ? (m[3] ? Number(m[3]) : lo + 2) : lo;
        i += m[0].length;
      }
      if (lo !== 1 || hi !== 1) if (p[i] === '?' || p[i] === '+') i++; // lazy / possessive
      // Repeat the atom: re-parse it for each repetition so classes vary.
      const want = Math.max(lo, Math.min(hi, lo + (minLen > 0 ? 2 : 1)));
      let rep = atom;
      for (let k = 1; k < want; k++) {
        const save = i;
        i = atomStart;
        rep += one();
        i = save;
      }
      out += want === 0 ? '' : rep;
    }
    return out;
  }
  function one(): string {
    const c = p[i++];
    if (c === '^' || c === '$') return '';
    if (c === '(') {
      if (p[i] === '?') {
        if (p[i + 1] === ':') i += 2;
        else if (p[i + 1] === '<' && p[i + 2] !== '=' && p[i + 2] !== '!') i = p.indexOf('>', i) + 1;
        else throw new Error('lookaround');
      }
      const r = alt();
      if (p[i] === ')') i++;
      return r;
    }
    if (c === '[') return cls();
    if (c === '.') return pick(['a', 'b', '1']);
    if (c === '\\') return esc(p[i++]!);
    return c!;
  }
  function esc(e: string): string {
    switch (e) {
      case 'd':
        return pick(['1', '2', '7']);
      case 'w':
        return pick(['a', 'b', 'c', '1']);
      case 's':
        return ' ';
      case 'D':
      case 'W':
      case 'S':
        return e === 'S' ? 'a' : '-';
      case 'b':
      case 'B':
        return '';
      case 'n':
        return '\n';
      case 't':
        return '\t';
      default:
        if (/[1-9]/.test(e)) throw new Error('backref');
        return e;
    }
  }
  function cls(): string {
    const negate = p[i] === '^';
    if (negate) i++;
    const chars: string[] = [];
    let first = true;
    while (i < p.length && (p[i] !== ']' || first)) {
      first = false;
      let c = p[i++]!;
      if (c === '\\') {
        const e = p[i++]!;
        if (e === 'd') chars.push('1', '2', '7');
        else if (e === 'w') chars.push('a', 'b', '1');
        else if (e === 's') chars.push(' ');
        else chars.push(e);
        continue;
      }
      if (p[i] === '-' && p[i + 1] && p[i + 1] !== ']') {
        const end = p[i + 1]!;
        i += 2;
        const a = c.codePointAt(0)!;
        const b = end.codePointAt(0)!;
        for (let k = a; k <= b && k < a + 26; k++) chars.push(String.fromCodePoint(k));
        continue;
      }
      chars.push(c);
    }
    i++; // ]
    if (negate) {
      const pool = ['a', 'b', 'x', '1', 'Z', '_'].filter((x) => !chars.includes(x));
      return pool.length ? pick(pool) : 'q';
    }
    return chars.length ? pick(chars) : 'a';
  }
  try {
    const out = alt();
    return testPattern(pattern, out) ? out : undefined;
  } catch {
    return undefined;
  }
}
