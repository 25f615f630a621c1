// Size of converted schemas, for the per-tool budget and cheap structural de-duplication.

const sizeCache = new WeakMap<object, number>();

/** Approximate serialised size of a schema DAG, memoised on object identity. */
export function schemaSize(v: unknown): number {
  if (v === null || typeof v !== 'object') return JSON.stringify(v)?.length ?? 4;
  const c = sizeCache.get(v as object);
  if (c !== undefined) return c;
  let n = 2;
  if (Array.isArray(v)) for (const x of v) n += schemaSize(x) + 1;
  else for (const [k, x] of Object.entries(v)) n += k.length + 4 + schemaSize(x);
  sizeCache.set(v as object, n);
  return n;
}
