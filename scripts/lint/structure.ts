// npm run lint:structure: the layout rules CI enforces (docs/ci.md).
//   - No import cycle in src/, scripts/ or test/, type-only imports included: `import type`, `export type … from`
//     and inline `import('…').T` all count, and so do dynamic imports.
//   - No .ts/.js source file in src/, scripts/, test/ or bin/ over 400 lines.
// madge (not dpdm) because its TypeScript detective also sees `import('./x.ts').T` type expressions, which dpdm misses.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import madge from 'madge';

export const MAX_LINES = 400;
const SOURCE = /\.(?:[cm]?[jt]s|tsx|jsx)$/;

/** Every cycle among the source files under `dirs` (relative to `root`), each as a list of paths from `root`. */
export async function findCycles(root: string, dirs: string[]): Promise<string[][]> {
  const result = await madge(
    dirs.map((d) => join(root, d)),
    {
      baseDir: root,
      fileExtensions: ['ts', 'tsx', 'mts', 'cts', 'js', 'mjs', 'cjs'],
      excludeRegExp: [/node_modules/],
      // Explicit: type-only edges are real edges here (the detective's default, stated so no config file can flip it).
      detectiveOptions: { ts: { skipTypeImports: false, skipAsyncImports: false }, es6: { skipTypeImports: false, skipAsyncImports: false } },
    },
  );
  return result.circular();
}

function sourceFiles(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch {
    return []; // a missing folder has nothing to check
  }
  return entries.filter((e) => e.isFile() && SOURCE.test(e.name) && !join(e.parentPath, e.name).includes('node_modules')).map((e) => join(e.parentPath, e.name));
}

/** Source files under `dirs` longer than `max` lines, longest first. */
export function findLongFiles(root: string, dirs: string[], max = MAX_LINES): { file: string; lines: number }[] {
  const long: { file: string; lines: number }[] = [];
  for (const d of dirs) {
    for (const file of sourceFiles(join(root, d))) {
      const text = readFileSync(file, 'utf8');
      const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
      if (lines > max) long.push({ file: relative(root, file), lines });
    }
  }
  return long.sort((a, b) => b.lines - a.lines || (a.file < b.file ? -1 : 1));
}

async function main(): Promise<number> {
  const root = join(import.meta.dirname, '../..');
  const cycles = await findCycles(root, ['src', 'scripts', 'test']);
  const long = findLongFiles(root, ['src', 'scripts', 'test', 'bin']);
  for (const c of cycles) process.stderr.write(`import cycle: ${[...c, c[0]].join(' -> ')}\n`);
  for (const l of long) process.stderr.write(`too long: ${l.file} has ${l.lines} lines (max ${MAX_LINES}); split it by concern\n`);
  if (cycles.length || long.length) {
    process.stderr.write(`lint:structure: ${cycles.length} import cycle(s), ${long.length} file(s) over ${MAX_LINES} lines\n`);
    return 1;
  }
  process.stdout.write(`lint:structure: no import cycles in src/, scripts/, test/; no source file over ${MAX_LINES} lines\n`);
  return 0;
}

if (process.argv[1] === import.meta.filename) process.exit(await main());
