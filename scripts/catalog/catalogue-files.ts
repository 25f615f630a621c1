// A catalogue on disk: <dir>/catalog.txt and <dir>/shards/ (shard files of a sharded catalogue, served as static
// assets; src/catalogue/file-format.ts). Reading expands every tool for the build-time tools that need all of them (the
// change report, declarations, the sweep); the Worker itself reads lazily.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PREFIX } from '../../src/catalogue/file-format.ts';
import { loadCatalogue, type LoadedCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { Catalogue, CatalogueTool } from '../../src/catalogue/types.ts';

export const CATALOGUE_FILE = 'catalog.txt';
export const SHARD_DIR = 'shards';
/**
 * Kept in every shards directory: wrangler's `[assets]` needs the directory to exist, and git keeps no empty one.
 * Wrangler never uploads the ignore file itself.
 */
const ASSETS_IGNORE = '.assetsignore';
const ASSETS_IGNORE_TEXT = '# Shards of a large catalogue (npm run catalog) are uploaded as static assets and read only through the ASSETS binding.\n';

/** Every tool of a catalogue text (format 2), with the shards read from `shardDir` when it is sharded. */
export async function readCatalogue(text: string, shardDir?: string): Promise<Catalogue> {
  return expand(text, shardDir === undefined ? undefined : (file) => readFile(join(shardDir, file), 'utf8'));
}

/** Every tool of a catalogue as built (its text and shards in memory), before or without writing it. */
export async function expandCatalogue(files: { text: string; shards: ReadonlyMap<string, string> }): Promise<Catalogue> {
  return expand(files.text, async (file) => {
    const shard = files.shards.get(file);
    if (shard === undefined) throw new Error(`the catalogue names a shard it was not built with: ${file}`);
    return shard;
  });
}

/** A catalogue as built, loaded the way the Worker reads it, every tool at hand (what the toolsnaps render from). */
export async function loadBuilt(files: { text: string; shards: ReadonlyMap<string, string> }): Promise<LoadedCatalogue> {
  return loadAll(files.text, async (file) => {
    const shard = files.shards.get(file);
    if (shard === undefined) throw new Error(`the catalogue names a shard it was not built with: ${file}`);
    return shard;
  });
}

async function loadAll(text: string, readShard?: (file: string) => Promise<string>): Promise<LoadedCatalogue> {
  const loaded = loadCatalogue(text);
  if (loaded.sharded) {
    if (!readShard) throw new Error('the catalogue is sharded and no shards directory was given');
    loaded.useShards(readShard);
  }
  await loaded.load(Array.from({ length: loaded.count }, (_, i) => i));
  return loaded;
}

async function expand(text: string, readShard?: (file: string) => Promise<string>): Promise<Catalogue> {
  // A format-1 catalogue (one JSON document, written by earlier generators) is still read as the previous catalogue,
  // so the first regeneration after an upgrade keeps its deprecated aliases and reports its changes.
  if (!text.startsWith(PREFIX)) {
    const legacy = parseLegacy(text);
    if (legacy) return legacy;
  }
  const loaded = await loadAll(text, readShard);
  const { hash, ...head } = loaded.catalogue;
  return { format: 2, ...head, hash, tools: toolsOf(loaded) };
}

/** Every tool of a loaded catalogue, in catalogue order (a sharded one must have loaded them all). */
export function toolsOf(loaded: LoadedCatalogue): CatalogueTool[] {
  return Array.from({ length: loaded.count }, (_, i) => loaded.tool(i));
}

/** <dir>/catalog.txt, expanded. */
export async function readCatalogueDir(dir: string): Promise<Catalogue> {
  return readCatalogue(await readFile(join(dir, CATALOGUE_FILE), 'utf8'), join(dir, SHARD_DIR));
}

export const DECLARATIONS_FILE = 'declarations.txt';
/** The declarations of a sharded catalogue among its static assets (shard files all end in .txt, so it never collides). */
export const DECLARATIONS_ASSET = 'code-mode-declarations.json';
/** Declarations above this many bytes go to the static assets even for a catalogue in one text (Graph's are ~10 MB). */
export const DECLARATIONS_EMBED_MAX = 4_000_000;

/**
 * Code mode's declarations as written beside a catalogue. Small ones are embedded (declarations.txt, a Text module,
 * in the isolate's memory from startup). Those of a sharded catalogue, or over DECLARATIONS_EMBED_MAX, go to the
 * static assets with the shards, read on the first code-mode search, and declarations.txt holds a stub naming them,
 * so the Worker's memory at startup stays flat as catalogues grow (docs/code-mode.md).
 */
export function declarationFiles(declarations: string, files: { hash: string; shards: ReadonlyMap<string, string>; sharded?: boolean }): { embedded: string; shards: ReadonlyMap<string, string> } {
  const sharded = files.sharded ?? files.shards.size > 0;
  if (!sharded && declarations.length <= DECLARATIONS_EMBED_MAX) return { embedded: declarations, shards: files.shards };
  const stub = `${JSON.stringify({ asset: DECLARATIONS_ASSET, catalogueHash: files.hash, format: 1, tools: {}, types: {} })}\n`;
  return { embedded: stub, shards: new Map([...files.shards, [DECLARATIONS_ASSET, declarations]]) };
}

/** Writes catalog.txt (atomically) and replaces the shard files; a failed write leaves the previous files. */
export async function writeCatalogueDir(dir: string, files: { text: string; shards: ReadonlyMap<string, string> }): Promise<void> {
  await mkdir(dir, { recursive: true });
  const shardDir = join(dir, SHARD_DIR);
  const tmp = `${shardDir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  await writeFile(join(tmp, ASSETS_IGNORE), ASSETS_IGNORE_TEXT);
  for (const [name, text] of files.shards) await writeFile(join(tmp, name), text);
  const catalogueTmp = join(dir, `${CATALOGUE_FILE}.tmp-${process.pid}`);
  await writeFile(catalogueTmp, files.text);
  const old = `${shardDir}.old-${process.pid}`;
  if (existsSync(shardDir)) await rename(shardDir, old);
  await rename(tmp, shardDir);
  await rename(catalogueTmp, join(dir, CATALOGUE_FILE));
  await rm(old, { recursive: true, force: true });
}

/** Whether <dir>/shards holds exactly these files (the ignore file aside). */
export async function shardsUpToDate(dir: string, shards: ReadonlyMap<string, string>): Promise<boolean> {
  const shardDir = join(dir, SHARD_DIR);
  const have = existsSync(shardDir) ? (await readdir(shardDir)).filter((f) => f !== ASSETS_IGNORE).sort() : [];
  if (have.join('\n') !== [...shards.keys()].sort().join('\n')) return false;
  for (const [name, text] of shards) if ((await readFile(join(shardDir, name), 'utf8')) !== text) return false;
  return true;
}

function parseLegacy(text: string): Catalogue | undefined {
  try {
    const doc = JSON.parse(text) as Catalogue | null;
    return doc && (doc as { format?: unknown }).format === 1 && Array.isArray(doc.tools) ? doc : undefined;
  } catch {
    return undefined;
  }
}
