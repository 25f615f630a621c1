// What an outputSchema leaves open beyond the spec (docs/generator.md, "Drift"). Types stay exact: a value is null
// only where the spec allows it, and a number is never widened to a string; a response that breaks them is still a
// success (delivered as `as_returned`, and a schema that keeps failing is dropped at run time). Left open:
//   - typed maps (additionalProperties: {…}) keep no value schema: the keys are the API's data, and a new key's
//     value is whatever the API sends; the declared value type becomes description text;
//   - the `{result}` wrapper's value accepts null: the worker's empty result for a success without a body, and the
//     envelope of a body delivered beside the schema, are `{result: null, …}`.
// enum, const, format and `required` are dropped by the converter itself (enum, const and format become text).
import type { JsonSchema } from '../../src/catalogue/types.ts';
import { isObj } from '../lib/is-object.ts';

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
