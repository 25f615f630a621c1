// Schema dialects of the client profiles (docs/slices-profiles-discovery.md): what each client accepts in an
// inputSchema or outputSchema. Listings (view.ts) and describe_tool (src/discovery) go through applyDialect.
import type { JsonSchema } from '../catalogue/types.ts';
import type { Profile } from './profiles.ts';
import { toStrictSchema } from './strict-schema.ts';

/** Schemas for one profile's dialect; full (uncompacted) schemas from describe_tool go through here too. */
export function applyDialect(schema: JsonSchema, profile: Profile, output = false): JsonSchema {
  let s = ensureItems(schema) as JsonSchema;
  if (profile.dialect === 'gemini') s = stripKeys(inlineRefs(s), output ? new Set(['$defs', 'definitions']) : new Set(['$defs', 'definitions', 'additionalProperties'])) as JsonSchema;
  if (profile.dialect === 'vscode' && !output) s = draft07(s) as JsonSchema;
  if (profile.dialect === 'strict' && !output) s = toStrictSchema(inlineRefs(s));
  return s;
}

// Every array needs `items` (OpenAI); `items: {}` accepts what the array held before.
function ensureItems(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(ensureItems);
  if (!node || typeof node !== 'object') return node;
  const src = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(src)) out[k] = k === 'enum' || k === 'const' || k === 'default' || k === 'required' ? v : k === 'properties' ? mapValues(v, ensureItems) : ensureItems(v);
  const isArray = src.type === 'array' || (Array.isArray(src.type) && src.type.includes('array'));
  if (isArray && out.items === undefined && out.prefixItems === undefined) out.items = {};
  return out;
}

function mapValues(v: unknown, f: (x: unknown) => unknown): unknown {
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, f(x)]));
}

/** Replaces local refs (#/$defs/X, #/definitions/X) with their targets; a recursive ref becomes {} (any value). */
function inlineRefs(root: JsonSchema): JsonSchema {
  const defs = { ...((root.definitions ?? {}) as Record<string, unknown>), ...((root.$defs ?? {}) as Record<string, unknown>) };
  const walk = (node: unknown, seen: Set<string>): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, seen));
    if (!node || typeof node !== 'object') return node;
    const src = node as Record<string, unknown>;
    if (typeof src.$ref === 'string') {
      const m = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(src.$ref);
      const key = m ? decodeURIComponent(m[1]!.replace(/~1/g, '/').replace(/~0/g, '~')) : undefined;
      if (!key || !(key in defs) || seen.has(key)) return {};
      const { $ref: _ref, ...siblings } = src;
      const target = walk(defs[key], new Set([...seen, key])) as Record<string, unknown>;
      return Object.keys(siblings).length ? { allOf: [target, walk(siblings, seen)] } : target;
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(src)) out[k] = k === 'enum' || k === 'const' || k === 'default' ? v : walk(v, seen);
    return out;
  };
  return walk(root, new Set()) as JsonSchema;
}

function stripKeys(node: unknown, keys: Set<string>): unknown {
  if (Array.isArray(node)) return node.map((n) => stripKeys(n, keys));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
    if (keys.has(k)) continue;
    out[k] = k === 'enum' || k === 'const' || k === 'default' || k === 'required' ? v : k === 'properties' ? mapValues(v, (x) => stripKeys(x, keys)) : stripKeys(v, keys);
  }
  return out;
}

const NOT_DRAFT07 = new Set(['prefixItems', 'unevaluatedProperties', 'unevaluatedItems', 'dependentRequired', 'dependentSchemas', '$anchor', '$dynamicRef', '$dynamicAnchor', 'minContains', 'maxContains', '$vocabulary']);

/** draft-07-clean: $defs -> definitions (refs rewritten), 2020-12-only keywords dropped, $schema removed. */
function draft07(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(draft07);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
    if (NOT_DRAFT07.has(k) || k === '$schema') continue;
    if (k === '$ref' && typeof v === 'string') out[k] = v.replace(/^#\/\$defs\//, '#/definitions/');
    else if (k === '$defs') out.definitions = mapValues(v, draft07);
    else if (k === 'properties' || k === 'definitions') out[k] = mapValues(v, draft07);
    else if (k === 'enum' || k === 'const' || k === 'default' || k === 'required') out[k] = v;
    else if ((k === 'exclusiveMinimum' || k === 'exclusiveMaximum') && typeof v === 'boolean') continue;
    else out[k] = draft07(v);
  }
  return out;
}
