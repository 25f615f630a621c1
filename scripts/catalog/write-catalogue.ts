// Catalogue format 2 (src/catalogue/file-format.ts) from the generator's in-memory catalogue: the index, the table of
// shared subtrees, one record per tool and, for catalogues too large for one Worker module, shard files.
// Deterministic: tools in name order, keys sorted, table entries numbered by first use.
import { annotationsFrom, FILE_WIDTH, FLAG, FLAG_DIGITS, FORMAT, INDEX_LINES, MAX_FILES, OFFSET_WIDTH, type Header, type IndexLine } from '../../src/catalogue/file-format.ts';
import type { Catalogue, CatalogueTool } from '../../src/catalogue/types.ts';
import { buildSearchIndex, type Lexicon } from '../../src/discovery/search-index.ts';
import { sha256Hex } from '../../src/lib/bytes.ts';
import { ascii, internRecords, type InternedLines } from './intern.ts';
import { sortKeys } from './sort-keys.ts';

/** Subtrees shorter than this (JSON characters) stay inline: a reference costs about 10. Measured in docs/catalogue-format.md. */
export const MIN_SHARED_CHARS = 64;
/**
 * Above this many bytes the records move into shard files (static assets): a Text module of up to ~24 MB still
 * uploads within the 3 MiB compressed limit (the text compresses about 10:1) and parses its index in milliseconds.
 */
export const SHARD_ABOVE_BYTES = 24_000_000;

export interface WriteOptions {
  minSharedChars?: number;
  /** Shard when the single text would exceed this many bytes (tests and the CI smoke test lower it). */
  shardAboveBytes?: number;
  /** English for the search index's query vocabulary (WordNet in the generator); absent, the index has none. */
  lexicon?: Lexicon;
}

export interface CatalogueFiles {
  /** catalog.txt: header, index, the table (or its shared part) and, unless sharded, every record. */
  text: string;
  /** Shard file name -> content; empty when the catalogue fits in one text. */
  shards: Map<string, string>;
  hash: string;
  stats: {
    /** All files together. */
    bytes: number;
    indexBytes: number;
    /** The search index line, and how long building it took. */
    search: { bytes: number; ms: number };
    tableEntries: number;
    largestRecord: { tool: string; bytes: number };
  };
}

/** The index's own fields of a tool; everything else goes into its record, whatever the field. */
const INDEX_FIELDS = new Set(['name', 'title', 'aliases', 'toolsets']);

export async function writeCatalogue(cat: Catalogue, options: WriteOptions = {}): Promise<CatalogueFiles> {
  const tools = [...cat.tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const setNames = Object.keys(cat.toolsets).sort();
  const setIndex = new Map(setNames.map((s, i) => [s, i]));
  const lines = internRecords(
    tools.map((t) => ({ name: t.name, record: recordOf(t) })),
    options.minSharedChars ?? MIN_SHARED_CHARS,
  );

  const index: Record<IndexLine, unknown> = {
    toolsets: sortKeys(Object.fromEntries(setNames.map((s) => [s, cat.toolsets[s]]))),
    names: tools.map((t) => t.name),
    aliases: tools.flatMap((t, i) => (t.aliases ?? []).map((a) => [a, i])),
    titles: tools.map((t) => t.title),
    flags: tools.map((t) => FLAG_DIGITS[flagsOf(t)]).join(''),
    sets: tools.map((t) =>
      t.toolsets.map((s) => {
        const n = setIndex.get(s);
        if (n === undefined) throw new Error(`catalogue: tool ${t.name} is in toolset "${s}", which the catalogue does not declare`);
        return n;
      }),
    ),
    offsets: '',
    files: '',
    search: null,
  };
  const searchStart = performance.now();
  index.search = buildSearchIndex(tools, cat.toolsets, options.lexicon);
  const searchMs = performance.now() - searchStart;
  const render = (placed: Layout) => {
    index.offsets = placed.offsets;
    index.files = placed.texts.length > 1 ? placed.files : '';
    return INDEX_LINES.map((k) => ascii(JSON.stringify(index[k])));
  };
  let placed = layout(lines, [lines.table.map(() => 0), lines.records.map(() => 0)], 1);
  let indexLines = render(placed);
  const singleBytes = placed.sizes[0]! + indexLines.reduce((n, l) => n + l.length + 1, 0);
  const plan = singleBytes > (options.shardAboveBytes ?? SHARD_ABOVE_BYTES) ? shardPlan(tools, lines) : undefined;
  if (plan) {
    placed = layout(lines, plan.fileOf, plan.names.length + 1);
    indexLines = render(placed);
  }

  const body = `${indexLines.join('\n')}\n${placed.texts[0]}`;
  const shards = new Map<string, string>();
  plan?.names.forEach((name, i) => shards.set(name, placed.texts[i + 1]!));
  const fields: Omit<Header, 'hash'> = {
    format: FORMAT,
    count: tools.length,
    ...(cat.defaultToolsets ? { defaultToolsets: cat.defaultToolsets } : {}),
    defaultUpstream: cat.defaultUpstream,
    index: indexLines.map((l) => l.length),
    ...(cat.results ? { results: sortKeys(cat.results) as Header['results'] } : {}),
    ...(cat.security ? { security: sortKeys(cat.security) as Header['security'] } : {}),
    ...(plan ? { shards: plan.names } : {}),
    source: sortKeys(cat.source) as Header['source'],
    table: lines.table.length,
  };
  // Web Crypto (one digest of the header's other fields and everything after it), so the writer also runs in workerd
  // for the tests; a change to any field, result rules and spec digest included, changes the hash.
  const hash = (await sha256Hex(JSON.stringify(fields) + '\n' + body + [...shards.values()].join(''))).slice(0, 32);
  // `format` stays the first key (PREFIX).
  const header: Header = { ...fields, hash };
  const text = `${ascii(JSON.stringify(header))}\n${body}`;
  let largest = { tool: '', bytes: 0 };
  lines.records.forEach((r, i) => {
    if (r.length > largest.bytes) largest = { tool: tools[i]!.name, bytes: r.length };
  });
  return {
    text,
    shards,
    hash,
    stats: {
      bytes: text.length + [...shards.values()].reduce((n, s) => n + s.length, 0),
      indexBytes: text.length - placed.texts[0]!.length,
      search: { bytes: indexLines[INDEX_LINES.indexOf('search')]!.length, ms: Math.round(searchMs) },
      tableEntries: lines.table.length,
      largestRecord: largest,
    },
  };
}

/** The tool minus its index fields; annotations only when the title and flags cannot rebuild them. */
function recordOf(tool: CatalogueTool): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(tool)) if (!INDEX_FIELDS.has(k)) record[k] = v;
  if (JSON.stringify(sortKeys(tool.annotations)) === JSON.stringify(annotationsFrom(tool.title, flagsOf(tool)))) delete record.annotations;
  return record;
}

function flagsOf(tool: CatalogueTool): number {
  const a = tool.annotations;
  return (
    (a?.readOnlyHint === true ? FLAG.readOnly : 0) |
    (a?.destructiveHint === true ? FLAG.destructive : 0) |
    (a?.idempotentHint === true ? FLAG.idempotent : 0) |
    (a?.openWorldHint === true ? FLAG.openWorld : 0) |
    (tool.outputSchema ? FLAG.outputSchema : 0)
  );
}

interface Layout {
  /** File 0 is catalog.txt's part after the index; files 1.. are the shards. */
  texts: string[];
  sizes: number[];
  offsets: string;
  files: string;
}

/** Places table entries, then records, each into its file, and writes their offsets within that file. */
function layout(lines: InternedLines, [tableFiles, recordFiles]: number[][], fileCount: number): Layout {
  const parts: string[][] = Array.from({ length: fileCount }, () => []);
  const sizes = new Array<number>(fileCount).fill(0);
  let offsets = '';
  let files = '';
  const place = (line: string, file: number) => {
    offsets += sizes[file]!.toString(16).padStart(OFFSET_WIDTH, '0');
    files += file.toString(36).padStart(FILE_WIDTH, '0');
    parts[file]!.push(line);
    sizes[file]! += line.length + 1;
  };
  lines.table.forEach((l, i) => place(l, tableFiles![i]!));
  lines.records.forEach((l, i) => place(l, recordFiles![i]!));
  if (sizes.some((s) => s >= 16 ** OFFSET_WIDTH)) throw new Error('catalogue: a catalogue file would exceed 4 GiB');
  return { texts: parts.map((p) => (p.length ? `${p.join('\n')}\n` : '')), sizes, offsets, files };
}

interface ShardPlan {
  names: string[];
  /** File of each table entry and each record (0 = catalog.txt). */
  fileOf: [number[], number[]];
}

/**
 * One shard per toolset (a tool goes with its first toolset), so a toolset's listing reads one file. Table entries
 * used by a single shard live in it; entries shared by several shards stay in catalog.txt.
 */
function shardPlan(tools: CatalogueTool[], lines: InternedLines): ShardPlan {
  const home = tools.map((t) => [...t.toolsets].sort()[0] ?? '');
  const used = [...new Set(home)].sort();
  // More toolsets than file numbers: neighbouring toolsets share a shard.
  const perFile = Math.ceil(used.length / (MAX_FILES - 1));
  const fileOfSet = new Map(used.map((s, i) => [s, Math.floor(i / perFile) + 1]));
  const names = Array.from({ length: Math.ceil(used.length / perFile) }, (_, f) => `${used[f * perFile] || 'none'}.txt`);
  const recordFiles = home.map((s) => fileOfSet.get(s)!);
  // Every shard that reaches each table entry, through records and through other entries.
  const users: Array<Set<number>> = lines.table.map(() => new Set());
  const visit = (entry: number, file: number): void => {
    if (users[entry]!.has(file)) return;
    users[entry]!.add(file);
    for (const e of lines.tableRefs[entry]!) visit(e, file);
  };
  lines.recordRefs.forEach((refs, i) => refs.forEach((e) => visit(e, recordFiles[i]!)));
  const tableFiles = users.map((u) => (u.size === 1 ? [...u][0]! : 0));
  return { names, fileOf: [tableFiles, recordFiles] };
}
