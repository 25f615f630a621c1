// A typical projection for a tool: five top-level fields of one result item that a model would pick to scan a
// list, identifying and human-readable fields first, then the item's other scalar fields in schema order. Used by
// the token report's result section and by the sweep, so both exercise the same generic choice for every tool.
import type { CatalogueTool, JsonSchema } from '../../src/catalogue/types.ts';
import { projectionSchemas } from '../../src/results/shape.ts';
import { isObj } from '../lib/is-object.ts';

const PREFERRED = ['id', 'number', 'name', 'title', 'full_name', 'login', 'key', 'state', 'status', 'type', 'html_url', 'created_at', 'updated_at'];
const SCALAR = new Set(['string', 'number', 'integer', 'boolean', 'null']);

function itemProps(schema: unknown): Record<string, JsonSchema> {
  if (!isObj(schema)) return {};
  if (isObj(schema.items)) return itemProps(schema.items);
  const out: Record<string, JsonSchema> = {};
  if (isObj(schema.properties)) Object.assign(out, schema.properties);
  for (const k of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(schema[k])) for (const b of schema[k] as unknown[]) for (const [n, s] of Object.entries(itemProps(b))) out[n] ??= s;
  return out;
}

function isScalar(s: JsonSchema): boolean {
  const t = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];
  return t.length > 0 && t.every((x) => SCALAR.has(x));
}

/** Up to `n` field names, or [] when the result items have no scalar fields (lists of strings, free-form objects). */
export function typicalProjection(tool: CatalogueTool, n = 5): string[] {
  const props = itemProps(projectionSchemas(tool)[0]);
  const scalars = Object.keys(props).filter((k) => isScalar(props[k]!));
  const first = PREFERRED.filter((k) => scalars.includes(k));
  return [...first, ...scalars.filter((k) => !first.includes(k))].slice(0, n);
}
