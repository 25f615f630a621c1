// Reads catalogue format 2 (src/catalogue/file-format.ts) lazily: the constructor parses only the header; each index
// line is parsed on first use; a tool is parsed from its record line, its shared subtrees from their table lines,
// when something first asks for it. Shared subtrees are kept for the isolate's lifetime (bounded by the table's size);
// the tools themselves are cached by loaded-catalogue.ts. Tools share their table subtrees (one object per entry), so
// nothing here may change a materialised value.
import { FILE_WIDTH, FORMAT, INDEX_LINES, OFFSET_WIDTH, PREFIX, REF_KEY, REQUIRED_INDEX_LINES, type Header, type IndexLine } from './file-format.ts';
import type { SearchIndexData } from './search-data.ts';

/** Fetches one shard file by name (static assets in the Worker, the file system for stdio). */
export type ShardSource = (file: string) => Promise<string>;

export class CatalogueFormatError extends Error {}

/** What the index lines hold once parsed. */
interface IndexValues {
  toolsets: Record<string, { description: string }>;
  names: string[];
  aliases: Array<[string, number]>;
  titles: string[];
  flags: string;
  sets: number[][];
  offsets: string;
  files: string;
  /** Absent (null) in files written before the search index. */
  search: SearchIndexData | null;
}

export class CatalogueText {
  readonly header: Header;
  private readonly text: string;
  private readonly lineStart: number[] = [];
  /** Where file 0 (the table part of this text) starts. */
  private readonly tableStart: number;
  private readonly parsed: Partial<IndexValues> = {};
  private readonly entries: unknown[];
  private readonly shardTexts: Array<string | undefined>;
  private readonly loading = new Map<number, Promise<void>>();
  private source?: ShardSource;

  constructor(text: string) {
    if (!text.startsWith(PREFIX)) throw new CatalogueFormatError(formatMessage(text));
    const end = text.indexOf('\n');
    this.header = JSON.parse(end < 0 ? text : text.slice(0, end)) as Header;
    if (!Array.isArray(this.header.index) || this.header.index.length < REQUIRED_INDEX_LINES || this.header.index.length > INDEX_LINES.length) throw new CatalogueFormatError('catalogue: the format-2 header has no valid index; regenerate the catalogue with npm run catalog');
    this.text = text;
    let at = end + 1;
    for (const len of this.header.index) {
      this.lineStart.push(at);
      at += len + 1;
    }
    this.tableStart = at;
    this.entries = new Array(this.header.table);
    this.shardTexts = new Array(this.header.shards?.length ?? 0);
  }

  /** One index line, parsed on first use. */
  index<K extends IndexLine>(name: K): IndexValues[K] {
    let v = this.parsed[name];
    if (v === undefined) {
      const k = INDEX_LINES.indexOf(name);
      if (k >= this.header.index.length) return null as IndexValues[K];
      v = this.parsed[name] = JSON.parse(this.text.slice(this.lineStart[k], this.lineStart[k]! + this.header.index[k]!)) as IndexValues[K];
    }
    return v as IndexValues[K];
  }

  /** A tool's record with its table references resolved; a fresh object on every call (its subtrees are shared). */
  record(i: number): Record<string, unknown> {
    return this.resolve(JSON.parse(this.line(this.header.table + i))) as Record<string, unknown>;
  }

  /** The length of a tool's record line: what its own part costs, before its shared subtrees. */
  recordChars(i: number): number {
    return this.line(this.header.table + i).length;
  }

  /** A tool's record without the `drop` fields, which are removed before their subtrees are touched. */
  recordFields(i: number, drop: readonly string[]): Record<string, unknown> {
    const raw = JSON.parse(this.line(this.header.table + i)) as Record<string, unknown>;
    for (const k of drop) delete raw[k];
    return this.resolve(raw) as Record<string, unknown>;
  }

  get sharded(): boolean {
    return this.shardTexts.length > 0;
  }

  /** Where shard files come from; needed before load() in a sharded catalogue. */
  useShards(source: ShardSource): void {
    this.source = source;
  }

  /** Makes the records of these tools readable: fetches the shards that hold them (once each). */
  async load(tools: Iterable<number>): Promise<void> {
    if (!this.sharded) return;
    const files = new Set<number>();
    for (const i of tools) {
      const f = this.fileOf(this.header.table + i);
      if (f > 0 && this.shardTexts[f - 1] === undefined) files.add(f);
    }
    await Promise.all([...files].map((f) => this.fetchShard(f)));
  }

  private fetchShard(f: number): Promise<void> {
    let p = this.loading.get(f);
    if (!p) {
      const name = this.header.shards![f - 1]!;
      if (!this.source) return Promise.reject(new Error(`catalogue: shard ${name} is needed but no shard source is configured (the ASSETS binding)`));
      p = this.source(name).then(
        (text) => {
          this.shardTexts[f - 1] = text;
        },
        (error: unknown) => {
          this.loading.delete(f);
          throw new Error(`catalogue: cannot read shard ${name}: ${(error as Error).message}`);
        },
      );
      this.loading.set(f, p);
    }
    return p;
  }

  private fileOf(entry: number): number {
    if (!this.sharded) return 0;
    return parseInt(this.index('files').substr(entry * FILE_WIDTH, FILE_WIDTH), 36);
  }

  /** The JSON text of table entry `entry` (or record entry table + i). */
  private line(entry: number): string {
    const offset = parseInt(this.index('offsets').substr(entry * OFFSET_WIDTH, OFFSET_WIDTH), 16);
    const f = this.fileOf(entry);
    let text = this.text;
    let start = this.tableStart + offset;
    if (f > 0) {
      const shard = this.shardTexts[f - 1];
      if (shard === undefined) throw new Error(`catalogue: shard ${this.header.shards![f - 1]} is not loaded; await load() for these tools first`);
      text = shard;
      start = offset;
    }
    const end = text.indexOf('\n', start);
    return text.slice(start, end < 0 ? text.length : end);
  }

  private entry(n: number): unknown {
    let v = this.entries[n];
    if (v === undefined) v = this.entries[n] = this.resolve(JSON.parse(this.line(n)));
    return v;
  }

  /** Replaces {"$t": n} with table entry n, in place (the value was just parsed, so nothing else holds it). */
  private resolve(v: unknown): unknown {
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        if (x !== null && typeof x === 'object') v[i] = this.resolve(x);
      }
      return v;
    }
    const o = v as Record<string, unknown>;
    const ref = o[REF_KEY];
    if (typeof ref === 'number') return this.entry(ref);
    for (const k in o) {
      const x = o[k];
      if (x !== null && typeof x === 'object') o[k] = this.resolve(x);
    }
    return o;
  }
}

/** Why a text is not format 2, and what to do about it. */
function formatMessage(text: string): string {
  const head = text.slice(0, 4096);
  const format = /"format":\s*(\d+)/.exec(head)?.[1];
  const spec = /"spec":\s*"((?:[^"\\]|\\.)*)"/.exec(head)?.[1];
  const regenerate = `Regenerate it: npm run catalog -- --spec ${spec ? JSON.parse(`"${spec}"`) : '<your spec>'}`;
  if (format && Number(format) < FORMAT) return `catalogue: catalog.txt is format ${format} (written by an older generator); this Worker reads format ${FORMAT}. ${regenerate}`;
  if (format) return `catalogue: catalog.txt is format ${format}, newer than this Worker reads (format ${FORMAT}); update the Worker or regenerate the catalogue with its generator. ${regenerate}`;
  return `catalogue: catalog.txt is not a generated catalogue (it does not start with ${PREFIX}). ${regenerate}`;
}
