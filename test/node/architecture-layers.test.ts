// docs/architecture.md states the order imports follow between src/'s folders ("Imports go one way …"); this reads
// that order from the doc and checks every import between those folders against it, type-only imports included, so
// neither the code nor the doc can drift from the other.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import madge from 'madge';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

/** The documented layers, top first: each a set of folder or file names under src/. */
function documentedLayers(): string[][] {
  const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const sentence = /Imports go one way, from the routes down to [^:]+:\s*([^.]+(?:\.ts[^.]*)*)\./.exec(doc.replace(/\n/g, ' '))?.[1];
  if (!sentence) throw new Error('docs/architecture.md no longer says "Imports go one way, from the routes down to …: a → b → …"');
  return sentence.split('→').map((part) => [...part.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/\/$/, '')));
}

/** Edges between src/'s top-level folders (and top-level files), from every import. */
async function folderEdges(): Promise<Array<[string, string, string]>> {
  const graph = (await madge(join(root, 'src'), { baseDir: join(root, 'src'), fileExtensions: ['ts'], detectiveOptions: { ts: { skipTypeImports: false, skipAsyncImports: false } } })).obj();
  const top = (f: string) => f.split('/')[0]!;
  const edges: Array<[string, string, string]> = [];
  for (const [file, deps] of Object.entries(graph)) for (const dep of deps) if (top(file) !== top(dep) && !dep.startsWith('..')) edges.push([top(file), top(dep), `${file} -> ${dep}`]);
  return edges;
}

describe('docs/architecture.md: the import order', () => {
  it('every import between the documented layers goes down (the leaves may read each other)', async () => {
    const layers = documentedLayers();
    expect(layers.length).toBeGreaterThan(5);
    const rank = new Map(layers.flatMap((names, i) => names.map((n) => [n, i] as const)));
    const leaves = layers.length - 1;
    // Documented: config.ts reads usage's settings module, which imports nothing.
    const allowed = new Set(['config.ts -> usage/config.ts']);
    const upward = (await folderEdges()).filter(([a, b, edge]) => {
      const [ra, rb] = [rank.get(a), rank.get(b)];
      if (ra === undefined || rb === undefined || allowed.has(edge)) return false;
      return ra > rb || (ra === rb && ra !== leaves);
    });
    expect(upward.map(([, , edge]) => edge)).toEqual([]);
  });
});
