// npm run eval:search [-- --spec github,stripe] [--misses] [--json <file>] [--catalogue]
//
// The search evaluation (docs/benchmarks.md, "Search quality"): for every query set in test/search-eval/, builds the
// spec's catalogue with the current generator (or, with --catalogue, reads the committed one for sets that name it),
// asks discovery's search_tools and code mode's search for each query through their real surfaces, and reports
// where the expected operation (METHOD /path) ranks: @1, @3 and @5 per spec, the tuning and held-out halves apart.
// --misses prints the tuning half's misses (the held-out half is reported only as figures, so it stays unseen).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildCatalogue } from '../catalog/build.ts';
import { expandCatalogue } from '../catalog/catalogue-files.ts';
import { buildDeclarations, serializeDeclarations } from '../catalog/declarations.ts';
import { repoRoot } from '../lib/proc.ts';
import type { QuerySet, SetResult } from './search-types.ts';

// search-run.ts drives the Worker's own surfaces, so it is type-checked with the Worker's types (tsconfig.json), and
// imported here by a specifier TypeScript does not follow.
const runner = './search-run.ts';
const { evaluateSet, formatTable } = (await import(runner)) as {
  evaluateSet(id: string, set: QuerySet, text: string, declarations: string): Promise<SetResult>;
  formatTable(results: SetResult[]): string;
};

const root = repoRoot;
const { values: args } = parseArgs({
  options: {
    spec: { type: 'string' },
    misses: { type: 'boolean', default: false },
    json: { type: 'string' },
    catalogue: { type: 'boolean', default: false },
  },
});

const dir = join(root, 'test/search-eval');
const wanted = args.spec?.split(',').map((s) => s.trim());
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json') && (!wanted || wanted.includes(f.replace(/\.json$/, ''))))
  .sort();
const results: SetResult[] = [];
for (const file of files) {
  const set = JSON.parse(readFileSync(join(dir, file), 'utf8')) as QuerySet;
  const id = file.replace(/\.json$/, '');
  const t0 = performance.now();
  let text: string;
  let shards: ReadonlyMap<string, string> = new Map();
  if (args.catalogue && set.catalogue) text = readFileSync(join(root, set.catalogue, 'catalog.txt'), 'utf8');
  else {
    const overrides = set.catalogue ? join(root, set.catalogue, 'overrides.json') : null;
    const built = await buildCatalogue(join(root, set.spec), { overrides, sweep: true });
    text = built.text;
    shards = built.shards;
  }
  const declarations = serializeDeclarations(buildDeclarations(await expandCatalogue({ text, shards })));
  const result = await evaluateSet(id, set, text, declarations);
  process.stderr.write(`[eval] ${id}: ${set.tuning.length + set.heldOut.length} queries in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  if (args.misses) for (const m of result.misses) process.stderr.write(`  miss (tuning) ${m}\n`);
  results.push(result);
}
process.stdout.write(formatTable(results) + '\n');
if (args.json) writeFileSync(args.json, JSON.stringify(results.map(({ misses: _m, ...r }) => r), null, 2) + '\n');
const disagree = results.filter((r) => r.disagreements);
if (disagree.length) {
  process.stderr.write(`discovery and code mode ranked differently: ${disagree.map((r) => `${r.spec} (${r.disagreements})`).join(', ')}\n`);
  process.exitCode = 1;
}
