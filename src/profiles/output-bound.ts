// The size bound of a listed outputSchema (docs/slices-profiles-discovery.md, "Compaction"). A strict client compiles
// every listed outputSchema with Ajv on listTools, at a cost that grows with the number of typed nodes (descriptions
// and untyped nodes cost next to nothing). So a listing keeps every field of the response's top levels typed and
// bounds what it shows below them.
//
// Levels are counted in the response body: a wrapped schema's `result`, array `items` and composition branches add
// none, so the items of a wrapped list are level 1 like the fields of an object. Every object whose fields are at
// level ≤ `levels` is kept whole; deeper objects are shown whole, breadth first, while their fields fit in `budget`
// typed nodes for the schema; any other object is listed as its bare type (`{type: "object"}`, an open object),
// keeping its description. Only loosening steps: an instance valid against the input stays valid against the output.
import type { JsonSchema } from '../catalogue/types.ts';

export interface OutputBound {
  /** Levels of fields always typed. */
  levels: number;
  /** Typed nodes the schema may show below those levels (Infinity: the whole schema). */
  budget: number;
}

type Node = Record<string, unknown>;

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
const BRANCHES = ['anyOf', 'allOf', 'oneOf'] as const;
/** Keywords whose values are schemas keyed by name (one level down). */
const NAMED = ['properties', 'patternProperties'] as const;
/** Keywords whose values are data or names, never walked. */
const DATA = new Set(['enum', 'const', 'default', 'required', 'examples', 'description', 'title', 'type']);
/** Subschemas kept exactly: loosening them would make the schema stricter (`not`, `if`) or they are referenced. */
const VERBATIM = new Set(['not', 'if', '$defs', 'definitions']);
/** What a hidden object keeps: its type (OpenAPI's `nullable` is part of it) and its description. */
const KEEP_HIDDEN = ['type', 'nullable', 'description'] as const;

/** An object node whose fields the listing can show or hide. */
function hasFields(n: Node): boolean {
  return NAMED.some((k) => isNode(n[k])) || isNode(n.additionalProperties);
}

/** Object nodes reached from `n` without crossing a level: through items and composition branches. */
function objectsAt(n: unknown, out: Node[]): Node[] {
  if (!isNode(n)) return out;
  if (hasFields(n)) out.push(n);
  if (isNode(n.items)) objectsAt(n.items, out);
  else if (Array.isArray(n.items)) for (const i of n.items) objectsAt(i, out);
  for (const k of BRANCHES) if (Array.isArray(n[k])) for (const b of n[k] as unknown[]) objectsAt(b, out);
  return out;
}

/** The schemas one level below an object node: its fields' (and its additionalProperties' schema). */
function fieldsOf(n: Node): unknown[] {
  const out: unknown[] = [];
  for (const k of NAMED) if (isNode(n[k])) out.push(...Object.values(n[k] as Node));
  if (isNode(n.additionalProperties)) out.push(n.additionalProperties);
  return out;
}

/** Typed nodes a field adds when its parent is shown: itself, its items and branches; a nested object counts as its bare type. */
function shallowCost(n: unknown): number {
  if (!isNode(n)) return 0;
  let c = n.type !== undefined ? 1 : 0;
  if (hasFields(n)) return Math.max(c, 1);
  if (isNode(n.items)) c += shallowCost(n.items);
  for (const k of BRANCHES) if (Array.isArray(n[k])) for (const b of n[k] as unknown[]) c += shallowCost(b);
  return c;
}

/** The object nodes shown whole: every one down to `levels`, then breadth first within `budget`. */
function shownObjects(body: unknown, bound: OutputBound): Set<Node> {
  const shown = new Set<Node>();
  let budget = bound.budget;
  let queue = objectsAt(body, []);
  for (let level = 0; queue.length; level++) {
    const next: Node[] = [];
    const costed = queue.map((obj) => ({ obj, fields: fieldsOf(obj) })).map((o) => ({ ...o, cost: o.fields.reduce<number>((a, f) => a + shallowCost(f), 0) }));
    // Below the whole levels, the smallest objects first: the most objects shown for the budget.
    if (level >= bound.levels) costed.sort((a, b) => a.cost - b.cost);
    for (const { obj, fields, cost } of costed) {
      if (shown.has(obj)) continue;
      if (level >= bound.levels) {
        if (cost > budget) break;
        budget -= cost;
      }
      shown.add(obj);
      for (const f of fields) objectsAt(f, next);
    }
    queue = next;
  }
  return shown;
}

/** `schema` with the objects outside `shown` as their bare type. */
function rewrite(node: unknown, shown: Set<Node>): unknown {
  if (Array.isArray(node)) return node.map((n) => rewrite(n, shown));
  if (!isNode(node)) return node;
  if (hasFields(node) && !shown.has(node)) {
    // Composition at a hidden object would need every branch kept; an open object of its type is the loosening.
    const bare: Node = {};
    for (const k of KEEP_HIDDEN) if (node[k] !== undefined) bare[k] = node[k];
    return bare;
  }
  const out: Node = {};
  for (const [k, v] of Object.entries(node)) {
    if (DATA.has(k) || VERBATIM.has(k)) out[k] = v;
    else if ((NAMED as readonly string[]).includes(k) && isNode(v)) out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, rewrite(s, shown)]));
    // A loosened branch can match where another does too: "exactly one" becomes "at least one".
    else if (k === 'oneOf') out.anyOf = rewrite(v, shown);
    else out[k] = rewrite(v, shown);
  }
  return out;
}

/**
 * The bounded form of a (clipped) outputSchema; the schema itself when the bound hides nothing. `wrapped`: the
 * tool's structuredContent is `{result: <body>}` (levels are counted from the body). Decisions are kept per node
 * object: a node shared by two places (clippedOutputSchema's copy shares none) is shown in both if in either, which
 * still only loosens.
 */
export function boundOutputSchema(schema: JsonSchema, wrapped: boolean, bound: OutputBound): JsonSchema {
  if (bound.budget === Infinity) return schema;
  const props = schema.properties as Node | undefined;
  const body = wrapped && isNode(props) && props.result !== undefined ? props.result : schema;
  const shown = shownObjects(body, bound);
  if (body !== schema) shown.add(schema);
  return rewrite(schema, shown) as JsonSchema;
}

/** Typed nodes of a schema: what a strict client compiles (test and report helper). */
export function typedNodes(node: unknown): number {
  if (Array.isArray(node)) return node.reduce<number>((a, n) => a + typedNodes(n), 0);
  if (!isNode(node)) return 0;
  let c = node.type !== undefined ? 1 : 0;
  for (const [k, v] of Object.entries(node)) {
    if (DATA.has(k)) continue;
    c += (NAMED as readonly string[]).includes(k) && isNode(v) ? typedNodes(Object.values(v)) : typedNodes(v);
  }
  return c;
}
