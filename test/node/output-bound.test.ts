// The listing's output bound (src/profiles/output-bound.ts): what it keeps (every top-level field typed, objects whole
// or as their bare type, the smallest first within the budget) and that it only loosens: every GitHub response
// example and a full instance of every catalogue schema that the catalogue's outputSchema accepts, the listed one
// accepts too, under the v1 strict client's own Ajv settings.
import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { responseExample } from '../../scripts/catalog/examples.ts';
import { loadSpec } from '../../scripts/catalog/spec-loader.ts';
import { outputFields } from '../../scripts/catalog/typed-fields.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { JsonSchema } from '../../src/catalogue/types.ts';
import { advertisedOutputSchema } from '../../src/profiles/listed-output.ts';
import { DEFAULT_COMPACT } from '../../src/profiles/listing-compaction.ts';
import { boundOutputSchema, typedNodes } from '../../src/profiles/output-bound.ts';
import { PROFILES } from '../../src/profiles/profiles.ts';

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const str = { type: 'string' };
const user = { type: 'object', description: 'A user', properties: { login: str, id: { type: 'integer' }, site_admin: { type: 'boolean' } } };

describe('output bound rules', () => {
  it('keeps every top-level field typed and lists deeper objects as their bare type at budget 0', () => {
    const schema = { type: 'object', properties: { id: { type: 'integer' }, owner: user, tags: { type: 'array', items: user } } };
    expect(boundOutputSchema(schema, false, { levels: 1, budget: 0 })).toEqual({
      type: 'object',
      properties: { id: { type: 'integer' }, owner: { type: 'object', description: 'A user' }, tags: { type: 'array', items: { type: 'object', description: 'A user' } } },
    });
  });

  it('counts levels from the body: a wrapped list keeps its items’ fields', () => {
    const schema = { type: 'object', properties: { result: { type: ['array', 'null'], items: { type: 'object', properties: { title: str, user } } } }, required: ['result'] };
    const bound = boundOutputSchema(schema, true, { levels: 1, budget: 0 }) as { properties: { result: { items: { properties: Record<string, unknown> } } } };
    expect(bound.properties.result.items.properties).toEqual({ title: str, user: { type: 'object', description: 'A user' } });
    expect((bound as JsonSchema).required).toEqual(['result']);
    // Unwrapped, the same schema's `result` is the top level and its items' fields are one level down.
    const unwrapped = boundOutputSchema(schema, false, { levels: 1, budget: 0 }) as { properties: { result: { items: unknown } } };
    expect(unwrapped.properties.result.items).toEqual({ type: 'object' });
  });

  it('shows deeper objects whole, the smallest first, while their fields fit the budget', () => {
    const big = { type: 'object', properties: Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`f${i}`, str])) };
    const schema = { type: 'object', properties: { a_big: big, b_user: user, c_small: { type: 'object', properties: { x: str } } } };
    const b4 = boundOutputSchema(schema, false, { levels: 1, budget: 4 }) as { properties: Record<string, JsonSchema> };
    expect(b4.properties.c_small).toEqual({ type: 'object', properties: { x: str } });
    expect(b4.properties.b_user!.properties).toBeDefined();
    expect(b4.properties.a_big).toEqual({ type: 'object' });
    // The root, a_big bare, b_user and its 3 fields, c_small and its 1 field.
    expect(typedNodes(b4)).toBe(1 + 1 + (1 + 3) + (1 + 1));
    expect(boundOutputSchema(schema, false, { levels: 2, budget: 0 })).toEqual(schema);
    expect(boundOutputSchema(schema, false, { levels: 0, budget: Infinity })).toBe(schema);
  });

  it('only loosens: oneOf becomes anyOf, nullable stays, not and if are kept exactly', () => {
    const schema = {
      type: 'object',
      properties: {
        pick: { oneOf: [{ type: 'object', properties: { a: { type: 'object', properties: { x: str } } } }, { type: 'object', properties: { b: str } }] },
        maybe: { type: 'object', nullable: true, properties: { deep: { type: 'object', properties: { y: str } } } },
        never: { not: { type: 'object', properties: { z: { type: 'object', properties: { q: str } } } } },
      },
    };
    const out = boundOutputSchema(schema, false, { levels: 1, budget: 0 }) as { properties: Record<string, Record<string, unknown>> };
    expect(out.properties.pick).toEqual({ anyOf: [{ type: 'object' }, { type: 'object' }] });
    expect(out.properties.maybe).toEqual({ type: 'object', nullable: true });
    expect(out.properties.never).toEqual(schema.properties.never);
  });
});

// ---- Looseness on the real catalogue ----

const loaded = loadCatalogue(readFileSync(new URL('../../catalog/catalog.txt', import.meta.url), 'utf8'));
const tools = Array.from({ length: loaded.count }, (_, i) => loaded.tool(i)).filter((t) => t.outputSchema);
const listedOf = (t: (typeof tools)[number]) => advertisedOutputSchema(t.outputSchema!, t.outputWrapped === true, PROFILES.default, DEFAULT_COMPACT);

/** The v1 client's validator settings (@modelcontextprotocol/sdk 1.32.2, validation/ajv-provider.js). */
function strictAjv(): Ajv {
  const ajv = new Ajv({ strict: false, validateFormats: true, validateSchema: false, allErrors: true });
  addFormats(ajv);
  return ajv;
}

/** One value a schema accepts, with every property filled in (the largest instance its shape allows). */
function fullInstance(s: unknown, depth = 0): unknown {
  if (!isObj(s) || depth > 12) return null;
  if (Array.isArray(s.anyOf)) return fullInstance(s.anyOf.find((b) => !(isObj(b) && b.type === 'null')) ?? s.anyOf[0], depth + 1);
  if (Array.isArray(s.allOf)) return Object.assign({}, ...s.allOf.map((b) => fullInstance(b, depth + 1)).filter(isObj));
  const type = [s.type].flat().find((t) => t !== 'null') ?? (isObj(s.properties) ? 'object' : undefined);
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(isObj(s.properties) ? s.properties : {}).map(([k, v]) => [k, fullInstance(v, depth + 1)]));
    case 'array':
      return [fullInstance(s.items, depth + 1)];
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'string':
      return 'x';
    default:
      return null;
  }
}

describe('listed outputSchemas accept what the catalogue’s accept (GitHub)', () => {
  it('keeps every top-level field the catalogue types, with a type, and lists far fewer typed nodes', () => {
    let full = 0;
    let listed = 0;
    for (const t of tools) {
      const shown = outputFields(listedOf(t), t.outputWrapped === true);
      for (const [path, f] of outputFields(t.outputSchema, t.outputWrapped === true)) if (f.level === 1 && f.typed) expect(shown.get(path)?.typed, `${t.name} ${path}`).toBe(true);
      full += typedNodes(t.outputSchema);
      listed += typedNodes(listedOf(t));
    }
    expect(listed).toBeLessThan(full / 3);
  });

  it('a full instance of every catalogue schema is valid against the listed schema', () => {
    const ajv = strictAjv();
    let checked = 0;
    for (const t of tools) {
      const instance = fullInstance(t.outputSchema);
      if (!ajv.validate(t.outputSchema!, instance)) continue;
      expect(ajv.validate(listedOf(t), instance), `${t.name}: ${ajv.errorsText()}`).toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThan(tools.length * 0.9);
  });

  it('every response example of the spec that the catalogue schema accepts, the listed schema accepts', async () => {
    const { doc } = await loadSpec(new URL('../../node_modules/@octokit/openapi/generated/api.github.com.json', import.meta.url).pathname);
    const paths = (doc as { paths: Record<string, Record<string, Record<string, unknown>>> }).paths;
    const ajv = strictAjv();
    let checked = 0;
    for (const t of tools) {
      const op = paths[t.http.path]?.[t.http.method.toLowerCase()];
      const example = op && responseExample(doc, op);
      if (!example) continue;
      const value = t.outputWrapped || !isObj(example.value) ? { result: example.value } : example.value;
      if (!ajv.validate(t.outputSchema!, value)) continue;
      expect(ajv.validate(listedOf(t), value), `${t.name}: ${ajv.errorsText()}`).toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThan(500);
  });
});
