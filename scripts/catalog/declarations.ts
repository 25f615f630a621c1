// Code mode's TypeScript declarations, generated from the catalogue (deterministic). `npm run catalog` writes them
// beside catalog.txt (and --check compares them); alone, for a catalogue built elsewhere:
//   node scripts/catalog/declarations.ts [--catalog catalog/catalog.txt] [--out catalog/declarations.txt] [--check]
// Each tool gets `type <Name>Args`, `type <Name>Result` and a one-line-JSDoc function; object shapes that occur
// more than once anywhere in the catalogue become shared interfaces, declared once per search answer
// (src/codemode/declarations.ts assembles answers). Written one entry per line so diffs stay readable.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Catalogue, CatalogueTool, JsonSchema } from '../../src/catalogue/types.ts';
import type { DeclarationsDoc, ToolDeclaration } from '../../src/codemode/declarations.ts';
import { readCatalogue, SHARD_DIR } from './catalogue-files.ts';
import { ascii } from './intern.ts';
import { sortKeys } from './sort-keys.ts';
import { forEachObject, renderObjectBody, renderType, ShapeIds, singular, type RenderOptions } from './ts-type.ts';

/** Inline object levels per declaration; deeper unshared objects become `object`. */
export const DEPTH = 3;
/** Object shapes with fewer properties are always written inline. */
export const MIN_SHARED_PROPERTIES = 3;
/** A name from an operation's title counts as this many occurrences of a property key. */
const ROOT_HINT_WEIGHT = 3;
/** Titles starting with these name what the operation returns ("Request reviewers for a pull request" does not). */
const NAMING_VERBS = new Set(['list', 'get', 'create', 'update', 'retrieve', 'fetch']);
/** Names a shared type must not take: the global types of TypeScript's ES2023 library. */
const GLOBAL_TYPES = new Set(
  [
    'AggregateError Array ArrayBuffer ArrayBufferLike ArrayBufferView ArrayLike AsyncGenerator AsyncIterable AsyncIterator Atomics Awaited',
    'BigInt BigInt64Array BigUint64Array Boolean Capitalize ConstructorParameters DataView Date Error EvalError Exclude Extract',
    'Float32Array Float64Array Function Generator Int16Array Int32Array Int8Array InstanceType Intl Iterable IterableIterator Iterator JSON',
    'Lowercase Map Math NoInfer NonNullable Number Object Omit OmitThisParameter Parameters Partial Pick Promise PromiseLike PropertyKey',
    'Proxy RangeError Readonly ReadonlyArray ReadonlyMap ReadonlySet Record ReferenceError Reflect RegExp Required ReturnType Set',
    'SharedArrayBuffer String Symbol SyntaxError TemplateStringsArray ThisParameterType ThisType TypeError URIError Uint16Array Uint32Array',
    'Uint8Array Uint8ClampedArray Uncapitalize Uppercase WeakMap WeakRef WeakSet',
  ].flatMap((line) => line.split(' ')),
);

interface Shape {
  id: string;
  schema: JsonSchema;
  count: number;
  hints: Map<string, Hint>;
}

interface Hint {
  words: string[];
  count: number;
  /** Seen as what an operation returns (its title named it). */
  root: boolean;
}

export function buildDeclarations(cat: Catalogue): DeclarationsDoc {
  const ids = new ShapeIds();
  const shapes = new Map<string, Shape>();
  // Names come from the keys that hold a shape, or from the titles of operations returning it (those say more).
  const note = (schema: JsonSchema, hint: string, weight = 1) => {
    const id = ids.objectId(schema) as string;
    let shape = shapes.get(id);
    if (!shape) shapes.set(id, (shape = { id, schema, count: 0, hints: new Map() }));
    shape.count++;
    const words = hint.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
    if (!words.length) return;
    const key = words.join(' ');
    const seen = shape.hints.get(key) ?? { words, count: 0, root: false };
    seen.count += weight;
    seen.root ||= weight === ROOT_HINT_WEIGHT;
    shape.hints.set(key, seen);
  };
  const tools = [...cat.tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const tool of tools) {
    // The arguments' root is the tool's own; objects inside it may be shared.
    for (const [k, v] of Object.entries((tool.inputSchema.properties ?? {}) as Record<string, unknown>)) forEachObject(v, k, note);
    const returned = resultSchema(tool);
    const hint = resultHint(tool.title);
    const named = NAMING_VERBS.has(tool.title.trim().split(/\s+/)[0]!.toLowerCase());
    forEachObject(returned, hint, (schema, h) => note(schema, h, named && isRoot(returned, schema) ? ROOT_HINT_WEIGHT : 1));
  }

  const taken = new Set(GLOBAL_TYPES);
  for (const tool of tools) for (const suffix of ['Args', 'Result']) taken.add(`${pascal(tool.name)}${suffix}`);
  const names = new Map<string, string>();
  // Shapes named by an operation title claim their name first, then the most used ones.
  const shared = [...shapes.values()]
    .filter((s) => s.count >= 2 && Object.keys(s.schema.properties as object).length >= MIN_SHARED_PROPERTIES)
    .map((shape) => ({ shape, best: bestHint(shape.hints) }))
    .sort((a, b) => Number(b.best.root) - Number(a.best.root) || b.shape.count - a.shape.count || Number(a.shape.id.slice(1)) - Number(b.shape.id.slice(1)));
  for (const { shape, best } of shared) {
    const base = pascal(best.hint) || 'Shape';
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
    taken.add(name);
    names.set(shape.id, name);
  }

  const sharedName = (id: string) => names.get(id);
  const types: DeclarationsDoc['types'] = {};
  for (const { shape } of shared) {
    const uses = new Set<string>();
    const name = names.get(shape.id) as string;
    types[name] = { decl: `interface ${name} ${renderObjectBody(shape.schema, DEPTH, ids, { sharedName, uses })}`, uses: [...uses].sort() };
  }
  const out: Record<string, ToolDeclaration> = {};
  for (const tool of tools) out[tool.name] = toolDeclaration(tool, ids, sharedName, types);
  return { format: 1, catalogueHash: cat.hash ?? '', types: sortedRecord(types), tools: out };
}

function toolDeclaration(tool: CatalogueTool, ids: ShapeIds, sharedName: RenderOptions['sharedName'], types: DeclarationsDoc['types']): ToolDeclaration {
  const uses = new Set<string>();
  const options = { sharedName, uses };
  const name = pascal(tool.name);
  const args = renderObjectBody(tool.inputSchema, DEPTH, ids, options);
  const result = tool.outputSchema ? renderType(resultSchema(tool), DEPTH, ids, options) : 'unknown';
  const optional = Array.isArray(tool.inputSchema.required) && tool.inputSchema.required.length ? '' : '?';
  const title = tool.title.replace(/\s+/g, ' ').replace(/\*\//g, '* /').trim();
  return {
    types: `type ${name}Args = ${args};\ntype ${name}Result = ${result};`,
    fn: `/** ${title} */\nfunction ${tool.name}(args${optional}: ${name}Args): Promise<${name}Result>;`,
    uses: closure(uses, types),
  };
}

/**
 * What api.<tool>() resolves to: the structured result, unwrapped when the catalogue wrapped it, with the
 * outputSchema's own types (null only where the spec allows it). The `{result}` wrapper's null (the worker's empty
 * result) is not part of the declared type. One copy per tool, so shapes keep their identity between collecting
 * shared types and rendering.
 */
const results = new WeakMap<CatalogueTool, unknown>();
function resultSchema(tool: CatalogueTool): unknown {
  if (!tool.outputSchema) return undefined;
  if (!results.has(tool)) results.set(tool, tool.outputWrapped ? withoutWrapperNull((tool.outputSchema.properties as Record<string, unknown> | undefined)?.result) : tool.outputSchema);
  return results.get(tool);
}

/** The wrapped value without the null the `{result}` wrapper accepts (output-drift.ts `acceptNull`). */
export function withoutWrapperNull(schema: unknown): unknown {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const s = schema as JsonSchema;
  if (Array.isArray(s.type) && s.type.includes('null')) {
    const types = (s.type as string[]).filter((t) => t !== 'null');
    return { ...s, type: types.length === 1 ? types[0] : types };
  }
  if (Array.isArray(s.anyOf)) {
    const branches = (s.anyOf as JsonSchema[]).filter((b) => !(b && b.type === 'null' && Object.keys(b).length === 1));
    if (branches.length === s.anyOf.length) return s;
    const { anyOf: _a, ...rest } = s;
    if (branches.length === 1 && Object.keys(rest).every((k) => k === 'description')) return branches[0];
    return { ...rest, anyOf: branches };
  }
  return s;
}

/** The returned schema itself, or its array items (list operations). */
function isRoot(returned: unknown, schema: JsonSchema): boolean {
  return schema === returned || schema === (returned as JsonSchema | undefined)?.items;
}

function closure(direct: Set<string>, types: DeclarationsDoc['types']): string[] {
  const all = new Set<string>();
  const stack = [...direct];
  while (stack.length) {
    const name = stack.pop() as string;
    if (all.has(name)) continue;
    all.add(name);
    stack.push(...(types[name]?.uses ?? []));
  }
  return [...all].sort();
}

const DETERMINERS = new Set(['a', 'an', 'the', 'all', 'any', 'each', 'every', 'my', 'your', 'some', 'multiple']);
const PREPOSITIONS = new Set(['for', 'in', 'on', 'of', 'to', 'from', 'by', 'with', 'at', 'as', 'into', 'via']);

/** The thing an operation returns, from its title: "List issue comments" -> "issue comment", "List issues assigned to …" -> "issue". */
export function resultHint(title: string): string {
  const words: string[] = [];
  for (const w of title.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean).slice(1)) {
    // "issues assigned to", "pull requests associated with": a participle after the noun ends it too.
    if (PREPOSITIONS.has(w) || (words.length && /(ed|ing)$/.test(w))) break;
    if (!DETERMINERS.has(w) && !/ly$/.test(w)) words.push(w);
  }
  const noun = words.slice(-2);
  if (noun.length) noun[noun.length - 1] = singular(noun[noun.length - 1]!);
  return noun.join(' ');
}

/**
 * A shape's name: from the titles of the operations that return it when there are any ("List issue comments" ->
 * IssueComment), else from the keys that hold it. Among those, the head noun (last word) most of them agree on,
 * then the shortest and most frequent hint with that head ("Get an issue" and "List sub-issues" -> Issue).
 */
function bestHint(hints: Map<string, Hint>): { hint: string; root: boolean } {
  const all = [...hints.entries()];
  const root = all.some(([, h]) => h.root);
  const pool = root ? all.filter(([, h]) => h.root) : all;
  const heads = new Map<string, number>();
  for (const [, h] of pool) heads.set(h.words.at(-1)!, (heads.get(h.words.at(-1)!) ?? 0) + h.count);
  const head = [...heads].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
  const candidates = pool.filter(([, h]) => h.words.at(-1) === head);
  candidates.sort(([ka, a], [kb, b]) => a.words.length - b.words.length || b.count - a.count || (ka < kb ? -1 : 1));
  return { hint: candidates[0]?.[0] ?? '', root };
}

export function pascal(text: string): string {
  const out = text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
  return /^[0-9]/.test(out) ? `T${out}` : out;
}

function sortedRecord<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Deterministic text: keys sorted, one tool or type per line. */
export function serializeDeclarations(doc: DeclarationsDoc): string {
  const entries = (record: Record<string, unknown>) =>
    Object.keys(record)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${JSON.stringify(sortKeys(record[k]))}`)
      .join(',\n');
  // ASCII only (non-ASCII escaped in the JSON), so V8 holds the Text module as a one-byte string: half the memory.
  return ascii(`{"catalogueHash":${JSON.stringify(doc.catalogueHash)},"format":${doc.format},"tools":{\n${entries(doc.tools)}\n},"types":{\n${entries(doc.types)}\n}}\n`);
}

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { catalog: { type: 'string', default: 'catalog/catalog.txt' }, out: { type: 'string', default: 'catalog/declarations.txt' }, check: { type: 'boolean', default: false } },
  });
  const text = serializeDeclarations(buildDeclarations(await readCatalogue(readFileSync(values.catalog!, 'utf8'), join(dirname(values.catalog!), SHARD_DIR))));
  const previous = existsSync(values.out!) ? readFileSync(values.out!, 'utf8') : null;
  if (values.check) {
    if (previous === text) return 0;
    process.stderr.write(`declarations: ${values.out} is out of date with ${values.catalog}; run npm run catalog\n`);
    return 1;
  }
  const tmp = `${values.out}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, values.out!);
  process.stderr.write(`declarations: wrote ${values.out} (${text.length} bytes)\n`);
  return 0;
}

if (process.argv[1]?.endsWith('scripts/catalog/declarations.ts')) process.exit(await main(process.argv.slice(2)));
