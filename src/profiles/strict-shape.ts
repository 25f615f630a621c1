// How a catalogue inputSchema maps onto OpenAI strict function calling (docs/slices-profiles-discovery.md, "Strict
// function calling"): one classification of every schema node, shared by the encoder (strict-schema.ts, what the
// openai profile lists) and the decoder (strict-arguments.ts, what the worker sends upstream), so the two agree.
import type { JsonSchema } from '../catalogue/types.ts';

/**
 * - object: declared properties (all of them become required; optional ones nullable);
 * - map: a free-form object whose values have a schema: travels as a list of {key, value} pairs;
 * - json: a free-form object, or any value: travels as a JSON string;
 * - array, union (anyOf/oneOf alternatives, object alternatives merged into one), scalar.
 */
export type Shape =
  | { kind: 'object'; base: JsonSchema; properties: Record<string, JsonSchema>; required: Set<string> }
  | { kind: 'map'; base: JsonSchema; values: JsonSchema }
  | { kind: 'json'; base: JsonSchema; object: boolean }
  | { kind: 'array'; base: JsonSchema; items: JsonSchema }
  | { kind: 'union'; base: JsonSchema; branches: JsonSchema[] }
  | { kind: 'scalar'; base: JsonSchema };

export const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

const SCALARS = new Set(['string', 'number', 'integer', 'boolean']);

/** Non-null JSON types a node names (type keyword, else inferred from properties/items). */
export function typesOf(s: JsonSchema): string[] {
  const declared = [s.type].flat().filter((t): t is string => typeof t === 'string' && t !== 'null');
  if (declared.length) return declared;
  if (isObj(s.properties) || s.additionalProperties !== undefined) return ['object'];
  if (s.items !== undefined) return ['array'];
  return [];
}

/** Whether the schema itself lets a value be null (nullable types, a null branch, null in an enum). */
export function acceptsNull(schema: unknown): boolean {
  if (!isObj(schema)) return false;
  const s = normalise(schema);
  if (s.nullable === true || s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null'))) return true;
  if (Array.isArray(s.enum) && s.enum.includes(null)) return true;
  const alts = (s.anyOf ?? s.oneOf) as unknown;
  return Array.isArray(alts) && alts.some((b) => acceptsNull(b));
}

/** allOf members merged into one node: properties and required united, the node's own keywords first. */
export function normalise(schema: unknown): JsonSchema {
  if (!isObj(schema)) return {};
  if (!Array.isArray(schema.allOf)) return schema;
  const { allOf, ...own } = schema;
  const out: JsonSchema = { ...own };
  const properties: Record<string, JsonSchema> = isObj(own.properties) ? { ...(own.properties as Record<string, JsonSchema>) } : {};
  const required = new Set<string>(Array.isArray(own.required) ? (own.required as string[]) : []);
  for (const member of (allOf as unknown[]).map(normalise)) {
    for (const [k, v] of Object.entries(isObj(member.properties) ? member.properties : {})) properties[k] ??= v as JsonSchema;
    for (const r of Array.isArray(member.required) ? (member.required as string[]) : []) required.add(r);
    for (const [k, v] of Object.entries(member)) if (k !== 'properties' && k !== 'required' && out[k] === undefined) out[k] = v;
  }
  if (Object.keys(properties).length) out.properties = properties;
  if (required.size) out.required = [...required];
  return out;
}

/** Object alternatives of a union, merged: every property of any of them; required only where all require it. */
function mergeObjects(branches: JsonSchema[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const b of branches) for (const [k, v] of Object.entries(isObj(b.properties) ? b.properties : {})) properties[k] ??= v as JsonSchema;
  const requiredBy = (b: JsonSchema) => new Set(Array.isArray(b.required) ? (b.required as string[]) : []);
  const required = Object.keys(properties).filter((k) => branches.every((b) => requiredBy(b).has(k)));
  const description = branches.map((b) => b.description).find((d) => typeof d === 'string');
  return { type: 'object', ...(description ? { description } : {}), properties, ...(required.length ? { required } : {}) };
}

/** The shape of one node. The root is always an object (the tool's arguments). */
export function shapeOf(schema: unknown, root = false): Shape {
  const s = normalise(schema);
  const types = typesOf(s);
  const alts = (Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined) as unknown[] | undefined;
  const branches = alts?.map(normalise).filter((b) => b.type !== 'null');
  const objectBranches = branches?.filter((b) => typesOf(b).includes('object')) ?? [];
  if (root || isObj(s.properties) || (types.includes('object') && types.length === 1)) {
    // Alternatives beside declared properties constrain the same object: their properties join it (loosened).
    const own = isObj(s.properties) ? (s.properties as Record<string, JsonSchema>) : {};
    const merged = objectBranches.length ? { ...(mergeObjects(objectBranches).properties as Record<string, JsonSchema>), ...own } : own;
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]).filter((r) => r in merged) : []);
    if (root || Object.keys(merged).length || s.additionalProperties === false) return { kind: 'object', base: s, properties: merged, required };
    const values = s.additionalProperties;
    if (isObj(values) && Object.keys(values).length && shapeOf(values).kind !== 'json') return { kind: 'map', base: s, values };
    return { kind: 'json', base: s, object: true };
  }
  if (branches?.length) {
    const others = branches.filter((b) => !typesOf(b).includes('object'));
    const united = objectBranches.length > 1 ? [...others, mergeObjects(objectBranches)] : branches;
    if (united.length === 1) return shapeOf({ ...united[0], ...(s.description && !united[0]!.description ? { description: s.description } : {}) });
    return { kind: 'union', base: s, branches: united };
  }
  if (types.length > 1) return { kind: 'union', base: s, branches: types.map((t) => ({ ...s, type: t })) };
  if (types[0] === 'array') return { kind: 'array', base: s, items: isObj(s.items) ? s.items : {} };
  if (types.length === 1 && SCALARS.has(types[0]!)) return { kind: 'scalar', base: s };
  if (Array.isArray(s.enum) || s.const !== undefined) return { kind: 'scalar', base: s };
  return { kind: 'json', base: s, object: false };
}
