// npm run eval:search:fit [-- --rounds 2] [--only runtime|fields] [--no-cv]
//
// Fits the ranker's general numbers (src/discovery/search-params.ts, the field weights of search-doc.ts) to the
// tuning halves of test/search-eval/ by coordinate search: each number in turn is scaled up and down, and a change is
// kept when it raises the objective (per spec: right operation first counts 1, in the top 3 another 0.3, in the top
// 5 another 0.2; specs weigh alike, so a large spec cannot carry a rule). Checked first by two-fold cross-validation
// over specs: numbers fitted on half the specs must also raise the other half. Held-out halves are only reported.
// Prints the fitted numbers; it never writes them (a person reads, then commits them).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { expandCatalogue } from '../catalog/catalogue-files.ts';
import { wordnetLexicon } from '../catalog/lexicon.ts';
import type { CatalogueTool } from '../../src/catalogue/types.ts';
import { FIELD_WEIGHT } from '../../src/discovery/search-doc.ts';
import type { Lexicon } from '../../src/discovery/search-index.ts';
import { PARAMS } from '../../src/discovery/search-params.ts';
import { repoRoot } from '../lib/proc.ts';
import type { Query, QuerySet } from './search-types.ts';

interface BenchLike {
  id: string;
  set: QuerySet;
  reindex(): void;
  ranks(queries: Query[]): number[];
}
const runner = './search-fit-run.ts';
const { Bench } = (await import(runner)) as {
  Bench: new (id: string, set: QuerySet, text: string, tools: CatalogueTool[], toolsets: Record<string, { description: string }>, lexicon: Lexicon) => BenchLike;
};

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '2' }, only: { type: 'string' }, 'no-cv': { type: 'boolean', default: false } } });

// The catalogues npm run eval:search:fast keeps (run it once first).
const cacheDir = join(repoRoot, '.cache/search-eval');
const dir = join(repoRoot, 'test/search-eval');
const lexicon = wordnetLexicon();
const benches: BenchLike[] = [];
for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
  const id = file.replace(/\.json$/, '');
  const set = JSON.parse(readFileSync(join(dir, file), 'utf8')) as QuerySet;
  const { text, shards } = JSON.parse(readFileSync(join(cacheDir, `${id}.json`), 'utf8')) as { text: string; shards: Array<[string, string]> };
  const catalogue = await expandCatalogue({ text, shards: new Map(shards) });
  benches.push(new Bench(id, set, text, catalogue.tools, catalogue.toolsets, lexicon));
}
const tuned = benches.filter((b) => b.set.tuning.length);

function objective(of: BenchLike[]): number {
  let sum = 0;
  for (const b of of) {
    const ranks = b.ranks(b.set.tuning);
    sum += ranks.reduce((s, r) => s + (r === 1 ? 1 : 0) + (r <= 3 ? 0.3 : 0) + (r <= 5 ? 0.2 : 0), 0) / ranks.length / 1.5;
  }
  return sum / of.length;
}

function heldOut(): string {
  const ranks = benches.flatMap((b) => b.ranks(b.set.heldOut));
  const pct = (n: number) => `${Math.round((100 * ranks.filter((r) => r <= n).length) / ranks.length)}%`;
  return `held-out @1 ${pct(1)} @3 ${pct(3)} @5 ${pct(5)}`;
}

type Knob = { name: string; get(): number; set(v: number): void; index: boolean; factor: boolean };
const knobs: Knob[] = [
  ...Object.keys(PARAMS).map((k) => {
    const key = k as keyof typeof PARAMS;
    return { name: key, get: () => PARAMS[key], set: (v: number) => void (PARAMS[key] = v), index: false, factor: PARAMS[key] <= 1 && key !== 'b' && key !== 'commonNoun' };
  }),
  ...Object.keys(FIELD_WEIGHT).map((k) => {
    const key = k as keyof typeof FIELD_WEIGHT;
    return { name: `field.${key}`, get: () => FIELD_WEIGHT[key], set: (v: number) => void (FIELD_WEIGHT[key] = v), index: true, factor: false };
  }),
].filter((k) => !args.only || (args.only === 'fields') === k.index);

/** Values to try for a knob: a factor below 1 has its penalty (1 - f) scaled; anything else is scaled itself. */
function candidates(k: Knob): number[] {
  const v = k.get();
  const round = (x: number) => Math.round(x * 1000) / 1000;
  if (k.factor) return [0.5, 0.75, 1.5, 2].map((m) => round(Math.min(1, Math.max(0.05, 1 - (1 - v) * m)))).filter((x) => x !== v);
  if (v === 0) return [0.1, 0.3];
  return (k.index ? [0.5, 1.5] : [0, 0.5, 0.75, 1.33, 2]).map((m) => round(v * m)).filter((x) => x !== v);
}

function reindexAll(of: BenchLike[]) {
  for (const b of of) b.reindex();
}

function fit(on: BenchLike[], rounds: number, log: boolean): void {
  reindexAll(on);
  let best = objective(on);
  for (let round = 0; round < rounds; round++) {
    let changed = false;
    for (const k of knobs) {
      const start = k.get();
      let keep = start;
      for (const v of candidates(k)) {
        k.set(v);
        if (k.index) reindexAll(on);
        const o = objective(on);
        if (o > best + 1e-9) {
          best = o;
          keep = v;
        }
      }
      k.set(keep);
      if (k.index) reindexAll(on);
      if (keep !== start) {
        changed = true;
        if (log) process.stderr.write(`  ${k.name}: ${start} -> ${keep} (objective ${best.toFixed(4)})\n`);
      }
    }
    if (!changed) break;
  }
}

const snapshot = () => knobs.map((k) => k.get());
const restore = (values: number[]) => knobs.forEach((k, i) => k.set(values[i]!));
const defaults = snapshot();
const rounds = Number(args.rounds);

// Two-fold cross-validation over specs.
const folds = [tuned.filter((_, i) => i % 2 === 0), tuned.filter((_, i) => i % 2 === 1)];
for (const [a, b] of (args['no-cv'] ? [] : [folds, [folds[1]!, folds[0]!]]) as Array<[BenchLike[], BenchLike[]]>) {
  restore(defaults);
  reindexAll(tuned);
  const before = objective(b);
  fit(a, rounds, false);
  reindexAll(b);
  const after = objective(b);
  process.stdout.write(`cv: fitted on ${a.map((x) => x.id).join(',')}; on ${b.map((x) => x.id).join(',')}: ${before.toFixed(4)} -> ${after.toFixed(4)}\n`);
}

restore(defaults);
reindexAll(benches);
process.stdout.write(`defaults: objective ${objective(tuned).toFixed(4)}, ${heldOut()}\n`);
fit(tuned, rounds, true);
reindexAll(benches);
process.stdout.write(`fitted: objective ${objective(tuned).toFixed(4)}, ${heldOut()}\n`);
for (const k of knobs) process.stdout.write(`  ${k.name} = ${k.get()}\n`);
