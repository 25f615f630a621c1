// Projection: the caller names the fields it wants (`number,title,user.login,labels.name`), applied to each item of
// a list result. Paths are checked against the tool's outputSchema before any request is sent; through arrays they
// continue into the items, so `labels.name` keeps the name of every label.
import type { JsonSchema } from '../catalogue/types.ts';

/** Field names at one level; `true` keeps that field whole. */
export type FieldTree = { [key: string]: FieldTree | true };

export type ParsedFields = { all: true } | { paths: string[][] } | { error: string };

/** The projection argument: a comma-separated string (or, leniently, an array of strings). `*` asks for everything. */
export function parseFields(raw: unknown): ParsedFields {
  const parts = typeof raw === 'string' ? raw.split(',') : Array.isArray(raw) && raw.every((x) => typeof x === 'string') ? raw.flatMap((x) => x.split(',')) : undefined;
  if (!parts) return { error: 'must be a comma-separated string of field paths, e.g. "id,title,user.login"' };
  const names = parts.map((p) => p.trim()).filter(Boolean);
  if (names.includes('*')) return { all: true };
  if (!names.length) return { error: 'names no field; give field paths such as "id,title,user.login", or "*" for the full result' };
  const paths: string[][] = [];
  for (const name of names) {
    const segs = name.split('.').map((s) => s.trim());
    if (segs.some((s) => !s)) return { error: `"${name}" is not a field path (dots go between field names, e.g. user.login)` };
    paths.push(segs);
  }
  return { paths };
}

export function fieldTree(paths: string[][]): FieldTree {
  const root: FieldTree = {};
  for (const segs of paths) {
    let node = root;
    for (let i = 0; i < segs.length; i++) {
      const k = segs[i]!;
      const last = i === segs.length - 1;
      const cur = node[k];
      if (cur === true) break; // a shorter path already keeps the whole field
      if (last) node[k] = true;
      else node = (node[k] = cur ?? {}) as FieldTree;
    }
  }
  return root;
}

/** Keeps only the fields of `tree`, in the data's own key order; arrays are projected element by element. */
export function project(value: unknown, tree: FieldTree): unknown {
  if (Array.isArray(value)) return value.map((x) => project(x, tree));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key in value as Record<string, unknown>) {
    const sub = tree[key];
    if (sub === undefined) continue;
    const x = (value as Record<string, unknown>)[key];
    out[key] = sub === true || x === null ? x : project(x, sub);
  }
  return out;
}

interface Level {
  props: Map<string, JsonSchema>;
  /** A schema for any key (a map), when the level declares one. */
  anyKey?: JsonSchema;
  /** No declared fields and not a scalar: any path below is accepted. */
  open: boolean;
}

const SCALARS = new Set(['string', 'number', 'integer', 'boolean', 'null']);

/** The fields a value of `schema` may have, looking through arrays and anyOf/oneOf/allOf branches. */
function level(schema: unknown, depth = 0): Level {
  const out: Level = { props: new Map(), open: false };
  if (!schema || typeof schema !== 'object' || depth > 12) return { ...out, open: true };
  const s = schema as JsonSchema;
  let scalar = false;
  const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];
  if (types.length && types.every((t) => SCALARS.has(t))) scalar = true;
  if (s.items && typeof s.items === 'object') merge(out, level(s.items, depth + 1));
  if (s.properties && typeof s.properties === 'object') for (const [k, v] of Object.entries(s.properties as JsonSchema)) if (!out.props.has(k)) out.props.set(k, v as JsonSchema);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') out.anyKey = s.additionalProperties as JsonSchema;
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const) if (Array.isArray(s[k])) for (const b of s[k] as unknown[]) merge(out, level(b, depth + 1));
  if (!out.props.size && !out.anyKey && !scalar && !types.includes('array')) out.open = true;
  return out;
}

function merge(into: Level, from: Level): void {
  for (const [k, v] of from.props) if (!into.props.has(k)) into.props.set(k, v);
  into.anyKey ??= from.anyKey;
  into.open ||= from.open;
}

function hasPath(schema: unknown, segs: string[], i: number): boolean {
  if (i === segs.length) return true;
  const l = level(schema);
  const child = l.props.get(segs[i]!) ?? l.anyKey;
  if (child) return hasPath(child, segs, i + 1);
  return l.open;
}

/** Paths (dotted) that none of `schemas` declares. */
export function unknownPaths(schemas: unknown[], paths: string[][]): string[] {
  return paths.filter((segs) => !schemas.some((s) => hasPath(s, segs, 0))).map((segs) => segs.join('.'));
}

/** The field names one item of `schema` declares, in schema order. */
export function topLevelFields(schema: unknown): string[] {
  return [...level(schema).props.keys()];
}

/** Dotted paths present in `value` (an item, or an array of items), for a projection checked against data. */
export function pathsPresent(value: unknown, paths: string[][]): Set<string> {
  const found = new Set<string>();
  const visit = (v: unknown, segs: string[], i: number, key: string) => {
    if (Array.isArray(v)) {
      for (const x of v) visit(x, segs, i, key);
      return;
    }
    if (i === segs.length) {
      found.add(key);
      return;
    }
    if (v !== null && typeof v === 'object' && segs[i]! in v) visit((v as Record<string, unknown>)[segs[i]!], segs, i + 1, key);
  };
  for (const segs of paths) visit(value, segs, 0, segs.join('.'));
  return found;
}
