// Arguments from a strict caller mapped back to what the catalogue's own inputSchema means (docs/slices-profiles-
// discovery.md, "Strict function calling"): null for an optional property means absent, a free-form object sent
// as a JSON string or as {key, value} pairs becomes the object, a value cut to a JSON string is parsed back. Values
// already in the catalogue's form pass unchanged, so the mapping is safe for every caller of the profile.
import type { JsonSchema } from '../catalogue/types.ts';
import { isObj, shapeOf, type Shape } from './strict-shape.ts';

export interface MappedArguments {
  args: Record<string, unknown>;
  /** Values that could not be mapped (e.g. a JSON string that is not an object), as model-readable lines. */
  errors: string[];
}

export function fromStrictArguments(schema: JsonSchema, args: Record<string, unknown>): MappedArguments {
  const errors: string[] = [];
  const mapped = decode(schema, args, '', errors, true);
  return { args: isObj(mapped) ? mapped : args, errors };
}

function decode(schema: unknown, value: unknown, path: string, errors: string[], root = false): unknown {
  if (value === null || value === undefined) return value;
  const shape = shapeOf(schema, root);
  switch (shape.kind) {
    case 'object':
      return decodeObject(shape, parsed(value, 'object', path, errors), path, errors);
    case 'map':
      return decodeMap(shape.values, parsed(value, 'object', path, errors), path, errors);
    case 'array': {
      const list = parsed(value, 'array', path, errors);
      return Array.isArray(list) ? list.map((v, i) => decode(shape.items, v, `${path}/${i}`, errors)) : list;
    }
    case 'json':
      if (typeof value !== 'string') return value;
      // An object position must parse to an object; an any-value position keeps a string that is not JSON.
      return shape.object ? parsed(value, 'object', path, errors) : (tryParse(value) ?? value);
    case 'union':
      return decodeUnion(shape, value, path, errors);
    case 'scalar':
      return value;
  }
}

function decodeObject(shape: Extract<Shape, { kind: 'object' }>, value: unknown, path: string, errors: string[]): unknown {
  if (!isObj(value)) return value; // the catalogue schema's validation reports the wrong type
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null && !shape.required.has(k)) continue; // null = absent
    out[k] = k in shape.properties ? decode(shape.properties[k], v, `${path}/${k}`, errors) : v;
  }
  return out;
}

function decodeMap(values: JsonSchema, value: unknown, path: string, errors: string[]): unknown {
  if (Array.isArray(value)) {
    if (!value.every((p) => isObj(p) && typeof p.key === 'string')) {
      errors.push(`${where(path)}: expected a list of {"key": string, "value": …} pairs.`);
      return value;
    }
    return Object.fromEntries(value.map((p) => [p.key as string, decode(values, (p as Record<string, unknown>).value, `${path}/${String(p.key)}`, errors)]));
  }
  if (!isObj(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decode(values, v, `${path}/${k}`, errors)]));
}

function decodeUnion(shape: Extract<Shape, { kind: 'union' }>, value: unknown, path: string, errors: string[]): unknown {
  const kinds = shape.branches.map((b) => ({ branch: b, shape: shapeOf(b) }));
  const structured = (v: unknown) => kinds.find((k) => (Array.isArray(v) ? k.shape.kind === 'array' : isObj(v) ? ['object', 'map', 'json'].includes(k.shape.kind) : false));
  if (typeof value === 'string') {
    // A string is a JSON string only where no alternative takes a plain string.
    const takesString = kinds.some((k) => k.shape.kind === 'scalar' && [k.branch.type].flat().includes('string'));
    const json = takesString ? undefined : tryParse(value);
    const target = json === undefined ? undefined : structured(json);
    return target ? decode(target.branch, json, path, errors) : value;
  }
  const target = structured(value);
  return target ? decode(target.branch, value, path, errors) : value;
}

/** `value`, or the value a JSON string holds when an object or array is expected. */
function parsed(value: unknown, expected: 'object' | 'array', path: string, errors: string[]): unknown {
  if (typeof value !== 'string') return value;
  const json = tryParse(value);
  if (expected === 'object' ? isObj(json) : Array.isArray(json)) return json;
  errors.push(`${where(path)}: expected a JSON ${expected}${expected === 'object' ? ' (as a string, e.g. "{\\"key\\": \\"value\\"}")' : ' (as a string)'}, got ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)}.`);
  return value;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const where = (path: string) => (path ? `"${path.slice(1).replace(/\//g, '.')}"` : 'the arguments');
