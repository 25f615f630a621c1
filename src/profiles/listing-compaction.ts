// Token-saving transforms for tools/list entries. Every transform here only LOOSENS a schema (drops text, or deep
// structure of an outputSchema), so anything valid against the catalogue's full schema stays valid against the
// listed one. An outputSchema keeps every field of its top levels typed, deeper objects within a size bound
// (output-bound.ts), and clipped descriptions (docs/slices-profiles-discovery.md, "Compaction").
import type { JsonSchema } from '../catalogue/types.ts';
import { boundOutputSchema, type OutputBound } from './output-bound.ts';

export interface CompactOptions {
  /** Max characters of a tool description (cut at a sentence or word end). */
  descriptionMax: number;
  /** Max characters of a property description inside inputSchema and outputSchema. */
  propertyDescriptionMax: number;
  /** How much of an outputSchema a listing shows (output-bound.ts). */
  output: OutputBound;
}

/**
 * The listing's output bound: every field of the response's top level typed, deeper objects as their bare type. Each
 * deeper object shown would cost the v1 client's listTools in proportion to its fields, with no knee in the curve
 * (the trade-off is measured in docs/benchmarks.md, section 4), and the top level alone already misses the 3× target.
 */
export const OUTPUT_BOUND: OutputBound = { levels: 1, budget: 0 };

export const DEFAULT_COMPACT: CompactOptions = { descriptionMax: 160, propertyDescriptionMax: 90, output: OUTPUT_BOUND };

/**
 * Largest listed outputSchema, in JSON characters. Only a pathological schema is larger (the generator's own
 * output budget is 24 kB); it is listed cut to fewer object levels (cutOutputSchema), counted by the token report.
 */
export const OUTPUT_SCHEMA_MAX = 64 * 1024;

const LINK = /\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/g;
const NOISE = [
  /^>\s*\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]/i,
  /^this endpoint supports the following custom media types/i,
  /^OAuth (app tokens|tokens) and personal access tokens \(classic\) need/i,
  /^Fine-grained access tokens/i,
];

/**
 * The first meaningful paragraph of a description, links reduced to their text. A leading sentence that says what the
 * tool does in its title's words (the generator's lead, scripts/catalog/description-lead.ts, or a spec's summary that
 * repeats the title) is kept before it, so a description begins with the action: unless `lead` is false, where the
 * title is shown beside it (search hits).
 */
export function compactDescription(description: string, title: string, max: number, lead = true): string {
  const paragraphs = description
    .split(/\n\s*\n/)
    .map((p) => (p.includes('](') ? p.replace(LINK, '$1') : p).replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  let opening = '';
  if (paragraphs.length > 1 && isLead(paragraphs[0]!, title)) {
    const line = paragraphs.shift()!;
    if (lead) opening = /[.!?]$/.test(line) ? line : `${line}.`;
  }
  const first = paragraphs.find((p) => !NOISE.some((re) => re.test(p))) ?? paragraphs[0] ?? '';
  return clip(opening ? `${opening} ${first}` : first, max);
}

/** The description without its lead sentence (what the title already says), when it has more than that. */
export function withoutLead(description: string, title: string): string {
  const at = description.search(/\n\s*\n/);
  return at > 0 && isLead(description.slice(0, at).trim(), title) ? description.slice(at).trim() : description;
}

/** One sentence that begins with the title's words. */
function isLead(paragraph: string, title: string): boolean {
  const n = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '');
  return n(paragraph).startsWith(n(title)) && !/[.!?]\s/.test(paragraph) && paragraph.length <= title.length + 60;
}

function clip(text: string, max: number): string {
  // Fast path: most property descriptions are short, single-line and link-free.
  if (text.length <= max && !text.includes('[') && !/\s\s|\n|^\s|\s$/.test(text)) return text;
  const t = (text.includes('](') ? text.replace(LINK, '$1') : text).replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max);
  const sentence = cut.search(/[.!?](?=\s)[^.!?]*$/);
  if (sentence >= max * 0.5) return cut.slice(0, sentence + 1);
  const space = cut.lastIndexOf(' ');
  return `${(space >= max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:(-]+$/, '')}…`;
}

const DROP_IN_INPUT = new Set(['examples', 'example', '$comment', 'title', 'deprecated', 'readOnly', 'writeOnly']);

/** inputSchema with shorter property descriptions and no annotation-only keywords. Constraints are kept (they guide the model). */
export function compactInputSchema(schema: JsonSchema, options: CompactOptions): JsonSchema {
  return walkInput(schema, options, true) as JsonSchema;
}

function walkInput(node: unknown, options: CompactOptions, root: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => walkInput(n, options, false));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
    if (DROP_IN_INPUT.has(k) && !root) continue;
    if (k === 'description' && typeof v === 'string') {
      const d = clip(v, options.propertyDescriptionMax);
      if (d) out[k] = d;
    } else if (k === 'properties' || k === '$defs' || k === 'definitions' || k === 'patternProperties') {
      // Keys here are names, not keywords: walk the values only.
      const props: Record<string, unknown> = {};
      for (const [pk, pv] of Object.entries((v ?? {}) as Record<string, unknown>)) props[pk] = walkInput(pv, options, false);
      out[k] = props;
    } else if (k === 'enum' || k === 'const' || k === 'default' || k === 'required') out[k] = v;
    else out[k] = walkInput(v, options, false);
  }
  return out;
}

/**
 * The outputSchema a listing carries: the catalogue's, with descriptions clipped, annotation-only keywords and
 * `additionalProperties: false` dropped below the root (outputs stay open), and deep objects within the output bound
 * (`wrapped`: the tool's structuredContent is `{result}`). Over OUTPUT_SCHEMA_MAX, the deepest object levels are cut
 * until it fits.
 */
export function listedOutputSchema(schema: JsonSchema, options: CompactOptions, wrapped: boolean): JsonSchema {
  const out = boundOutputSchema(clippedOutputSchema(schema, options), wrapped, options.output);
  if (outputSchemaFits(out)) return out;
  for (let d = OUTPUT_CUT_FROM; d >= 1; d--) {
    const cut = cutOutputSchema(out, d);
    if (outputSchemaFits(cut)) return cut;
  }
  return cutOutputSchema(out, 0);
}

/** The whole outputSchema with descriptions clipped (listedOutputSchema before any size fallback). */
export function clippedOutputSchema(schema: JsonSchema, options: CompactOptions): JsonSchema {
  const out = walkInput(schema, options, true) as JsonSchema;
  dropClosed(out);
  return out;
}

/** Whether a listed outputSchema is within OUTPUT_SCHEMA_MAX (JSON characters). */
export function outputSchemaFits(schema: JsonSchema): boolean {
  return JSON.stringify(schema).length <= OUTPUT_SCHEMA_MAX;
}

/** The generator's output nesting depth (docs/generator.md): the first cut that can make a difference. */
const OUTPUT_CUT_FROM = 6;

function dropClosed(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(dropClosed);
  if (!node || typeof node !== 'object') return;
  const n = node as Record<string, unknown>;
  if (n.additionalProperties === false) delete n.additionalProperties;
  for (const [k, v] of Object.entries(n)) {
    if (k === 'properties' || k === '$defs' || k === 'definitions') Object.values((v ?? {}) as object).forEach(dropClosed);
    else if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'required') dropClosed(v);
  }
}

/**
 * outputSchema reduced to `depth` object levels of property names: the size fallback of listings and describe_tool.
 * Only loosening steps: descriptions, formats, patterns, enums, bounds and `required` lists below the cut are
 * dropped; deeper objects keep only their type.
 */
export function cutOutputSchema(schema: JsonSchema, depth: number): JsonSchema {
  const out = walkOutput(schema, depth) as JsonSchema;
  out.type = 'object';
  return out;
}

const KEEP_OUT = new Set(['type', 'properties', 'items', 'required', 'anyOf', 'oneOf', 'allOf', 'additionalProperties', 'nullable', 'enum', 'const', 'description']);

function walkOutput(node: unknown, depth: number): unknown {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return node;
  const src = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const isObject = src.properties !== undefined || src.type === 'object' || (Array.isArray(src.type) && src.type.includes('object'));
  if (isObject && depth <= 0) {
    if (src.type !== undefined) out.type = src.type;
    return out;
  }
  for (const [k, v] of Object.entries(src)) {
    if (!KEEP_OUT.has(k)) continue;
    if (k === 'properties') {
      const props: Record<string, unknown> = {};
      for (const [pk, pv] of Object.entries((v ?? {}) as Record<string, unknown>)) props[pk] = walkOutput(pv, depth - 1);
      out[k] = props;
    } else if (k === 'items') out[k] = walkOutput(v, depth);
    else if (k === 'anyOf' || k === 'oneOf' || k === 'allOf') {
      // Composition below the cut would need every branch kept exact; an empty schema is the safe loosening.
      if (depth <= 1) return src.type !== undefined ? { type: src.type } : {};
      out[k] = (v as unknown[]).map((b) => walkOutput(b, depth));
    } else if (k === 'additionalProperties') {
      // Open schemas only: a closed object would reject extra live fields.
      if (v !== false) out[k] = typeof v === 'object' ? walkOutput(v, depth - 1) : v;
    } else out[k] = v;
  }
  return out;
}

/**
 * The annotations a listing carries: readOnlyHint and destructiveHint always, whatever the MCP defaults (hosts read
 * an omitted hint differently, and directory reviews want both stated); idempotentHint where it means something (a
 * write); openWorldHint; and the title.
 */
export function wireAnnotations(a: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean }): Record<string, unknown> {
  if (a.readOnlyHint) return { title: a.title, readOnlyHint: true, destructiveHint: false, openWorldHint: a.openWorldHint };
  return { title: a.title, readOnlyHint: false, destructiveHint: a.destructiveHint, idempotentHint: a.idempotentHint, openWorldHint: a.openWorldHint };
}
