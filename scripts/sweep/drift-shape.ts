// What the spec says a JSON value may be, as the drift layer (scripts/sweep/drift.ts) needs it: the declared
// properties of an object (flattened over $ref, allOf, anyOf and oneOf), its map value schema, its array items, and
// for a field whether it is nullable, numeric or an enum.
import { isObj } from '../lib/is-object.ts';
import type { SpecIndex } from './spec-index.ts';

type Schema = Record<string, any>;

export interface Shape {
  props: Map<string, Schema[]>;
  required: Set<string>;
  /** A map-like object (additionalProperties is a schema): new keys' values follow it. */
  mapValues?: Schema;
  items: Schema[];
}

/** Everything a value may be, flattened over $ref / allOf / anyOf / oneOf (a few levels). */
export function shapeOf(idx: SpecIndex, schemas: Schema[]): Shape {
  const shape: Shape = { props: new Map(), required: new Set(), items: [] };
  const visit = (raw: unknown, depth: number, viaAllOf: boolean) => {
    const s = idx.deref(raw);
    if (!s || depth > 6) return;
    if (isObj(s.properties)) {
      for (const [k, v] of Object.entries(s.properties)) {
        if (!shape.props.has(k)) shape.props.set(k, []);
        if (isObj(v)) shape.props.get(k)!.push(v);
      }
    }
    if (Array.isArray(s.required) && (viaAllOf || depth === 0)) for (const r of s.required) shape.required.add(r);
    if (isObj(s.additionalProperties) && Object.keys(s.additionalProperties).length && !shape.mapValues) shape.mapValues = s.additionalProperties;
    if (isObj(s.items)) shape.items.push(s.items);
    for (const part of s.allOf ?? []) visit(part, depth + 1, true);
    for (const part of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) visit(part, depth + 1, false);
  };
  for (const s of schemas) visit(s, 0, true);
  return shape;
}

export interface FieldInfo {
  nullable: boolean;
  /** The types the spec allows (over $ref and composition); empty when it says nothing. */
  types: Set<string>;
  /** Enum members, when every branch that declares a type is an enum. */
  enum?: unknown[];
}

/** The declared nullability, types and enum of a field's schemas. */
export function fieldInfo(idx: SpecIndex, schemas: Schema[]): FieldInfo {
  const info: FieldInfo = { nullable: false, types: new Set() };
  const enums: unknown[] = [];
  let open = false;
  const visit = (raw: unknown, depth: number) => {
    const s = idx.deref(raw);
    if (!s || depth > 5) return;
    if (s.nullable === true || s['x-nullable'] === true) info.nullable = true;
    for (const t of [s.type].flat()) {
      if (typeof t === 'string') (t === 'null' ? (info.nullable = true) : info.types.add(t));
    }
    if (Array.isArray(s.enum)) {
      for (const e of s.enum) (e === null ? (info.nullable = true) : enums.push(e));
    } else if (s.type !== undefined && !('const' in s)) open = true;
    for (const part of [...(s.allOf ?? []), ...(s.anyOf ?? []), ...(s.oneOf ?? [])]) visit(part, depth + 1);
  };
  for (const s of schemas) visit(s, 0);
  if (enums.length && !open) info.enum = enums;
  return info;
}

/** A value of another JSON type than `like`, for a map entry the spec types differently. */
export function otherTypeValue(like: unknown): unknown {
  if (typeof like === 'string') return 4242;
  if (typeof like === 'number' || typeof like === 'boolean') return 'drift: a string where the map declares another type';
  return 'drift: a string in a map of structured values';
}

/** A member the enum does not list, of the same JSON type as its members; undefined when there is none. */
export function unknownEnumValue(members: unknown[]): unknown {
  if (members.every((m) => typeof m === 'number')) return Math.max(...(members as number[])) + 1000;
  if (members.every((m) => typeof m === 'string')) return 'drift_unknown_enum_value';
  if (members.every((m) => typeof m === 'boolean')) return [true, false].find((b) => !members.includes(b));
  return undefined;
}
