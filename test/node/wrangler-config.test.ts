// writeCatalogueConfig (scripts/lib/wrangler.ts): the wrangler.json `npm run serve` and the e2e workers use for a
// catalogue in a temp dir. Every path in it must still point into this repo once the config lives elsewhere.
// And the operator's view of the config: every string var of the Worker's Env is set once in wrangler.toml [vars]
// or is a secret, and README's configuration tables name each exactly once.
import { readFileSync } from 'node:fs';
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
      find_additional_modules?: boolean;
      rules?: unknown[];
    };
    expect(config.main).toBe(join(repoRoot, 'src', 'index.ts'));
    // Each data file behind a module of its own that imports it, so the bundler keeps it a Text module.
    expect(config.alias['catalog-data']).toBe(join(dir, 'catalogue-module.js'));
    expect(await readFile(config.alias['catalog-data']!, 'utf8')).toBe("export { default } from './catalog.txt';\n");
    expect(await readFile(config.alias['declarations-data']!, 'utf8')).toBe("export { default } from './declarations.txt';\n");
    expect(config.d1_databases).toEqual([expect.objectContaining({ binding: 'USAGE', migrations_dir: join(repoRoot, 'migrations') })]);
    // The OAuth library stays a module of its own there too (src/oauth-library.ts).
    expect(config).toMatchObject({ find_additional_modules: true, rules: expect.arrayContaining([expect.objectContaining({ type: 'ESModule', globs: ['**/oauth-provider.js'] })]) });
  });
});

describe('the vars an operator sets', () => {
  const read = (f: string) => readFileSync(join(repoRoot, f), 'utf8');
  const env = /export interface Env \{([\s\S]*?)\n\}/.exec(read('src/config.ts'))![1]!;
  const stringVars = [...env.matchAll(/^\s+([A-Z][A-Z0-9_]*)\?: string;/gm)].map((m) => m[1]!);
  const toml = read('wrangler.toml');
  const varsSection = toml.slice(toml.indexOf('[vars]'), toml.indexOf('[[', toml.indexOf('[vars]')));
  const inToml = [...varsSection.matchAll(/^([A-Z][A-Z0-9_]*) = /gm)].map((m) => m[1]!);
  const readme = read('README.md');
  const config = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1));
  const rows = config.split('\n').filter((l) => l.startsWith('| `'));

  it('wrangler.toml sets each var once, and every string var of Env is either set there or a secret', () => {
    expect(new Set(inToml).size).toBe(inToml.length);
    const secrets = stringVars.filter((v) => !inToml.includes(v));
    expect(secrets.sort()).toEqual(['ADMIN_TOKEN', 'API_KEY', 'CREDENTIAL_ENCRYPTION_KEY', 'SESSION_SECRET', 'SPEC_AUTH_HEADER', 'UPSTREAM_CREDENTIALS', 'UPSTREAM_TOKEN']);
    expect(/^[^#\n]*(API_KEY|UPSTREAM_TOKEN|UPSTREAM_CREDENTIALS|CREDENTIAL_ENCRYPTION_KEY|SESSION_SECRET|ADMIN_TOKEN|SPEC_AUTH_HEADER) = /m.test(toml)).toBe(false);
  });

  it("README's configuration tables name every var and secret in exactly one row", () => {
    for (const name of stringVars) {
      const named = rows.filter((r) => r.split('|')[1]!.includes(`\`${name}\``));
      expect(named, name).toHaveLength(1);
    }
  });
});
