// Build-time result shaping (docs/results.md): the catalogue's compaction rules (the spec's server origins and the
// fields it declares as URIs, plus the overrides' keep/drop patterns) and, per tool with a JSON result, the
// projection argument, where a list keeps its items, the operation's paging arguments and a typical item size.
import type { CatalogueTool, JsonSchema, PagingArgs, ResultRules, ResultShape } from '../../src/catalogue/types.ts';
import { estimateTokens } from '../../src/lib/tokens.ts';
import { compactJson, type CompactRules } from '../../src/results/result-compaction.ts';
import { embeddedTree, shortenedNothing, summariseEmbedded } from '../../src/results/embedded-resources.ts';
import { isLinkField, originOf } from '../../src/results/links.ts';
import { isObj } from '../lib/is-object.ts';
import { embeddedPaths } from './embedded-resources.ts';
import { deeperOutputSchemas } from './schema-budget.ts';
import { isJsonOrJsonWildcard } from './json-media-type.ts';

/** The projection argument's description: one short line, since every tool with a JSON result carries it. */
export const FIELDS_DESCRIPTION = 'Only fields a,b.c; * = all';

const URI_FORMATS = new Set(['uri', 'url', 'uri-reference', 'iri', 'iri-reference', 'uri-template']);

/** Every server URL the spec names (root, path and operation level), variables filled with their defaults. */
function serverUrls(doc: any): string[] {
  const lists: unknown[] = [doc.servers];
  for (const item of Object.values(isObj(doc.paths) ? doc.paths : {})) {
    if (!isObj(item)) continue;
    lists.push(item.servers);
    for (const op of Object.values(item)) if (isObj(op)) lists.push(op.servers);
  }
  const urls: string[] = [];
  for (const list of lists) {
    if (!Array.isArray(list)) continue;
    for (const s of list) {
      if (!isObj(s) || typeof s.url !== 'string') continue;
      urls.push(s.url.replace(/\{([^}]+)\}/g, (_m: string, v: string) => String((s.variables as any)?.[v]?.default ?? '')));
    }
  }
  return urls;
}

/** Property names the spec declares with a URI format that the built-in link names do not already cover. */
function declaredLinkFields(doc: unknown): string[] {
  const names = new Set<string>();
  const none = { origins: new Set<string>(), linkFields: new Set<string>() };
  const walk = (node: unknown, depth: number) => {
    if (depth > 200 || !node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const x of node) walk(x, depth + 1);
      return;
    }
    const o = node as Record<string, unknown>;
    if (isObj(o.properties)) {
      for (const [name, p] of Object.entries(o.properties)) if (isObj(p) && typeof p.format === 'string' && URI_FORMATS.has(p.format) && !isLinkField(name, undefined, none)) names.add(name);
    }
    for (const v of Object.values(o)) walk(v, depth + 1);
  };
  walk(doc, 0);
  return [...names].sort();
}

export function resultRules(doc: unknown, specBaseUrl: string | undefined, overrides: { keep?: string[]; drop?: string[] } | undefined): ResultRules {
  const origins = new Set<string>();
  for (const u of serverUrls(doc)) {
    let abs = u;
    try {
      if (specBaseUrl && !/^[a-z][a-z0-9+.-]*:\/\//i.test(u)) abs = new URL(u, specBaseUrl).toString();
    } catch {
      continue;
    }
    const o = originOf(abs);
    if (o) origins.add(o);
  }
  const linkFields = declaredLinkFields(doc);
  return {
    origins: [...origins].sort(),
    ...(linkFields.length ? { linkFields } : {}),
    ...(overrides?.keep?.length ? { keep: [...new Set(overrides.keep)].sort() } : {}),
    ...(overrides?.drop?.length ? { drop: [...new Set(overrides.drop)].sort() } : {}),
  };
}

/** `_fields`, unless the operation has an argument of that name: then `_mcp_fields`, `_mcp_fields_2`, … */
export function projectionArgName(inputSchema: JsonSchema): string {
  const taken = new Set(Object.keys((inputSchema.properties ?? {}) as object));
  if (!taken.has('_fields')) return '_fields';
  for (let i = 1; ; i++) {
    const name = i === 1 ? '_mcp_fields' : `_mcp_fields_${i}`;
    if (!taken.has(name)) return name;
  }
}

const typesOf = (s: unknown): string[] => (isObj(s) ? (Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : []) : []);
const isArraySchema = (s: unknown) => isObj(s) && (typesOf(s).includes('array') || (s.items !== undefined && !typesOf(s).length));

function isObjectish(s: unknown): boolean {
  if (!isObj(s)) return false;
  if (typesOf(s).includes('object') || isObj(s.properties)) return true;
  const branches = [s.anyOf, s.oneOf, s.allOf].find(Array.isArray) as unknown[] | undefined;
  return Boolean(branches?.some(isObjectish));
}

/** Array names that mark an envelope as a list even when the operation has no paging arguments. */
const LIST_NAMES = new Set(['data', 'items', 'results', 'records', 'entries', 'values', 'list', 'elements', 'objects', 'nodes', 'edges', 'hits', 'rows']);

/**
 * Where a list result keeps its items: the wrapped root array, or the one array of a small envelope object. A
 * resource that merely has one array ({id, name, tags: [...]}) is not an envelope: that takes paging arguments or
 * a list name (data, items, results …).
 */
export function listItems(tool: CatalogueTool, paged: boolean): string | undefined {
  const s = tool.outputSchema;
  if (!s) return undefined;
  const props = (isObj(s.properties) ? s.properties : {}) as Record<string, JsonSchema>;
  if (tool.outputWrapped) return isArraySchema(props.result) ? 'result' : undefined;
  // An envelope ({total_count, items}, {object, data, has_more, url}) has a few fields beside its one list: the one
  // array of objects, or the one array when none holds objects ({names: [...]}).
  if (Object.keys(props).length > 7) return undefined;
  const arrays = Object.keys(props).filter((k) => isArraySchema(props[k]));
  const ofObjects = arrays.filter((k) => isObjectish((props[k] as JsonSchema).items));
  const key = ofObjects.length ? (ofObjects.length === 1 ? ofObjects[0] : undefined) : arrays.length === 1 ? arrays[0] : undefined;
  return key && (paged || LIST_NAMES.has(key.toLowerCase())) ? key : undefined;
}

const PAGE = /^(page|page_?num(ber)?)$/i;
const SIZE = /^(per_?page|page_?size|limit|max_?results|max_?items|page_?limit|top|first)$/i;
const SIZE_WEAK = /^(count|size)$/i;
const OFFSET = /^(offset|skip|start|start_?index)$/i;
const AFTER_ID = /^(starting_after|start_after|after_id|since_id)$/i;
const CURSOR = /^(cursor|page_?token|next_?token|continuation(_?token)?|after|marker|next_?cursor|page_?cursor|starting_?token)$/i;

/** The operation's own paging arguments: query parameters by name and type. */
export function detectPaging(tool: CatalogueTool): PagingArgs | undefined {
  const props = (tool.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const paging: PagingArgs = {};
  let weakSize: string | undefined;
  for (const p of tool.http.params) {
    if (p.in !== 'query') continue;
    const t = typesOf(props[p.arg]);
    const int = t.includes('integer') || t.includes('number');
    const str = t.includes('string');
    const n = p.arg;
    if (int && PAGE.test(n)) paging.page ??= n;
    else if (int && SIZE.test(n)) paging.size ??= n;
    else if (int && SIZE_WEAK.test(n)) weakSize ??= n;
    else if (int && OFFSET.test(n)) paging.offset ??= n;
    else if (AFTER_ID.test(n) || (int && /^since$/i.test(n))) paging.after ??= n;
    else if (str && CURSOR.test(n)) paging.cursor ??= n;
  }
  if (!paging.size && weakSize && (paging.page || paging.offset || paging.cursor || paging.after)) paging.size = weakSize;
  return Object.keys(paging).length ? paging : undefined;
}

/** Mean estimated tokens of one compacted item of the example (embedded resources shortened), when it is a list with items. */
export function exampleItemTokens(tool: CatalogueTool, example: unknown, rules: CompactRules, items: string): number | undefined {
  const list = tool.outputWrapped ? example : isObj(example) ? example[items] : undefined;
  if (!Array.isArray(list) || !list.length) return undefined;
  const tree = tool.result?.embedded ? embeddedTree(tool.result.embedded) : undefined;
  const shorten = (x: unknown) => (tree ? summariseEmbedded(x, tree, rules, shortenedNothing()) : x);
  const total = list.reduce<number>((n, x) => n + estimateTokens(JSON.stringify(compactJson(shorten(x), rules)) ?? 'null'), 0);
  return Math.ceil(total / list.length);
}

/** Adds the projection argument to a tool with a JSON result and records its result shape. */
export function addResultShape(tool: CatalogueTool, example: { value: unknown } | undefined, rules: CompactRules): void {
  if (!tool.outputSchema && !tool.http.accept.some(isJsonOrJsonWildcard)) return;
  const fields = projectionArgName(tool.inputSchema);
  tool.inputSchema.properties = { ...((tool.inputSchema.properties ?? {}) as object), [fields]: { type: 'string', description: FIELDS_DESCRIPTION } };
  const shape: ResultShape = { fields };
  tool.result = shape;
  const paging = detectPaging(tool);
  const items = listItems(tool, Boolean(paging));
  if (items) shape.items = items;
  // A schema cut to fit its budget still has its full depth here: the result holds what the API sends.
  const deeper = tool.outputSchema && deeperOutputSchemas.get(tool.outputSchema);
  const embedded = embeddedPaths(deeper ? { ...tool, outputSchema: deeper } : tool);
  if (embedded.length) shape.embedded = embedded;
  if (items) {
    if (paging) {
      const tokens = paging.size && example ? exampleItemTokens(tool, example.value, rules, items) : undefined;
      shape.paging = tokens ? { ...paging, itemTokens: tokens } : paging;
    }
  }
}
