// The fields an outputSchema types, by level: what the listing's output bound (src/profiles/output-bound.ts) keeps
// and hides, counted the way it counts levels (in the response body: a wrapped tool's `result`, array items and
// composition branches add none). Used by the token report and the bench's trade-off.
import { isObj } from '../lib/is-object.ts';

/** Field path (`.a[].b`) -> its level (1 = the body's own fields) and whether the schema gives it a type. */
export type FieldMap = Map<string, { level: number; typed: boolean }>;

export function outputFields(schema: unknown, wrapped: boolean): FieldMap {
  const out: FieldMap = new Map();
  const props = isObj(schema) && isObj(schema.properties) ? schema.properties : undefined;
  const walk = (n: unknown, path: string, level: number): void => {
    if (Array.isArray(n)) return n.forEach((x) => walk(x, path, level));
    if (!isObj(n)) return;
    for (const [k, v] of Object.entries(n)) {
      if (k === 'properties' && isObj(v)) {
        for (const [name, field] of Object.entries(v)) {
          const p = `${path}.${name}`;
          const typed = isObj(field) && field.type !== undefined;
          out.set(p, { level: level + 1, typed: typed || (out.get(p)?.typed ?? false) });
          walk(field, p, level + 1);
        }
      } else if (k === 'items' || k === 'anyOf' || k === 'allOf' || k === 'oneOf') walk(v, k === 'items' ? `${path}[]` : path, level);
    }
  };
  walk(wrapped && props?.result !== undefined ? props.result : schema, '', 0);
  return out;
}

export interface TypedShare {
  /** Fields the full schemas type. */
  fields: number;
  /** Of them, typed in the listed schemas. */
  typed: number;
  /** The same for the top level (the body's own fields). */
  topFields: number;
  topTyped: number;
}

/** How many of the fields the full schemas type the listed ones still type. */
export function typedShare(pairs: Iterable<{ full: unknown; listed: unknown; wrapped: boolean }>): TypedShare {
  const s: TypedShare = { fields: 0, typed: 0, topFields: 0, topTyped: 0 };
  for (const { full, listed, wrapped } of pairs) {
    const shown = outputFields(listed, wrapped);
    for (const [path, f] of outputFields(full, wrapped)) {
      if (!f.typed) continue;
      const kept = shown.get(path)?.typed === true;
      s.fields++;
      if (kept) s.typed++;
      if (f.level === 1) {
        s.topFields++;
        if (kept) s.topTyped++;
      }
    }
  }
  return s;
}
