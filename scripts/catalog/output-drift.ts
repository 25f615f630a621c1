// What an outputSchema accepts beyond the spec, so that a strict client does not fail a successful call when the live
// API drifts from its spec (docs/generator.md, "Drift"). Each rule loosens; none adds a constraint:
//   - every value below the root may be null (APIs send null in fields the spec does not mark nullable);
//   - numbers may arrive as strings (int64 ids, decimals and counts sent as "123");
//   - typed maps (additionalProperties: {…}) keep no value schema: the keys are the API's data, and a new key's
//     value is whatever the API sends; the declared value type becomes description text.
// enum, const and format are dropped by the converter itself (they become description text).
import type { JsonSchema } from '../../src/catalogue/types.ts';
import { isObj } from '../lib/is-object.ts';

const NUMERIC = new Set(['integer', 'number']);

/** The type list of an output node: a numeric type also accepts a string. */
export function widenOutputTypes(types: string[]): string[] {
  if (!types.some((t) => NUMERIC.has(t)) || types.includes('string')) return types;
  const out = [...types];
  const at = out.findIndex((t) => t === 'null');
  out.splice(at < 0 ? out.length : at, 0, 'string');
  return out;
}

/**
 * The schema, also accepting null. Only `type` and composition can reject null here (outputs keep no enum, const or
 * not): a type gains "null"; a node with anyOf/allOf becomes anyOf [node, null] (flattened when it is a bare anyOf).
 */
export function acceptNull(s: JsonSchema): JsonSchema {
  if (acceptsNull(s)) return s;
  const { description, ...rest } = s;
  if (rest.anyOf === undefined && rest.allOf === undefined) {
    const t = rest.type;
    return { ...s, type: Array.isArray(t) ? [...t, 'null'] : [t, 'null'] };
  }
  const bareAnyOf = Object.keys(rest).length === 1 && Array.isArray(rest.anyOf);
  const out: JsonSchema = { anyOf: [...(bareAnyOf ? (rest.anyOf as JsonSchema[]) : [rest]), { type: 'null' }] };
  if (description !== undefined) out.description = description;
  return out;
}

/** Whether null passes the schema's type and composition (the only keywords of an output node that can reject it). */
export function acceptsNull(s: JsonSchema): boolean {
  if (s.type !== undefined && ![s.type].flat().includes('null')) return false;
  if (Array.isArray(s.anyOf) && !(s.anyOf as JsonSchema[]).some(acceptsNull)) return false;
  if (Array.isArray(s.allOf) && !(s.allOf as JsonSchema[]).every(acceptsNull)) return false;
  return true;
}

/** "Map values: string." for a typed map whose value schema is not kept. */
export function mapValuesNote(values: JsonSchema): string {
  const t = values.type;
  const types = (Array.isArray(t) ? t : typeof t === 'string' ? [t] : []).filter((x) => x !== 'null');
  if (types.length) return `Map values: ${types.join(' or ')}.`;
  if (isObj(values.properties) || Array.isArray(values.anyOf)) return 'Map values: objects.';
  return 'Map of values.';
}

/**
 * The schema without the drift tolerance, for readers that want the spec's shape rather than what validation
 * accepts (code mode's declarations): no null in types or anyOf, no string beside a numeric type. Nullability the
 * spec declared goes too, as the two cannot be told apart; every output value may be null anyway.
 */
export function withoutDriftTolerance(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutDriftTolerance);
  if (!isObj(schema)) return schema;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'properties' && isObj(v)) out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, withoutDriftTolerance(s)]));
    else if (k === 'type' && Array.isArray(v)) {
      let types = (v as string[]).filter((t) => t !== 'null');
      if (types.some((t) => NUMERIC.has(t))) types = types.filter((t) => t !== 'string');
      if (types.length) out.type = types.length === 1 ? types[0] : types;
    } else if (k === 'anyOf' && Array.isArray(v)) {
      const branches = v.filter((b) => !(isObj(b) && b.type === 'null' && Object.keys(b).length === 1)).map(withoutDriftTolerance);
      if (branches.length === 1 && Object.keys(schema).length === 1) return branches[0];
      out.anyOf = branches;
    } else out[k] = k === 'enum' || k === 'const' || k === 'required' ? v : withoutDriftTolerance(v);
  }
  return out;
}
