// npm run lint:structure (scripts/lint/structure.ts) on small trees made here: it must see every kind of import
// cycle, type-only ones included, and count lines the way the 400-line rule means.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCycles, findLongFiles, MAX_LINES } from '../../scripts/lint/structure.ts';

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'structure-lint-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const lines = (n: number) => Array.from({ length: n }, (_, i) => `export const x${i} = ${i};`).join('\n') + '\n';

describe('lint:structure', () => {
  it('finds cycles made of value imports, `import type`, `export type … from`, inline import() types and dynamic imports', async () => {
    const root = tree({
      'src/a/a.ts': "import type { B } from '../b/b.ts';\nexport interface A { b?: B }\n",
      'src/b/b.ts': "export type { A } from '../a/a.ts';\nexport interface B { n: number }\n",
      'src/c.ts': "export const c: import('./d.ts').D = 1;\n",
      'src/d.ts': "import { c } from './c.ts';\nexport type D = number;\nexport const d = c;\n",
      'scripts/e.ts': "import { type F } from './f.ts';\nexport type E = F | string;\n",
      'scripts/f.ts': "export async function f() { return import('./e.ts'); }\nexport type F = number;\n",
      'test/g.ts': "import { h } from './h.ts';\nexport const g = h;\n",
      'test/h.ts': 'export const h = 1;\n',
    });
    const cycles = (await findCycles(root, ['src', 'scripts', 'test'])).map((c) => [...c].sort().join(' '));
    expect(cycles.sort()).toEqual(['scripts/e.ts scripts/f.ts', 'src/a/a.ts src/b/b.ts', 'src/c.ts src/d.ts']);
    expect(await findCycles(root, ['test'])).toEqual([]);
  });

  it(`flags source files over ${MAX_LINES} lines and nothing else`, () => {
    const root = tree({
      'src/ok.ts': lines(MAX_LINES),
      'src/deep/long.ts': lines(MAX_LINES + 1),
      'bin/tool.js': lines(MAX_LINES + 5),
      'test/data.json': lines(1000),
      'src/node_modules/dep/index.js': lines(1000),
      'scripts/no-final-newline.ts': lines(MAX_LINES).trimEnd(),
    });
    expect(findLongFiles(root, ['src', 'scripts', 'test', 'bin', 'missing'])).toEqual([
      { file: 'bin/tool.js', lines: MAX_LINES + 5 },
      { file: 'src/deep/long.ts', lines: MAX_LINES + 1 },
    ]);
  });
});
