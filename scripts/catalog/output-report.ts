// The token report's outputSchema section: what the listings carry as outputSchemas, checked against the catalogue.
// - thinned: a tool listed with a bare {type: object} although its catalogue schema names fields (the listing cut it);
// - size fallback: listed schemas over OUTPUT_SCHEMA_MAX, cut to fewer levels (src/profiles/listing-compaction.ts);
// - typed fields: of the fields the catalogue schemas type, those the listed ones still type under the output bound
//   (src/profiles/output-bound.ts), all of them and the top level's, and the typed nodes a strict client compiles;
// - numeric properties: listed properties typed integer or number, and how many of them also allow a string (only
//   where the spec says so: the generator never widens a number, docs/generator.md "Drift").
import type { LoadedCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { JsonSchema } from '../../src/catalogue/types.ts';
import { clippedOutputSchema, DEFAULT_COMPACT, OUTPUT_BOUND, OUTPUT_SCHEMA_MAX, outputSchemaFits } from '../../src/profiles/listing-compaction.ts';
import { typedNodes } from '../../src/profiles/output-bound.ts';
import type { WireTool } from '../../src/profiles/view.ts';
import { isObj } from '../lib/is-object.ts';
import { typedShare, type TypedShare } from './typed-fields.ts';

export interface OutputSection {
  /** Tools listed with an outputSchema (whole catalogue, default profile). */
  listed: number;
  /** Listed as a bare object although the catalogue schema has properties. */
  thinned: string[];
  /** Listed schemas over the size limit, cut to fewer levels. */
  fallback: string[];
  /** Listed properties typed integer/number, and those that also allow a string. */
  numeric: number;
  numericWithString: number;
  /** Distinct listed outputSchemas (identical ones are shared in memory; clients compile each tool's own). */
  distinct: number;
  bytes: number;
  /** Fields the catalogue schemas type, and those the listed schemas still type. */
  typed: TypedShare;
  /** Typed nodes of the listed schemas, and of the catalogue's. */
  nodes: number;
  fullNodes: number;
}

/** Whether a schema names fields: properties at its root, or (wrapped) in its `result` or that array's items. */
export function namesFields(schema: JsonSchema | undefined): boolean {
  if (!schema) return false;
  const props = schema.properties as Record<string, JsonSchema> | undefined;
  if (!isObj(props) || !Object.keys(props).length) return false;
  return true;
}

export function outputSection(loaded: LoadedCatalogue, listing: WireTool[]): OutputSection {
  const out: OutputSection = { listed: 0, thinned: [], fallback: [], numeric: 0, numericWithString: 0, distinct: 0, bytes: 0, typed: typedShare([]), nodes: 0, fullNodes: 0 };
  const ids = new Set<string>();
  const pairs: Array<{ full: unknown; listed: unknown; wrapped: boolean }> = [];
  for (const w of listing) {
    const i = loaded.indexOf(w.name);
    const tool = i === undefined ? undefined : loaded.tool(i);
    const full = tool?.outputSchema;
    if (!w.outputSchema || !full) continue;
    pairs.push({ full, listed: w.outputSchema, wrapped: tool!.outputWrapped === true });
    out.nodes += typedNodes(w.outputSchema);
    out.fullNodes += typedNodes(full);
    out.listed++;
    out.bytes += JSON.stringify(w.outputSchema).length;
    ids.add(JSON.stringify(w.outputSchema));
    if (namesFields(full) && !namesFields(w.outputSchema)) out.thinned.push(w.name);
    if (!outputSchemaFits(clippedOutputSchema(full, DEFAULT_COMPACT))) out.fallback.push(w.name);
    countNumeric(w.outputSchema, out);
  }
  out.distinct = ids.size;
  out.typed = typedShare(pairs);
  return out;
}

/** Type names a schema allows at its own level (its type, and its anyOf/oneOf branches'). */
function typesOf(s: unknown): Set<string> {
  const types = new Set<string>();
  if (!isObj(s)) return types;
  for (const t of [s.type].flat()) if (typeof t === 'string') types.add(t);
  for (const k of ['anyOf', 'oneOf'] as const) if (Array.isArray(s[k])) for (const b of s[k] as unknown[]) for (const t of typesOf(b)) types.add(t);
  return types;
}

function countNumeric(node: unknown, out: OutputSection): void {
  if (Array.isArray(node)) return node.forEach((n) => countNumeric(n, out));
  if (!isObj(node)) return;
  for (const [k, v] of Object.entries(node)) {
    if (k === 'properties' && isObj(v)) {
      for (const prop of Object.values(v)) {
        const types = typesOf(prop);
        if (types.has('integer') || types.has('number')) {
          out.numeric++;
          if (types.has('string')) out.numericWithString++;
        }
        countNumeric(prop, out);
      }
    } else if (k !== 'enum' && k !== 'const' && k !== 'required') countNumeric(v, out);
  }
}

export function formatOutputSection(o: OutputSection): string[] {
  const pct = o.numeric ? ((o.numericWithString / o.numeric) * 100).toFixed(2) : '0.00';
  const share = (x: number, of: number) => `${x} of ${of} (${of ? ((100 * x) / of).toFixed(1) : '100.0'}%)`;
  const bound = `${OUTPUT_BOUND.levels} level${OUTPUT_BOUND.levels === 1 ? '' : 's'} whole, ${OUTPUT_BOUND.budget} typed nodes below`;
  return [
    '## Output schemas (whole catalogue, default profile)',
    '',
    `- listed with an outputSchema: ${o.listed} tools, ${o.bytes.toLocaleString('en-US')} bytes of outputSchema JSON; ${o.distinct} distinct schemas`,
    `- thinned to a bare object although the catalogue schema names fields: ${o.thinned.length}${o.thinned.length ? ` (${o.thinned.slice(0, 10).join(', ')})` : ''}`,
    `- over the ${OUTPUT_SCHEMA_MAX / 1024} KB size limit, listed cut to fewer levels: ${o.fallback.length}${o.fallback.length ? ` (${o.fallback.slice(0, 10).join(', ')})` : ''}`,
    `- numeric properties: ${o.numeric}; of them also allowing a string (as the spec declares): ${o.numericWithString} (${pct}%)`,
    `- output bound (${bound}): top-level fields typed ${share(o.typed.topTyped, o.typed.topFields)}; all fields typed ${share(o.typed.typed, o.typed.fields)}; typed nodes a strict client compiles ${o.nodes.toLocaleString('en-US')} (whole schemas: ${o.fullNodes.toLocaleString('en-US')})`,
    '',
  ];
}
