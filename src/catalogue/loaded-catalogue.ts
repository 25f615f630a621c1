// The catalogue as the Worker serves it. Startup parses only the header (src/catalogue/catalogue-text.ts); names,
// titles, toolsets and flags come from index lines parsed on first use; a tool's full definition is materialised
// the first time something needs it and kept in a bounded cache (a client picks which tools get materialised, and
// all of Microsoft Graph's would take ~20 MB). Tools are addressed by their index in name order.
import { Lru } from '../lib/lru.ts';
import { CatalogueText, type ShardSource } from './catalogue-text.ts';
import { annotationsFrom, FLAG, FLAG_DIGITS, type Header } from './file-format.ts';
import type { SearchIndexData } from './search-data.ts';
import type { Catalogue, CatalogueTool, JsonSchema } from './types.ts';

/** A tool's MCP definition as the catalogue states it (before a client profile compacts it for tools/list). */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations: CatalogueTool['annotations'];
}

/** A tool without its schemas: what search and listings read without materialising any schema. */
export type ToolHead = Omit<CatalogueTool, 'inputSchema' | 'outputSchema'>;

/** Everything about the catalogue but its tools. */
export type CatalogueHead = Omit<Catalogue, 'tools' | 'format' | 'hash'> & { hash: string };

export interface LoadedCatalogue {
  catalogue: CatalogueHead;
  /** Number of tools; tools are 0 … count-1 in name order. */
  count: number;
  /** Canonical names in index order. */
  names(): readonly string[];
  name(i: number): string;
  /** The tool a canonical name or an alias denotes. */
  indexOf(name: string): number | undefined;
  title(i: number): string;
  toolsetsOf(i: number): readonly string[];
  readOnly(i: number): boolean;
  destructive(i: number): boolean;
  hasOutputSchema(i: number): boolean;
  /** The whole tool, materialised on first use (in a sharded catalogue, after load()). */
  tool(i: number): CatalogueTool;
  /** The tool without its schemas; cheap for tools not yet materialised (parsed, not cached). */
  peek(i: number): ToolHead;
  /** Tool by name or alias, materialised. */
  byName: { get(name: string): CatalogueTool | undefined; has(name: string): boolean };
  /** Whether records live in shard files that must be loaded before tool() or peek(). */
  sharded: boolean;
  useShards(source: ShardSource): void;
  /** Makes tool() and peek() of these tools synchronous; resolves at once when the catalogue is not sharded. */
  load(tools: Iterable<number>): Promise<void>;
  /** The same catalogue with these tools' outputSchema removed (tool index -> reason). */
  withDrops(drops: ReadonlyMap<number, string>): LoadedCatalogue;
  /** The catalogue's content hash, 32 hex (what /healthz, the page and /admin show). */
  hash: () => Promise<string>;
  /** The generator's search index (src/discovery/search-index.ts); undefined in files written before it. */
  searchData(): SearchIndexData | undefined;
  /** The same object for every drop view of one catalogue text: what per-catalogue caches key on. */
  readonly identity: object;
}

/** Reads catalogue format 2; any other text throws CatalogueFormatError, saying how to regenerate it. */
export function loadCatalogue(text: string): LoadedCatalogue {
  return new Loaded(new Tools(new CatalogueText(text)));
}

export function definitionOf(tool: CatalogueTool): ToolDefinition {
  const entry: ToolDefinition = { name: tool.name, title: tool.title, description: tool.description, inputSchema: tool.inputSchema, annotations: tool.annotations };
  if (tool.outputSchema) entry.outputSchema = tool.outputSchema;
  return entry;
}

/**
 * Materialised tools, by their own record's size: a parsed record takes about 2.5 times its JSON text. GitHub's
 * 1,223 tools take ~3 MB by this count and all stay; Graph's 11,422 would take ~16 MB. Their shared subtrees are
 * parsed once each and kept (catalogue-text.ts): bounded by the catalogue's table, not by this budget.
 */
const TOOL_CACHE_BYTES = 8 * 1024 * 1024;
const PARSED_PER_CHAR = 2.5;

/** Materialised tools of one catalogue text, shared by every drop view of it. */
class Tools {
  readonly head: CatalogueHead;
  private readonly cache: Lru<number, CatalogueTool>;
  private aliasesByTool?: Map<number, string[]>;
  private aliasIndex?: Map<string, number>;
  private setNames?: string[];
  readonly file: CatalogueText;

  constructor(file: CatalogueText) {
    this.file = file;
    const h: Header = file.header;
    const head = { source: h.source, defaultUpstream: h.defaultUpstream, hash: h.hash } as CatalogueHead;
    if (h.defaultToolsets) head.defaultToolsets = h.defaultToolsets;
    if (h.results) head.results = h.results;
    if (h.security) head.security = h.security;
    Object.defineProperty(head, 'toolsets', { enumerable: true, get: () => file.index('toolsets') });
    this.head = head;
    this.cache = new Lru('materialised tools', h.count, TOOL_CACHE_BYTES);
  }

  get count(): number {
    return this.file.header.count;
  }

  flags(i: number): number {
    return FLAG_DIGITS.indexOf(this.file.index('flags')[i]!);
  }

  toolsetsOf(i: number): string[] {
    this.setNames ??= Object.keys(this.file.index('toolsets'));
    const names = this.setNames;
    return this.file.index('sets')[i]!.map((s) => names[s]!);
  }

  aliasesOf(i: number): string[] | undefined {
    if (!this.aliasesByTool) {
      this.aliasesByTool = new Map();
      for (const [alias, t] of this.file.index('aliases')) this.aliasesByTool.set(t, [...(this.aliasesByTool.get(t) ?? []), alias]);
    }
    return this.aliasesByTool.get(i);
  }

  indexOf(name: string): number | undefined {
    const names = this.file.index('names');
    let lo = 0;
    let hi = names.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const n = names[mid]!;
      if (n === name) return mid;
      if (n < name) lo = mid + 1;
      else hi = mid - 1;
    }
    if (!this.aliasIndex) {
      // Canonical names win over aliases (above); among tools claiming one alias, the first in name order.
      this.aliasIndex = new Map();
      for (const [alias, t] of this.file.index('aliases')) if (!this.aliasIndex.has(alias)) this.aliasIndex.set(alias, t);
    }
    return this.aliasIndex.get(name);
  }

  tool(i: number): CatalogueTool {
    let tool = this.cache.get(i);
    if (!tool) {
      tool = this.withIndexFields(i, this.file.record(i)) as unknown as CatalogueTool;
      this.cache.set(i, tool, 256 + PARSED_PER_CHAR * this.file.recordChars(i));
    }
    return tool;
  }

  peek(i: number): ToolHead {
    return (this.cache.peek(i) ?? this.withIndexFields(i, this.file.recordFields(i, ['inputSchema', 'outputSchema']))) as unknown as ToolHead;
  }

  /** The record plus what the index holds, keys sorted as the generator wrote every object. */
  private withIndexFields(i: number, record: Record<string, unknown>): Record<string, unknown> {
    const title = this.file.index('titles')[i]!;
    const tool: Record<string, unknown> = { ...record, name: this.file.index('names')[i]!, title, toolsets: this.toolsetsOf(i) };
    tool.annotations ??= annotationsFrom(title, this.flags(i));
    const aliases = this.aliasesOf(i);
    if (aliases) tool.aliases = aliases;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(tool).sort()) sorted[k] = tool[k];
    return sorted;
  }
}

class Loaded implements LoadedCatalogue {
  readonly catalogue: CatalogueHead;
  readonly count: number;
  readonly byName: LoadedCatalogue['byName'];
  private readonly dropped = new Map<number, CatalogueTool>();
  private readonly tools: Tools;
  private readonly drops: ReadonlyMap<number, string>;

  constructor(tools: Tools, drops: ReadonlyMap<number, string> = new Map()) {
    this.tools = tools;
    this.drops = drops;
    this.catalogue = tools.head;
    this.count = tools.count;
    this.byName = {
      get: (name) => {
        const i = this.indexOf(name);
        return i === undefined ? undefined : this.tool(i);
      },
      has: (name) => this.indexOf(name) !== undefined,
    };
  }

  get sharded(): boolean {
    return this.tools.file.sharded;
  }

  names(): readonly string[] {
    return this.tools.file.index('names');
  }

  name(i: number): string {
    return this.tools.file.index('names')[i]!;
  }

  indexOf(name: string): number | undefined {
    return this.tools.indexOf(name);
  }

  title(i: number): string {
    return this.tools.file.index('titles')[i]!;
  }

  toolsetsOf(i: number): readonly string[] {
    return this.tools.toolsetsOf(i);
  }

  readOnly(i: number): boolean {
    return (this.tools.flags(i) & FLAG.readOnly) !== 0;
  }

  destructive(i: number): boolean {
    return (this.tools.flags(i) & FLAG.destructive) !== 0;
  }

  hasOutputSchema(i: number): boolean {
    return (this.tools.flags(i) & FLAG.outputSchema) !== 0 && !this.drops.has(i);
  }

  tool(i: number): CatalogueTool {
    const reason = this.drops.get(i);
    if (reason === undefined) return this.tools.tool(i);
    let copy = this.dropped.get(i);
    if (!copy) {
      const { outputSchema: _schema, ...rest } = this.tools.tool(i);
      copy = { ...rest, outputSchemaDropped: reason };
      this.dropped.set(i, copy);
    }
    return copy;
  }

  peek(i: number): ToolHead {
    return this.drops.has(i) ? this.tool(i) : this.tools.peek(i);
  }

  useShards(source: ShardSource): void {
    this.tools.file.useShards(source);
  }

  load(tools: Iterable<number>): Promise<void> {
    return this.tools.file.load(tools);
  }

  withDrops(drops: ReadonlyMap<number, string>): LoadedCatalogue {
    return new Loaded(this.tools, drops);
  }

  hash(): Promise<string> {
    return Promise.resolve(this.tools.head.hash);
  }

  searchData(): SearchIndexData | undefined {
    return this.tools.file.index('search') ?? undefined;
  }

  get identity(): object {
    return this.tools;
  }
}
