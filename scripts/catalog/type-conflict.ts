// Parts of a schema that must all hold (an allOf, or a $ref and its siblings) but admit no common JSON type accept no
// value at all. Specs write that by mistake: `{$ref: <array schema>, type: object}` (OpenAPI 3.0 ignores the sibling),
// or `allOf: [{$ref: <string schema>}, {type: "null"}]` meaning "nullable". A schema that rejects every value breaks
// every call: an outputSchema fails each response, an inputSchema refuses each argument. So such parts are read
// leniently (docs/generator.md, "Contradictory parts"): an output accepts any part's reading (anyOf), an input keeps
// the first typed part (the $ref's target, as OpenAPI 3.0 reads a $ref with siblings) and the parts that agree with it.
import type { JsonSchema } from '../../src/catalogue/types.ts';

/** The JSON types a converted schema admits, or undefined when its type and composition do not say. */
export function admittedTypes(s: JsonSchema): Set<string> | undefined {
  if (typeof s.type === 'string' || Array.isArray(s.type)) {
    const out = new Set<string>([s.type as string | string[]].flat());
    if (out.has('number')) out.add('integer');
    return out;
  }
  if (Array.isArray(s.anyOf)) {
    const out = new Set<string>();
    for (const m of s.anyOf as JsonSchema[]) {
      const t = admittedTypes(m);
      if (!t) return undefined;
      for (const x of t) out.add(x);
    }
    return out;
  }
  if (Array.isArray(s.allOf)) return commonTypes(s.allOf as JsonSchema[]);
  return undefined;
}

/** The types every part with a known type admits; undefined when no part says. */
function commonTypes(parts: JsonSchema[]): Set<string> | undefined {
  let common: Set<string> | undefined;
  for (const p of parts) {
    const t = admittedTypes(p);
    if (!t) continue;
    common = common ? new Set([...common].filter((x) => t.has(x))) : t;
  }
  return common;
}

/** True when the parts, all required to hold, admit no common type (so no value passes them). */
export function typesConflict(parts: JsonSchema[]): boolean {
  const common = commonTypes(parts);
  return common !== undefined && common.size === 0;
}

/**
 * The lenient reading of contradictory parts: output → anyOf of the parts; input → the parts that agree with the
 * first typed one (a single part is returned bare).
 */
export function reconcileParts(parts: JsonSchema[], mode: 'input' | 'output'): JsonSchema {
  if (mode === 'output') return { anyOf: parts };
  const first = parts.find((p) => admittedTypes(p) !== undefined);
  const firstTypes = first ? admittedTypes(first)! : undefined;
  const kept = parts.filter((p) => {
    const t = admittedTypes(p);
    return !t || !firstTypes || [...t].some((x) => firstTypes.has(x));
  });
  return kept.length === 1 ? kept[0]! : { allOf: kept };
}

/**
 * allOf of converted parts, read leniently (with a warning) when their types contradict each other. For an input,
 * a part closed by `additionalProperties: false` to properties another part (or `own`, the node the allOf sits in)
 * adds is opened: closed, it refuses every object that has both (docs/generator.md, "Closed parts").
 */
export function allOfParts(parts: JsonSchema[], mode: 'input' | 'output', where: string, warn: (kind: string, detail: string) => void, own?: JsonSchema): JsonSchema {
  if (mode === 'input') {
    const names = propertyNames({ allOf: parts, ...(own?.properties ? { properties: own.properties } : {}) });
    const open = parts.map((p) => opened(p, names));
    if (own?.additionalProperties === false && !closedTo(own, names)) delete own.additionalProperties;
    if (open.some((p, i) => p !== parts[i])) {
      warn('closed-parts', `${where}: allOf parts closed to properties the other parts add; opened`);
      parts = open;
    }
  }
  if (!typesConflict(parts)) return { allOf: parts };
  warn('type-conflict', `${where}: allOf parts (or a $ref and its siblings) admit no common type; ${mode === 'output' ? 'any part is accepted' : 'the first typed part wins'}`);
  return reconcileParts(parts, mode);
}

/** Property names a schema and its allOf parts declare. */
function propertyNames(s: JsonSchema, out = new Set<string>()): Set<string> {
  if (s.properties && typeof s.properties === 'object') for (const k of Object.keys(s.properties)) out.add(k);
  if (Array.isArray(s.allOf)) for (const p of s.allOf as JsonSchema[]) propertyNames(p, out);
  return out;
}

/** Whether a closed schema lists every one of the names itself (its allOf parts' properties do not count for it). */
function closedTo(s: JsonSchema, names: Set<string>): boolean {
  const listed = s.properties && typeof s.properties === 'object' ? s.properties : {};
  return [...names].every((n) => Object.hasOwn(listed, n));
}

/** The part without `additionalProperties: false` where it would refuse one of the names, its own allOf parts too (copies: parts are shared). */
function opened(s: JsonSchema, names: Set<string>): JsonSchema {
  let out = s;
  if (s.additionalProperties === false && !closedTo(s, names)) {
    const { additionalProperties: _closed, ...rest } = s;
    out = rest;
  }
  if (Array.isArray(out.allOf)) {
    const parts = out.allOf as JsonSchema[];
    const open = parts.map((p) => opened(p, names));
    if (open.some((p, i) => p !== parts[i])) out = { ...out, allOf: open };
  }
  return out;
}
