// Deprecated aliases (docs/naming.md): a renamed tool keeps its old name for one catalogue version.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { describe, expect, it, vi } from 'vitest';
import { buildCatalogue } from '../../scripts/catalog/build.ts';
import { main } from '../../scripts/catalog/cli.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { CatalogueTool } from '../../src/catalogue/types.ts';
import { MINI, miniVariant, tmp } from './fixtures/mini-spec.ts';

describe('deprecated aliases for renamed tools', () => {
  const quiet = () => vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  const read = (out: string) => JSON.parse(readFileSync(join(out, 'catalog.txt'), 'utf8')) as { tools: CatalogueTool[] };
  const byPath = (out: string, path: string) => read(out).tools.find((t) => t.http.path === path)!;

  it('keeps a renamed tool\'s old name as an alias for one catalogue version; --check stays stable; hand renames stay', async () => {
    const err = quiet();
    try {
      const dir = tmp();
      const spec = join(dir, 'spec.yaml');
      const out = join(dir, 'out');
      copyFileSync(MINI, spec);
      writeFileSync(join(dir, 'overrides.json'), JSON.stringify({ tools: { create_pet: { rename: 'pets_create' } } }));
      const run = (...more: string[]) => main(['--spec', spec, '--out', out, '--overrides', join(dir, 'overrides.json'), '--quiet', ...more]);
      expect(await run()).toBe(0);
      expect(byPath(out, '/counts').name).toBe('counts_get_all');

      // A regeneration that renames the tool (same METHOD path): the old name becomes an alias.
      const doc = YAML.parse(readFileSync(spec, 'utf8'));
      doc.paths['/counts'].get.operationId = 'counts/tally';
      writeFileSync(spec, YAML.stringify(doc));
      expect(await run()).toBe(0);
      const renamed = byPath(out, '/counts');
      expect(renamed).toMatchObject({ name: 'counts_tally', aliases: ['counts_get_all'] });
      expect(byPath(out, '/pets').aliases ?? []).toEqual([]);
      const report = readFileSync(join(out, 'report.md'), 'utf8');
      expect(report).toMatch(/counts_get_all -> counts_tally \(GET \/counts\)/);
      expect(report).toMatch(/hashed names \(last resort\): 0/);

      // The runtime resolves the alias in tools/call and never lists it.
      const loaded = loadCatalogue(readFileSync(join(out, 'catalog.txt'), 'utf8'));
      expect(loaded.byName.get('counts_get_all')?.name).toBe('counts_tally');
      expect(loaded.listed.map((t) => t.name)).not.toContain('counts_get_all');

      // Regenerating the same catalogue keeps it, so --check compares like with like.
      const text = readFileSync(join(out, 'catalog.txt'), 'utf8');
      expect(await run('--check')).toBe(0);
      expect(await run()).toBe(0);
      expect(readFileSync(join(out, 'catalog.txt'), 'utf8')).toBe(text);

      // The next catalogue version (anything else changes) drops it; the hand rename's alias stays.
      doc.paths['/owners'] = { get: { operationId: 'listOwners', responses: { 200: { description: 'ok' } } } };
      writeFileSync(spec, YAML.stringify(doc));
      expect(await run()).toBe(0);
      expect(byPath(out, '/counts').aliases).toBeUndefined();
      expect(read(out).tools.find((t) => t.name === 'pets_create')!.aliases).toEqual(['create_pet']);
    } finally {
      err.mockRestore();
    }
  });

  it('does not give an old name to a tool when another tool now has it', async () => {
    const first = await buildCatalogue(MINI);
    const swapped = miniVariant((d) => {
      d.paths['/counts'].get.operationId = 'listPets';
      d.paths['/pets'].get.operationId = 'counts/get-all';
    });
    const r = await buildCatalogue(swapped, { previous: first.text });
    expect(r.catalogue.tools.flatMap((t) => t.aliases ?? [])).toEqual([]);
    expect(r.report.names.skipped.map((x) => `${x.from} -> ${x.to}`).sort()).toEqual(['counts_get_all -> list_pets', 'list_pets -> counts_get_all']);
  });
});
