// toolsnaps/: what the catalogue holds and what clients are served, as readable files, so every change to either
// shows up as a diff in review. `--check` compares them like catalog.txt.
//   <tool>.json          the catalogue record (schemas, annotations, binding; no prose), and under `served` the exact
//                        tools/list entry each schema dialect gets (title and description included): default (also
//                        Cursor and Claude), openai (strict form), gemini (content only), vscode (draft-07 input).
//   lists/<endpoint>.<profile>.json
//                        what tools/list serves at bare /mcp (the default toolsets) and at /mcp/x/all for each client
//                        profile: typed tools or a hybrid list (the meta-tools' entries in full, then the typed tools'
//                        names), and the server instructions.
// Built from the same modules the Worker serves with (src/profiles/view.ts, src/discovery/hybrid.ts), not re-derived.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { LoadedCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf, type Slice } from '../../src/catalogue/slices.ts';
import type { Catalogue } from '../../src/catalogue/types.ts';
import { hybridListing, META_TOOLS, overToolBudget } from '../../src/discovery/hybrid.ts';
import { PROFILES, type ProfileId } from '../../src/profiles/profiles.ts';
import { viewOf } from '../../src/profiles/view.ts';
import { toolsInstructions } from '../../src/tools/instructions.ts';
import { sortKeys } from './sort-keys.ts';

/** One profile per schema dialect: Cursor and Claude are served the default's entries. */
const DIALECT_PROFILES: ProfileId[] = ['default', 'openai', 'gemini', 'vscode'];
/** The profiles whose listings differ: by dialect, or by tool budget (Cursor's hybrid list). */
const LIST_PROFILES: ProfileId[] = ['default', 'cursor', 'openai', 'gemini', 'vscode'];

const pretty = (v: unknown) => JSON.stringify(v, null, 2) + '\n';

/** Relative path -> content of every snapshot; `loaded` is the same catalogue, with every tool loadable. */
function renderToolsnaps(cat: Catalogue, loaded: LoadedCatalogue): Map<string, string> {
  const files = new Map<string, string>();
  const all = sliceOf(loaded, {});
  const views = DIALECT_PROFILES.map((p) => [p, viewOf(loaded, all, PROFILES[p])] as const);
  for (const t of cat.tools) {
    const { description: _d, title: _t, ...record } = t;
    const i = loaded.indexOf(t.name)!;
    const at = all.tools.indexOf(i);
    const served = Object.fromEntries(views.map(([p, view]) => [p, view.tools[at]]));
    files.set(`${t.name}.json`, pretty({ ...(sortKeys(record) as object), served }));
  }
  const endpoints: Array<[string, Slice]> = [
    ['mcp', sliceOf(loaded, cat.defaultToolsets ? { toolsets: cat.defaultToolsets } : {})],
    ['mcp-x-all', all],
  ];
  for (const [endpoint, slice] of endpoints) {
    for (const id of LIST_PROFILES) files.set(`lists/${endpoint}.${id}.json`, pretty(listing(loaded, slice, id, `/${endpoint.replace(/-/g, '/')}`)));
  }
  return files;
}

/** What tools/list serves on one endpoint to one profile (src/pipeline/steps.ts listingMode decides hybrid). */
function listing(loaded: LoadedCatalogue, slice: Slice, id: ProfileId, path: string): unknown {
  const profile = PROFILES[id];
  if (overToolBudget(slice, profile)) {
    const hybrid = hybridListing(loaded, slice, profile);
    const meta = hybrid.tools.filter((t) => META_TOOLS.has(t.name));
    return { endpoint: path, profile: id, mode: 'hybrid', instructions: hybrid.instructions, metaTools: meta, tools: hybrid.tools.filter((t) => !META_TOOLS.has(t.name)).map((t) => t.name) };
  }
  const view = viewOf(loaded, slice, profile);
  return { endpoint: path, profile: id, mode: 'tools', instructions: toolsInstructions(loaded, slice, view), tools: view.tools.map((t) => t.name) };
}

/** Written to a fresh directory that then replaces the old one, so a failed write leaves the old snapshots. */
export async function writeToolsnaps(dir: string, cat: Catalogue, loaded: LoadedCatalogue): Promise<void> {
  const tmp = `${dir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  for (const [file, text] of renderToolsnaps(cat, loaded)) {
    await mkdir(dirname(join(tmp, file)), { recursive: true });
    await writeFile(join(tmp, file), text);
  }
  const old = `${dir}.old-${process.pid}`;
  if (existsSync(dir)) await rename(dir, old);
  await rename(tmp, dir);
  await rm(old, { recursive: true, force: true });
}

interface ToolsnapDrift {
  /** Snapshots the catalogue has and the directory lacks. */
  missing: string[];
  /** Files in the directory that no tool or listing of the catalogue writes. */
  extra: string[];
  /** Snapshots whose content differs. */
  changed: string[];
}

/** Every file below `dir`, as paths relative to it. */
async function filesBelow(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1)).sort();
}

/** Differences between `dir` and the snapshots of `cat`; all lists empty when up to date. A missing dir misses everything. */
export async function compareToolsnaps(dir: string, cat: Catalogue, loaded: LoadedCatalogue): Promise<ToolsnapDrift> {
  const want = renderToolsnaps(cat, loaded);
  const have = await filesBelow(dir);
  const present = new Set(have);
  const drift: ToolsnapDrift = { missing: [], extra: [], changed: [] };
  for (const file of have) {
    const expected = want.get(file);
    if (expected === undefined) drift.extra.push(file);
    else if ((await readFile(join(dir, file), 'utf8')) !== expected) drift.changed.push(file);
  }
  for (const file of [...want.keys()].sort()) if (!present.has(file)) drift.missing.push(file);
  return drift;
}

/** How many snapshot files `cat` has: one per tool, plus the listings. */
export function toolsnapCount(cat: Catalogue): number {
  return cat.tools.length + 2 * LIST_PROFILES.length;
}

export function toolsnapDriftText(dir: string, d: ToolsnapDrift, max = 20): string {
  const lines = [`${dir} is out of date: ${d.changed.length} changed, ${d.extra.length} extra, ${d.missing.length} missing`];
  for (const [label, files] of [
    ['changed', d.changed],
    ['extra (no such tool or listing)', d.extra],
    ['missing', d.missing],
  ] as const) {
    if (!files.length) continue;
    lines.push(`  ${label}: ${files.slice(0, max).join(', ')}${files.length > max ? `, … and ${files.length - max} more` : ''}`);
  }
  return lines.join('\n');
}
