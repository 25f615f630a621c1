// writeCatalogueConfig (scripts/lib/wrangler.ts): the wrangler.json `npm run serve` and the e2e workers use for a
// catalogue in a temp dir. Every path in it must still point into this repo once the config lives elsewhere.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../scripts/lib/proc.ts';
import { writeCatalogueConfig } from '../../scripts/lib/wrangler.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('writeCatalogueConfig', () => {
  it('keeps the USAGE database with its migrations folder as an absolute path, beside the absolute entry and alias', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-config-'));
    dirs.push(dir);
    const config = JSON.parse(await readFile(await writeCatalogueConfig(dir), 'utf8')) as {
      main: string;
      alias: Record<string, string>;
      d1_databases: Array<{ binding: string; database_id: string; migrations_dir: string }>;
    };
    expect(config.main).toBe(join(repoRoot, 'src', 'index.ts'));
    expect(config.alias['catalog-data']).toBe(join(dir, 'catalog.txt'));
    expect(config.d1_databases).toEqual([expect.objectContaining({ binding: 'USAGE', migrations_dir: join(repoRoot, 'migrations') })]);
  });
});
