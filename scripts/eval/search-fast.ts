// npm run eval:search:fast [-- --spec a,b] [--misses] [--rebuild] [--quiet] [--reach]
//
// The tuning loop of the search ranker: like `npm run eval:search`, but each spec's catalogue is built once and kept
// under .cache/search-eval/, and only its search index is rebuilt from the current code (scripts/catalog/lexicon.ts,
// src/discovery/search-index.ts), then ranked by rankTools directly (what both discovery and code mode call). Seconds
// instead of a minute, so rules can be tried one at a time. --misses prints the tuning half's misses only; held-out
// halves are reported as figures. --reach also counts, per half, the queries whose right tool shares none, some or
// all of the query's words (what bounds a lexical ranker), and how many of each are first. The release figures come
// from `npm run eval:search`, which builds everything anew.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildCatalogue } from '../catalog/build.ts';
import { expandCatalogue } from '../catalog/catalogue-files.ts';
import { wordnetLexicon } from '../catalog/lexicon.ts';
import type { CatalogueTool } from '../../src/catalogue/types.ts';
import type { Lexicon } from '../../src/discovery/search-index.ts';
import { PARAMS } from '../../src/discovery/search-params.ts';
import { FIELD_WEIGHT } from '../../src/discovery/search-doc.ts';
import { repoRoot } from '../lib/proc.ts';
import type { QuerySet } from './search-types.ts';

const runner = './search-fast-run.ts';
const { rankSet, summarise, explain } = (await import(runner)) as {
  explain(text: string, tools: CatalogueTool[], toolsets: Record<string, { description: string }>, lexicon: Lexicon, query: string): string;
  rankSet(id: string, set: QuerySet, text: string, tools: CatalogueTool[], toolsets: Record<string, { description: string }>, lexicon: Lexicon, withReach?: boolean): { misses: string[] };
  summarise(results: unknown[], quiet?: boolean): string;
};

const { values: args } = parseArgs({
  options: {
    spec: { type: 'string' },
    misses: { type: 'boolean', default: false },
    rebuild: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
    set: { type: 'string' },
    explain: { type: 'string' },
    reach: { type: 'boolean', default: false },
  },
});

const dir = join(repoRoot, 'test/search-eval');
const cacheDir = join(repoRoot, '.cache/search-eval');
mkdirSync(cacheDir, { recursive: true });
const wanted = args.spec?.split(',').map((s) => s.trim());
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json') && (!wanted || wanted.includes(f.replace(/\.json$/, ''))))
  .sort();
const lexicon = wordnetLexicon();
// --set head=1.5,pathExtra=0.85: try the ranker's numbers (src/discovery/search-params.ts) without editing them.
// field.title=4 sets the index's field weights (search-doc.ts).
for (const pair of args.set?.split(',') ?? []) {
  const [key, value] = pair.split('=') as [string, string];
  const [group, name] = key.includes('.') ? (key.split('.') as [string, string]) : ['', key];
  const target = ({ '': PARAMS, field: FIELD_WEIGHT } as Record<string, Record<string, number>>)[group];
  if (!target || !(name in target)) throw new Error(`--set: no parameter ${key}; there are ${Object.keys(PARAMS).join(', ')}, field.*`);
  target[name] = Number(value);
}
const results = [];
for (const file of files) {
  const set = JSON.parse(readFileSync(join(dir, file), 'utf8')) as QuerySet;
  const id = file.replace(/\.json$/, '');
  const cached = join(cacheDir, `${id}.json`);
  if (args.rebuild || !existsSync(cached)) {
    const overrides = set.catalogue ? join(repoRoot, set.catalogue, 'overrides.json') : null;
    const built = await buildCatalogue(join(repoRoot, set.spec), { overrides, sweep: true });
    writeFileSync(cached, JSON.stringify({ text: built.text, shards: [...built.shards] }));
  }
  const { text, shards } = JSON.parse(readFileSync(cached, 'utf8')) as { text: string; shards: Array<[string, string]> };
  const catalogue = await expandCatalogue({ text, shards: new Map(shards) });
  if (args.explain) {
    process.stdout.write(`${id}: ${explain(text, catalogue.tools, catalogue.toolsets, lexicon, args.explain)}\n`);
    continue;
  }
  const result = rankSet(id, set, text, catalogue.tools, catalogue.toolsets, lexicon, args.reach);
  if (args.misses) for (const m of result.misses) process.stderr.write(`  miss ${m}\n`);
  results.push(result);
}
if (!args.explain) process.stdout.write(summarise(results, args.quiet) + '\n');
