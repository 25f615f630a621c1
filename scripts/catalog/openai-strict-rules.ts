// OpenAI strict function calling: the rules a tool's `parameters` (our inputSchema) must pass for `strict: true`,
// written from OpenAI's published Structured Outputs rules ("Supported schemas"). A schema that breaks one is
// rejected by the API, or makes an agent framework fall back to non-strict calling. Pure functions; the openai
// profile's tests (test/node/strict-schema.test.ts) and the token report run them.
import type { JsonSchema } from '../../src/catalogue/types.ts';

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
/** Keywords any node may carry. */
const COMMON = new Set(['type', 'description', 'title', 'enum', 'const', 'anyOf', '$ref', '$defs']);
const BY_TYPE: Record<string, Set<string>> = {
  object: new Set(['properties', 'required', 'additionalProperties']),
  array: new Set(['items', 'minItems', 'maxItems']),
  string: new Set(['pattern', 'format']),
  number: new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']),
  integer: new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']),
};
const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
export const OPENAI_STRICT_LIMITS = { depth: 10, properties: 5000, enumValues: 1000, stringChars: 120_000, bigEnum: 250, bigEnumChars: 15_000 } as const;

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Every rule violation of one inputSchema under strict mode; empty when strict mode accepts it. */
export function strictProblems(schema: JsonSchema): string[] {
  const probs: string[] = [];
  if (!isObj(schema)) return ['root is not a schema object'];
  if (schema.type !== 'object') probs.push('root: type is not "object"');
  for (const k of ['anyOf', 'oneOf', 'allOf', 'not', '$ref']) if (k in schema) probs.push(`root: ${k} (no composition at the root)`);
  const totals = { properties: 0, enumValues: 0, stringChars: 0 };
  const defs = isObj(schema.$defs) ? schema.$defs : {};
  const visit = (n: unknown, path: string, depth: number): void => {
    if (!isObj(n)) return void probs.push(`${path}: not a schema object`);
    const types = [n.type].flat().filter((t) => t !== undefined);
    for (const t of types) if (typeof t !== 'string' || !TYPES.has(t)) probs.push(`${path}: type ${JSON.stringify(t)}`);
    if (!types.length && n.enum === undefined && n.const === undefined && n.anyOf === undefined && n.$ref === undefined) probs.push(`${path}: no type (free-form value)`);
    const allowed = new Set([...COMMON, ...types.flatMap((t) => [...(BY_TYPE[t as string] ?? [])])]);
    for (const k of Object.keys(n)) if (!allowed.has(k)) probs.push(`${path}: keyword "${k}" is not supported${types.length ? ` for type ${types.join('|')}` : ''}`);
    if (typeof n.format === 'string' && !FORMATS.has(n.format)) probs.push(`${path}: format "${n.format}" is not supported`);
    if (typeof n.$ref === 'string' && n.$ref !== '#' && !(n.$ref.startsWith('#/$defs/') && n.$ref.slice(8) in defs)) probs.push(`${path}: $ref ${n.$ref} does not resolve to $defs`);
    const isObject = types.includes('object') || n.properties !== undefined;
    if (isObject) {
      if (depth > OPENAI_STRICT_LIMITS.depth) probs.push(`${path}: nesting deeper than ${OPENAI_STRICT_LIMITS.depth} levels`);
      if (n.additionalProperties !== false) probs.push(`${path}: additionalProperties is not false`);
      if (!isObj(n.properties)) probs.push(`${path}: object without properties`);
      const keys = Object.keys(isObj(n.properties) ? n.properties : {});
      const required = Array.isArray(n.required) ? (n.required as unknown[]) : undefined;
      if (!required) probs.push(`${path}: no required array`);
      else {
        for (const k of keys) if (!required.includes(k)) probs.push(`${path}: property "${k}" is not required (make it nullable instead)`);
        for (const r of required) if (!keys.includes(r as string)) probs.push(`${path}: required "${String(r)}" is not a property`);
      }
      for (const k of keys) {
        totals.properties++;
        totals.stringChars += k.length;
        visit((n.properties as Record<string, unknown>)[k], `${path}.${k}`, depth + 1);
      }
    }
    if (types.includes('array')) {
      if (depth > OPENAI_STRICT_LIMITS.depth) probs.push(`${path}: nesting deeper than ${OPENAI_STRICT_LIMITS.depth} levels`);
      if (!isObj(n.items)) probs.push(`${path}: array without an items schema`);
      else visit(n.items, `${path}[]`, depth + 1);
    }
    if (n.anyOf !== undefined) {
      if (!Array.isArray(n.anyOf) || !n.anyOf.length) probs.push(`${path}: anyOf is not a non-empty list`);
      else n.anyOf.forEach((b, i) => visit(b, `${path}.anyOf[${i}]`, depth));
    }
    if (Array.isArray(n.enum)) {
      const strings = n.enum.filter((v): v is string => typeof v === 'string');
      const chars = strings.reduce((a, v) => a + v.length, 0);
      totals.enumValues += n.enum.length;
      totals.stringChars += chars;
      if (n.enum.length > OPENAI_STRICT_LIMITS.bigEnum && chars > OPENAI_STRICT_LIMITS.bigEnumChars) probs.push(`${path}: enum of ${n.enum.length} values with ${chars} characters`);
    } else if (n.enum !== undefined) probs.push(`${path}: enum is not a list`);
    if (typeof n.const === 'string') totals.stringChars += n.const.length;
  };
  visit(schema, 'arguments', 1);
  for (const [name, d] of Object.entries(defs)) {
    totals.stringChars += name.length;
    visit(d, `$defs.${name}`, 1);
  }
  if (totals.properties > OPENAI_STRICT_LIMITS.properties) probs.push(`${totals.properties} properties in total (at most ${OPENAI_STRICT_LIMITS.properties})`);
  if (totals.enumValues > OPENAI_STRICT_LIMITS.enumValues) probs.push(`${totals.enumValues} enum values in total (at most ${OPENAI_STRICT_LIMITS.enumValues})`);
  if (totals.stringChars > OPENAI_STRICT_LIMITS.stringChars) probs.push(`${totals.stringChars} characters of names and enum values (at most ${OPENAI_STRICT_LIMITS.stringChars})`);
  return probs;
}
