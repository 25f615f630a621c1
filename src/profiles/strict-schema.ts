// The openai profile's inputSchemas in the form OpenAI strict function calling accepts (docs/slices-profiles-
// discovery.md, "Strict function calling"): every object closed (additionalProperties: false) with every property
// required, optional ones nullable (null means absent); free-form objects as a JSON string, or as a list of
// {key, value} pairs when their values have a schema; no allOf (merged), no root composition, arrays with items,
// and only the keywords strict mode supports. Dropped constraints stay enforced: the worker validates the mapped-back
// arguments against the catalogue's own schema (src/tools/call.ts).
import type { JsonSchema } from '../catalogue/types.ts';
import { acceptsNull, isObj, shapeOf, type Shape } from './strict-shape.ts';

/** OpenAI's limit on nesting; every object and array level counts, the root object as level 1. */
export const STRICT_MAX_DEPTH = 10;
/** Formats strict mode supports; any other format is dropped (the worker still checks it). */
export const STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'] as const;
/** Per-schema size limits of strict mode. */
export const STRICT_LIMITS = { properties: 5000, enumValues: 1000, stringChars: 120_000 } as const;

const OBJECT_HINT = 'A JSON object, as a string.';
const ARRAY_HINT = 'A JSON array, as a string.';
const VALUE_HINT = 'Its value as a JSON string.';
const ANY_HINT = 'Any JSON value, as a JSON string.';
const PAIRS_HINT = 'A list of {key, value} pairs.';

/** The hint for a node that travels as a JSON string. */
function jsonHint(shape: Shape): string {
  if (shape.kind === 'json') return shape.object ? OBJECT_HINT : ANY_HINT;
  return shape.kind === 'object' || shape.kind === 'map' ? OBJECT_HINT : shape.kind === 'array' ? ARRAY_HINT : VALUE_HINT;
}

const cache = new WeakMap<JsonSchema, JsonSchema>();

/** The strict form of a tool's inputSchema (whose root is an object). */
export function toStrictSchema(schema: JsonSchema): JsonSchema {
  let hit = cache.get(schema);
  if (!hit) {
    hit = strictOf(schema, 1, true);
    // Over strict mode's size limits: the largest arguments lose their enum (a scalar) or travel as a JSON string.
    const props = hit.properties as Record<string, JsonSchema>;
    const bySize = Object.keys(props).sort((a, b) => JSON.stringify(props[b]).length - JSON.stringify(props[a]).length);
    for (const key of bySize) {
      if (withinLimits(hit)) break;
      if (props[key]!.type === 'string') continue;
      const prop = ((schema.properties ?? {}) as Record<string, unknown>)[key];
      const original = shapeOf(prop);
      const type = original.kind === 'scalar' ? ([original.base.type].flat().find((t) => typeof t === 'string' && t !== 'null') ?? 'string') : 'string';
      const plain = original.kind === 'scalar' ? { type, ...doc(original.base) } : { type, ...doc(original.base, jsonHint(original)) };
      props[key] = nullableIf(!isRequired(schema, key) || acceptsNull(prop), plain);
    }
    cache.set(schema, hit);
  }
  return hit;
}

const isRequired = (schema: JsonSchema, key: string) => Array.isArray(schema.required) && (schema.required as string[]).includes(key);

function strictOf(schema: unknown, depth: number, root = false): JsonSchema {
  const shape = shapeOf(schema, root);
  const out = strictShape(shape, depth, root);
  return nullableIf(!root && acceptsNull(schema), out);
}

function strictShape(shape: Shape, depth: number, root: boolean): JsonSchema {
  const deep = !root && depth >= STRICT_MAX_DEPTH && shape.kind !== 'scalar';
  if (deep || shape.kind === 'json') return { type: 'string', ...doc(shape.base, jsonHint(shape)) };
  switch (shape.kind) {
    case 'object': {
      const properties: Record<string, JsonSchema> = {};
      for (const [k, p] of Object.entries(shape.properties)) properties[k] = nullableIf(!shape.required.has(k), strictOf(p, depth + 1));
      return { type: 'object', ...doc(shape.base), properties, required: Object.keys(properties), additionalProperties: false };
    }
    case 'map': {
      const pair = { type: 'object', properties: { key: { type: 'string' }, value: strictOf(shape.values, depth + 2) }, required: ['key', 'value'], additionalProperties: false };
      return { type: 'array', ...doc(shape.base, PAIRS_HINT), items: pair };
    }
    case 'array':
      return { type: 'array', ...doc(shape.base), items: strictOf(shape.items, depth + 1), ...pick(shape.base, ['minItems', 'maxItems']) };
    case 'union': {
      const seen = new Set<string>();
      const anyOf = shape.branches.map((b) => stripDoc(strictOf(b, depth))).filter((b) => !seen.has(JSON.stringify(b)) && !!seen.add(JSON.stringify(b)));
      return anyOf.length === 1 ? { ...anyOf[0], ...doc(shape.base) } : { ...doc(shape.base), anyOf };
    }
    case 'scalar':
      return scalar(shape.base);
  }
}

function scalar(s: JsonSchema): JsonSchema {
  const types = [s.type].flat().filter((t) => typeof t === 'string' && t !== 'null');
  const out: JsonSchema = {};
  if (types.length === 1) out.type = types[0];
  out.description = doc(s).description;
  if (out.description === undefined) delete out.description;
  if (Array.isArray(s.enum)) out.enum = s.enum.filter((v) => v !== null);
  if (s.const !== undefined) out.const = s.const;
  if (out.type === 'string' && typeof s.format === 'string' && STRICT_FORMATS.has(s.format)) out.format = s.format;
  if (out.type === 'number' || out.type === 'integer') Object.assign(out, pick(s, NUMBER_KEYWORDS));
  return out;
}

/** The node's description (with its default, which a strict caller gets by sending null) and an extra hint. */
function doc(s: JsonSchema, hint?: string): { description?: string } {
  let text = typeof s.description === 'string' ? s.description.trim() : '';
  if (s.default !== undefined && !/default/i.test(text)) text = `${text}${text && !/[.!?]$/.test(text) ? '.' : ''} Default: ${JSON.stringify(s.default)}.`.trim();
  if (hint) text = text ? `${text}${/[.!?]$/.test(text) ? '' : '.'} ${hint}` : hint;
  return text ? { description: text } : {};
}

function stripDoc(s: JsonSchema): JsonSchema {
  const { description: _d, ...rest } = s;
  return rest;
}

function pick(s: JsonSchema, keys: readonly string[]): JsonSchema {
  const out: JsonSchema = {};
  for (const k of keys) if (typeof s[k] === 'number') out[k] = s[k];
  return out;
}

/** `s` also accepting null: a type union for plain scalars, else an anyOf with a null branch. */
function nullableIf(when: boolean, s: JsonSchema): JsonSchema {
  if (!when) return s;
  if (Array.isArray(s.anyOf)) return (s.anyOf as JsonSchema[]).some((b) => b.type === 'null') ? s : { ...s, anyOf: [...(s.anyOf as JsonSchema[]), { type: 'null' }] };
  if (Array.isArray(s.type)) return s.type.includes('null') ? s : { ...s, type: [...s.type, 'null'] };
  if (typeof s.type === 'string' && s.type !== 'object' && s.type !== 'array' && s.enum === undefined && s.const === undefined) return { ...s, type: [s.type, 'null'] };
  const { description, ...inner } = s;
  return { ...(description !== undefined ? { description } : {}), anyOf: [inner, { type: 'null' }] };
}

/** Strict mode's per-schema size limits: total properties, enum values, and characters of names and enum/const values. */
export function strictSizes(schema: JsonSchema): { properties: number; enumValues: number; stringChars: number } {
  const sizes = { properties: 0, enumValues: 0, stringChars: 0 };
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) return n.forEach(walk);
    if (!isObj(n)) return;
    if (isObj(n.properties)) {
      for (const [k, v] of Object.entries(n.properties)) (sizes.properties++, (sizes.stringChars += k.length), walk(v));
    }
    if (Array.isArray(n.enum)) for (const v of n.enum) (sizes.enumValues++, (sizes.stringChars += typeof v === 'string' ? v.length : 0));
    if (typeof n.const === 'string') sizes.stringChars += n.const.length;
    for (const k of ['items', 'anyOf', '$defs'] as const) if (n[k] !== undefined) walk(k === '$defs' ? Object.values(n[k] as object) : n[k]);
  };
  walk(schema);
  return sizes;
}

function withinLimits(schema: JsonSchema): boolean {
  const s = strictSizes(schema);
  return s.properties <= STRICT_LIMITS.properties && s.enumValues <= STRICT_LIMITS.enumValues && s.stringChars <= STRICT_LIMITS.stringChars;
}
