// `npm run build:codemode`: the code that code mode loads into Dynamic Workers, bundled as text the Worker carries
// as Text modules (wrangler.toml's *.txt rule), so none of it is part of the Worker script (docs/code-mode.md):
//   - src/codemode/generated/compiler.txt: the compiler (compile.ts with sucrase and acorn), run in its own worker;
//   - src/codemode/generated/re2.txt: re2js, the linear-time RegExp of every sandbox.
// Deterministic for a given esbuild and package versions; `--check` fails when the committed files are stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { repoRoot } from './lib/proc.ts';

export const BUNDLES = {
  'compiler.txt': { entry: 'src/codemode/compiler-worker.ts' },
  're2.txt': { entry: 'node_modules/re2js/build/index.js' },
} as const;

const OUT_DIR = join(repoRoot, 'src', 'codemode', 'generated');

/** Each bundle's text, built in memory. */
export async function buildBundles(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, { entry }] of Object.entries(BUNDLES)) {
    const result = await build({
      entryPoints: [join(repoRoot, entry)],
      absWorkingDir: repoRoot,
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      mainFields: ['module', 'main'],
      external: ['cloudflare:workers'],
      minify: true,
      legalComments: 'none',
      target: 'es2022',
      write: false,
      logLevel: 'warning',
    });
    out[name] = result.outputFiles[0]!.text;
  }
  return out;
}

/** The bundles whose committed text differs from a fresh build. */
export async function staleBundles(): Promise<string[]> {
  const fresh = await buildBundles();
  return Object.entries(fresh)
    .filter(([name, text]) => {
      try {
        return readFileSync(join(OUT_DIR, name), 'utf8') !== text;
      } catch {
        return true;
      }
    })
    .map(([name]) => name);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--check')) {
    const stale = await staleBundles();
    if (stale.length) {
      process.stderr.write(`stale code-mode bundles: ${stale.join(', ')}; run npm run build:codemode\n`);
      process.exit(1);
    }
    process.stdout.write('code-mode bundles are up to date\n');
  } else {
    for (const [name, text] of Object.entries(await buildBundles())) {
      writeFileSync(join(OUT_DIR, name), text);
      process.stdout.write(`src/codemode/generated/${name}: ${(text.length / 1024).toFixed(1)} KiB\n`);
    }
  }
}
