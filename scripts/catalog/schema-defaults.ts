// Input defaults that their own schema refuses (docs/generator.md, "Defaults"). Specs write `{type: integer,
// default: "1"}`, `{type: boolean, default: "false"}`, `{type: integer, default: "inf"}` or a default outside its
// own enum; a client that fills in defaults then sends a value the server refuses ("Expected integer"). A default
// is kept when its schema accepts it (checked as the Worker will check the argument), coerced when that loses
// nothing ("1" -> 1, "false" -> false, 2 -> "2"), and dropped otherwise; both are reported with the lossy conversions.
import type { JsonSchema } from '../../src/catalogue/types.ts';
import { validate } from '../../src/catalogue/validator.ts';
import { isObj } from '../lib/is-object.ts';
/** The converter's warning sink (schema-converter.ts calls this module, so it is not imported from there). */
type Warn = (kind: string, detail: string) => void;

const INTEGER = /^-?(0|[1-9]\d*)(\.0+)?$/;
const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/;

/** The schema's own types (none: any). */
function typesOf(s: JsonSchema): string[] {
  return Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];
}

/** Whether `v` is of one of the types (an integer is a number too). */
export function ofType(v: unknown, types: string[]): boolean {
  if (!types.length) return true;
  return types.some((t) => {
    switch (t) {
      case 'integer':
        return typeof v === 'number' && Number.isInteger(v);
      case 'number':
        return typeof v === 'number' && Number.isFinite(v);
      case 'string':
        return typeof v === 'string';
      case 'boolean':
        return typeof v === 'boolean';
      case 'null':
        return v === null;
      case 'array':
        return Array.isArray(v);
      case 'object':
        return isObj(v);
      default:
        return true;
    }
  });
}

/** The values `v` means in each of the types, losing nothing: "1" as 1, "false" as false, 2 as "2". */
export function losslessReadings(v: unknown, types: string[]): unknown[] {
  const out: unknown[] = [];
  for (const t of types) {
    if (typeof v === 'string') {
      const s = v.trim();
      if (t === 'integer' && INTEGER.test(s) && Number.isSafeInteger(Number(s))) out.push(Number(s));
      if (t === 'number' && NUMBER.test(s) && Number.isFinite(Number(s))) out.push(Number(s));
      if (t === 'boolean' && /^(true|false)$/i.test(s)) out.push(s.toLowerCase() === 'true');
      if (t === 'null' && s === 'null') out.push(null);
    } else if (t === 'string' && ((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean')) out.push(String(v));
    else if (t === 'integer' && typeof v === 'number' && Number.isInteger(v)) out.push(v);
  }
  return out;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Whether the schema accepts the value as the server will check it: its type, enum and const first, then the
 * whole schema with the validator the Worker uses (a format, a pattern, a bound: `""` for a `uri`, `"now"` for a date).
 */
function allowed(v: unknown, s: JsonSchema): boolean {
  if (!ofType(v, typesOf(s))) return false;
  if (Array.isArray(s.enum) && !s.enum.some((e) => same(e, v))) return false;
  if ('const' in s && !same(s.const, v)) return false;
  const { default: _d, ...rest } = s;
  return validate(rest, v).valid;
}

/** Keeps, coerces or drops `schema.default` (in place) so that the schema accepts its own default. */
export function cleanDefault(schema: JsonSchema, where: string, warn: Warn, nullable = false): void {
  const v = schema.default;
  if (v === undefined || (v === null && nullable) || allowed(v, schema)) return;
  const types = typesOf(schema);
  const candidates = [...losslessReadings(v, types.length ? types : ['integer', 'number', 'boolean', 'string']), ...(Array.isArray(schema.enum) ? schema.enum.filter((e) => String(e) === String(v)) : [])];
  const fixed = candidates.find((c) => allowed(c, schema));
  if (fixed !== undefined) {
    schema.default = fixed;
    warn('default-coerced', `${where}: default ${JSON.stringify(v)} is not a ${describe(schema)}; written as ${JSON.stringify(fixed)}`);
    return;
  }
  delete schema.default;
  warn('default-dropped', `${where}: default ${JSON.stringify(v)} is not a ${describe(schema)} and cannot be read as one; dropped`);
}

function describe(s: JsonSchema): string {
  const t = typesOf(s).join(' or ') || 'value';
  if (Array.isArray(s.enum)) return `${t} of its enum`;
  if ('const' in s) return `${t} equal to its const`;
  const also = ['format', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems'].filter((k) => k in s);
  return also.length ? `${t} its ${also.join(', ')} accept${also.length > 1 ? '' : 's'}` : t;
}
