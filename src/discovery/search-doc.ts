// One tool's search document: its terms with field-weighted frequencies (BM25F: each field's words count with the
// field's weight, and one saturation applies to the sum). Built by the generator for the catalogue's search index,
// and at run time for a catalogue written before the index existed.
import type { CatalogueTool, JsonSchema } from '../catalogue/types.ts';
import { compactDescription, withoutLead } from '../profiles/listing-compaction.ts';
import type { Shape } from './search-shape.ts';
import { stem, STOP, terms, words } from './search-text.ts';

/**
 * What each field counts for. The title and the resource the path names say what an operation is; the description
 * and parameters say more, in many more words; response fields only hint (most operations return similar objects).
 */
export const FIELD_WEIGHT: Record<'title' | 'name' | 'resource' | 'path' | 'summary' | 'description' | 'parameter' | 'nested' | 'values' | 'output' | 'toolset' | 'toolsetDescription' | 'method', number> = {
  title: 3,
  name: 1.5,
  resource: 2,
  path: 0.8,
  summary: 0.5,
  description: 0.35,
  parameter: 0.5,
  nested: 0.3,
  values: 0.5,
  output: 0.15,
  toolset: 0.7,
  toolsetDescription: 0.075,
  method: 0.2,
};

/** Words each HTTP method's operations do, so "remove …" meets a DELETE whose title says "Unlink …". */
const METHOD_WORDS: Record<string, { item: string; collection: string }> = {
  GET: { item: 'get show read view fetch', collection: 'list get show find view fetch' },
  POST: { item: 'create add new make send submit start run', collection: 'create add new make open send submit start post publish' },
  PUT: { item: 'set update replace add put', collection: 'set update replace' },
  PATCH: { item: 'update edit change modify set', collection: 'update edit change modify set' },
  DELETE: { item: 'delete remove', collection: 'delete remove clear' },
};

/** Description words beyond the summary that count (long descriptions are mostly caveats and links). */
const DESCRIPTION_WORDS = 80;
/** Query parameters that page or order results say nothing about what an operation does. */
const NOT_FILTERS = new Set(['page', 'per_page', 'sort', 'direction', 'order', 'cursor', 'before', 'after', 'limit', 'offset', 'starting_after', 'ending_before', 'expand']);

export interface SearchDocument {
  /** term -> field-weighted frequency */
  tf: Map<string, number>;
  /** The word of the resource the path names last ("/repos/{owner}/{repo}/stargazers" -> stargazers), unstemmed. */
  resource: string[];
  /** Words of the fields a query word is worth expanding into (title, name, path, toolsets), unstemmed. */
  keyWords: Set<string>;
}

export type DocumentTool = Pick<CatalogueTool, 'name' | 'title' | 'description' | 'toolsets' | 'http'> & { annotations?: CatalogueTool['annotations']; inputSchema?: JsonSchema; outputSchema?: JsonSchema; result?: CatalogueTool['result'] };

/** The search document of a tool; `toolsetDescription` gives a toolset's description (the spec's tag description). */
export function searchDocument(tool: DocumentTool, toolsetDescription: (toolset: string) => string | undefined, memo: Map<string, string[]>, shape: Shape): SearchDocument {
  // Texts repeat across tools (toolset descriptions, shared parameters, result fields): their terms once per build.
  const termsOf = (text: string) => {
    let t = memo.get(text);
    if (!t) memo.set(text, (t = terms(text)));
    return t;
  };
  const tf = new Map<string, number>();
  const keyWords = new Set<string>();
  const addTerms = (list: string[], weight: number) => {
    for (const t of list) tf.set(t, (tf.get(t) ?? 0) + weight);
  };
  // Titles, names and paths count every word; long free text counts each of its terms once, so a description that
  // repeats a word ten times does not outweigh a title that names it.
  const add = (text: string, weight: number, key = false) => {
    if (key) for (const w of words(text)) if (!STOP.has(w)) keyWords.add(w);
    addTerms(termsOf(text), weight);
  };
  const addOnce = (text: string, weight: number) => addTerms([...new Set(termsOf(text))], weight);
  add(tool.title, FIELD_WEIGHT.title, true);
  add(tool.name.replace(/_[0-9a-f]{6}$/, ''), FIELD_WEIGHT.name, true);

  // The path: the nouns it names, the last one (what the operation acts on) again as the resource, and its own action
  // ("merge") as strongly as the resource. Path words are never function words ("/me/player" is the caller's player).
  for (const w of shape.nouns) keyWords.add(w);
  addTerms(shape.nouns.map(stem), FIELD_WEIGHT.path);
  const resource = shape.target;
  addTerms(resource.map(stem), FIELD_WEIGHT.resource);
  if (shape.action) {
    keyWords.add(shape.action);
    addTerms([stem(shape.action)], FIELD_WEIGHT.resource);
  }

  const summary = compactDescription(tool.description, tool.title, 200, false);
  add(summary, FIELD_WEIGHT.summary);
  // The lead sentence only repeats the title, which counts already (and more).
  const rest = plainText(withoutLead(tool.description, tool.title)).split(/\s+/).slice(0, DESCRIPTION_WORDS + 40).join(' ');
  addOnce(rest, FIELD_WEIGHT.description);

  for (const s of tool.toolsets) {
    add(s, FIELD_WEIGHT.toolset, true);
    const d = toolsetDescription(s);
    if (d) addOnce(plainText(d).split(/\s+/).slice(0, 40).join(' '), FIELD_WEIGHT.toolsetDescription);
  }
  const verbs = METHOD_WORDS[tool.http.method];
  if (verbs) add(tool.http.path.endsWith('}') ? verbs.item : verbs.collection, FIELD_WEIGHT.method);

  addOnce(parameterText(tool), FIELD_WEIGHT.parameter);
  addOnce(nestedFieldNames(tool.inputSchema).join(' '), FIELD_WEIGHT.nested);
  if (tool.http.method !== 'GET') addOnce(settableValues(tool.inputSchema).join(' '), FIELD_WEIGHT.values);
  addOnce(outputFieldNames(tool).join(' '), FIELD_WEIGHT.output);
  return { tf, resource, keyWords };
}

/** Markdown to words: links to their text, URLs, code and HTML tags out. */
function plainText(text: string): string {
  return text
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/`[^`]*`/g, ' ');
}

/** The names of the operation's arguments (paging and ordering aside) and the first sentence of each one's description. */
function parameterText(tool: DocumentTool): string {
  const props = (tool.inputSchema?.properties ?? {}) as Record<string, JsonSchema>;
  const out: string[] = [];
  for (const [name, schema] of Object.entries(props)) {
    if (NOT_FILTERS.has(name) || name === tool.result?.fields) continue;
    out.push(name);
    const d = typeof schema?.description === 'string' ? plainText(schema.description).split(/(?<=[.!?])\s/)[0]! : '';
    if (d) out.push(d.split(/\s+/).slice(0, 12).join(' '));
  }
  return out.join(' ');
}

/** How many nested argument names count: enough for an object's fields, not a whole API's schema. */
const NESTED_NAMES = 40;

/**
 * The names of the fields inside the operation's object arguments ("completed" and "due_on" in Asana's `data`, a
 * customer's `phones`), so "mark a task complete" meets the operation that updates tasks. Breadth first, through
 * allOf/anyOf/oneOf and arrays, at most NESTED_NAMES.
 */
function nestedFieldNames(schema: JsonSchema | undefined): string[] {
  const out = new Set<string>();
  const top = new Set(Object.keys((schema?.properties ?? {}) as object));
  let level: unknown[] = Object.values((schema?.properties ?? {}) as object);
  for (let depth = 0; depth < 3 && level.length && out.size < NESTED_NAMES; depth++) {
    const next: unknown[] = [];
    const visit = (node: unknown): void => {
      if (!node || typeof node !== 'object') return;
      const n = node as JsonSchema;
      for (const k of ['allOf', 'anyOf', 'oneOf'] as const) if (Array.isArray(n[k])) for (const c of n[k] as unknown[]) visit(c);
      if (n.items && typeof n.items === 'object') visit(n.items);
      for (const [name, child] of Object.entries((n.properties ?? {}) as Record<string, unknown>)) {
        if (out.size >= NESTED_NAMES) return;
        if (!top.has(name) && !name.startsWith('_')) out.add(name);
        next.push(child);
      }
    };
    for (const node of level) visit(node);
    level = next;
  }
  return [...out];
}

/** How many values of one enum count: a handful of states or actions, not a list of countries or time zones. */
const ENUM_VALUES = 8;

/**
 * The word-like values an operation that changes something can set (string enums and consts of its arguments, nested
 * ones too): the states and actions it performs ("APPROVE" for a review's event, "unsubscribed" for a member's status),
 * so "approve a pull request" meets the operation that takes that value. A read's enums only filter what it lists.
 */
function settableValues(schema: JsonSchema | undefined): string[] {
  const out = new Set<string>();
  const seen = new Set<unknown>();
  const visit = (node: unknown, name: string, depth: number): void => {
    if (!node || typeof node !== 'object' || seen.has(node) || depth > 3 || NOT_FILTERS.has(name)) return;
    seen.add(node);
    const n = node as JsonSchema;
    const values = Array.isArray(n.enum) ? n.enum : n.const !== undefined ? [n.const] : [];
    if (values.length <= ENUM_VALUES) for (const v of values) if (typeof v === 'string' && /^[A-Za-z][A-Za-z _-]{1,30}$/.test(v)) out.add(v.replace(/[_-]/g, ' '));
    for (const k of ['allOf', 'anyOf', 'oneOf'] as const) if (Array.isArray(n[k])) for (const c of n[k] as unknown[]) visit(c, name, depth);
    if (n.items && typeof n.items === 'object') visit(n.items, name, depth + 1);
    for (const [key, child] of Object.entries((n.properties ?? {}) as Record<string, unknown>)) visit(child, key, depth + 1);
  };
  visit(schema, '', 0);
  return [...out];
}

/** Property names of the result (of one item, for a list), links left out: they name other resources. */
function outputFieldNames(tool: DocumentTool): string[] {
  let schema = tool.outputSchema;
  const items = tool.result?.items;
  if (schema && items) {
    const holder = (schema.properties as Record<string, JsonSchema> | undefined)?.[items];
    if (holder && typeof holder.items === 'object') schema = holder.items as JsonSchema;
  }
  const props = schema && typeof schema.properties === 'object' ? Object.keys(schema.properties as object) : [];
  return props.filter((p) => !/(^|_)(url|uri|href|link)s?$/.test(p) && !p.startsWith('_'));
}
