// A validity check compiled once per schema into closures, for the subset of JSON Schema the generator emits (types,
// properties, required, items, anyOf/allOf/oneOf, primitive enums, numeric and size bounds). Hand-written because
// @cfworker/json-schema interprets every schema node on every call (it destructures ~45 keywords and builds location
// strings per node: ~3 ms for GitHub's repository schema), and Ajv's compiled validators need `new Function`, which
// Workers block. It only ever answers "valid": validator.ts still asks @cfworker for the verdict and the messages
// whenever this says no, so a result can never pass here that @cfworker would refuse unless this module is wrong —
// test/node/fast-check.test.ts checks both agree on every catalogue schema. A schema with any keyword outside the
// subset gets no check at all (undefined), and @cfworker validates it as before.
import type { JsonSchema } from './types.ts';

export type Check = (value: unknown) => boolean;

/** Keywords that never change validity (annotations), besides any `x-` extension. */
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$comment', '$schema', 'contentEncoding', 'contentMediaType', 'nullable', 'discriminator', 'xml', 'externalDocs', 'example']);
/** Keywords compiled here; every other keyword @cfworker knows makes the schema unsupported. */
const COMPILED = new Set(['type', 'properties', 'required', 'items', 'additionalProperties', 'anyOf', 'allOf', 'oneOf', 'enum', 'const', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minItems', 'maxItems', '$defs', 'definitions']);
/** Keywords @cfworker validates that are not compiled here (anything unknown to both is ignored by both). */
const CFWORKER_KEYWORDS = new Set(['$ref', '$recursiveRef', '$recursiveAnchor', '$dynamicRef', '$dynamicAnchor', '$id', '$anchor', 'not', 'if', 'then', 'else', 'format', 'patternProperties', 'unevaluatedProperties', 'minProperties', 'maxProperties', 'propertyNames', 'dependentRequired', 'dependentSchemas', 'dependencies', 'prefixItems', 'additionalItems', 'unevaluatedItems', 'contains', 'minContains', 'maxContains', 'uniqueItems', 'multipleOf', 'minLength', 'maxLength', 'pattern']);

class Unsupported extends Error {}

const TYPE_OF: Record<string, Check> = {
  null: (v) => v === null,
  boolean: (v) => typeof v === 'boolean',
  number: (v) => typeof v === 'number',
  integer: (v) => typeof v === 'number' && Number.isInteger(v),
  string: (v) => typeof v === 'string',
  array: (v) => Array.isArray(v),
  object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const all = (checks: Check[]): Check => (checks.length === 1 ? checks[0]! : (v) => checks.every((c) => c(v)));

/** The compiled check of `schema`, or undefined when it uses a keyword outside the subset. */
export function compileCheck(schema: JsonSchema | boolean): Check | undefined {
  try {
    return compile(schema);
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
}

const yes: Check = () => true;
const no: Check = () => false;
// @cfworker throws on values JSON cannot hold (undefined, functions): saying "not valid" hands them to it unchanged.
// Every type check refuses them too, so this runs only where a node has no type.
const known: Check = (v) => v === null || (typeof v !== 'undefined' && typeof v !== 'function' && typeof v !== 'symbol' && typeof v !== 'bigint');
/** Checks of nodes that hold only a type (most of a schema's nodes), shared by every schema: compiled checks stay small. */
const typeOnly = new Map<string, Check>();

function compile(node: unknown): Check {
  if (node === true) return yes;
  if (node === false) return no;
  if (!isObject(node)) throw new Unsupported();
  let onlyType = true;
  for (const k of Object.keys(node)) {
    if (ANNOTATIONS.has(k) || k.startsWith('x-')) continue;
    if (k !== 'type') onlyType = false;
    if (COMPILED.has(k)) continue;
    if (CFWORKER_KEYWORDS.has(k)) throw new Unsupported();
  }
  if (onlyType && node.type !== undefined) {
    const key = JSON.stringify(node.type);
    let check = typeOnly.get(key);
    if (!check) typeOnly.set(key, (check = typeCheck(node.type)));
    return check;
  }
  const checks: Check[] = [];
  if (node.type !== undefined) checks.push(typeCheck(node.type));
  else checks.push(known);
  if (node.enum !== undefined) checks.push(enumCheck(node.enum));
  if (node.const !== undefined) checks.push(enumCheck([node.const]));
  for (const key of ['anyOf', 'allOf', 'oneOf'] as const) if (node[key] !== undefined) checks.push(combinator(key, node[key]));
  const object = objectCheck(node);
  if (object) checks.push((v) => !isObject(v) || object(v));
  const array = arrayCheck(node);
  if (array) checks.push((v) => !Array.isArray(v) || array(v));
  const number = numberCheck(node);
  if (number) checks.push((v) => typeof v !== 'number' || number(v));
  return all(checks);
}

function typeCheck(type: unknown): Check {
  const names = Array.isArray(type) ? type : [type];
  const checks = names.map((t) => (typeof t === 'string' && TYPE_OF[t]) || unsupported());
  return checks.length === 1 ? checks[0]! : (v) => checks.some((c) => c(v));
}

function enumCheck(values: unknown): Check {
  // Objects need @cfworker's deep comparison; NaN, which a Set would match but === never does, cannot come from JSON.
  if (!Array.isArray(values) || values.some((x) => (x !== null && typeof x === 'object') || Number.isNaN(x))) throw new Unsupported();
  const set = new Set(values);
  return (v) => (v === null || typeof v !== 'object') && set.has(v);
}

function combinator(key: 'anyOf' | 'allOf' | 'oneOf', branches: unknown): Check {
  if (!Array.isArray(branches) || branches.length === 0) throw new Unsupported();
  const checks = branches.map(compile);
  if (key === 'allOf') return all(checks);
  if (key === 'anyOf') return (v) => checks.some((c) => c(v));
  return (v) => checks.filter((c) => c(v)).length === 1;
}

function objectCheck(node: Record<string, unknown>): Check | undefined {
  const { properties, required, additionalProperties } = node;
  if (properties === undefined && required === undefined && additionalProperties === undefined) return undefined;
  if (properties !== undefined && !isObject(properties)) throw new Unsupported();
  if (required !== undefined && (!Array.isArray(required) || required.some((r) => typeof r !== 'string'))) throw new Unsupported();
  const props = new Map(Object.entries(properties ?? {}).map(([k, s]) => [k, compile(s)]));
  const req = (required ?? []) as string[];
  const extra = additionalProperties === undefined ? undefined : compile(additionalProperties);
  return (v) => {
    const o = v as Record<string, unknown>;
    for (const r of req) if (!Object.hasOwn(o, r)) return false;
    for (const k in o) {
      // As @cfworker: `properties` covers own keys; every other enumerable key (inherited too) meets additionalProperties.
      const check = (Object.hasOwn(o, k) && props.get(k)) || extra;
      if (check && !check(o[k])) return false;
    }
    return true;
  };
}

function arrayCheck(node: Record<string, unknown>): Check | undefined {
  const { items, minItems, maxItems } = node;
  if (items === undefined && minItems === undefined && maxItems === undefined) return undefined;
  if (Array.isArray(items) || (minItems !== undefined && typeof minItems !== 'number') || (maxItems !== undefined && typeof maxItems !== 'number')) throw new Unsupported();
  const item = items === undefined ? undefined : compile(items);
  const min = (minItems as number | undefined) ?? 0;
  const max = (maxItems as number | undefined) ?? Infinity;
  return (v) => {
    const a = v as unknown[];
    if (a.length < min || a.length > max) return false;
    if (item) for (let i = 0; i < a.length; i++) if (!item(a[i])) return false;
    return true;
  };
}

function numberCheck(node: Record<string, unknown>): Check | undefined {
  const bounds = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'].map((k) => node[k]);
  if (bounds.every((b) => b === undefined)) return undefined;
  if (bounds.some((b) => b !== undefined && typeof b !== 'number')) throw new Unsupported();
  const [min, max, xmin, xmax] = bounds as Array<number | undefined>;
  return (n) => !((min !== undefined && (n as number) < min) || (max !== undefined && (n as number) > max) || (xmin !== undefined && (n as number) <= xmin) || (xmax !== undefined && (n as number) >= xmax));
}

function unsupported(): never {
  throw new Unsupported();
}
