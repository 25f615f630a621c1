// toolsnaps/: one pretty-printed JSON file per tool (schemas, annotations, binding; no prose), so every schema change
// shows up as a readable diff in review. `--check` compares them like catalog.txt.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Catalogue } from '../../src/catalogue/types.ts';
import { sortKeys } from './sort-keys.ts';

/** File name -> content of every snapshot of the catalogue. */
function renderToolsnaps(cat: Catalogue): Map<string, string> {
  const files = new Map<string, string>();
  for (const t of cat.tools) {
    const { description: _d, title: _t, ...snap } = t;
    files.set(`${t.name}.json`, JSON.stringify(sortKeys(snap), null, 2) + '\n');
  }
  return files;
}

/** Written to a fresh directory that then replaces the old one, so a failed write leaves the old snapshots. */
export async function writeToolsnaps(dir: string, cat: Catalogue): Promise<void> {
  const tmp = `${dir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  for (const [file, text] of renderToolsnaps(cat)) await writeFile(join(tmp, file), text);
  const old = `${dir}.old-${process.pid}`;
  if (existsSync(dir)) await rename(dir, old);
  await rename(tmp, dir);
  await rm(old, { recursive: true, force: true });
}

interface ToolsnapDrift {
  /** Snapshots the catalogue has and the directory lacks. */
  missing: string[];
  /** Files in the directory that no tool of the catalogue writes. */
  extra: string[];
  /** Snapshots whose content differs. */
  changed: string[];
}

/** Differences between `dir` and the snapshots of `cat`; all lists empty when up to date. A missing dir misses everything. */
export async function compareToolsnaps(dir: string, cat: Catalogue): Promise<ToolsnapDrift> {
  const want = renderToolsnaps(cat);
  const have = existsSync(dir) ? (await readdir(dir)).sort() : [];
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

export function toolsnapDriftText(dir: string, d: ToolsnapDrift, max = 20): string {
  const lines = [`${dir} is out of date: ${d.changed.length} changed, ${d.extra.length} extra, ${d.missing.length} missing`];
  for (const [label, files] of [
    ['changed', d.changed],
    ['extra (no such tool)', d.extra],
    ['missing', d.missing],
  ] as const) {
    if (!files.length) continue;
    lines.push(`  ${label}: ${files.slice(0, max).join(', ')}${files.length > max ? `, … and ${files.length - max} more` : ''}`);
  }
  return lines.join('\n');
}
