// Deprecated aliases (docs/naming.md): a renamed tool keeps its old name until a regeneration from another spec version.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { readCatalogue, readCatalogueDir } from '../../scripts/catalog/catalogue-files.ts';
import { join } from 'node:path';
import YAML from 'yaml';
import { describe, expect, it, vi } from 'vitest';
import { buildCatalogue } from '../../scripts/catalog/build.ts';
import { main } from '../../scripts/catalog/cli.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { CatalogueTool } from '../../src/catalogue/types.ts';
import { MINI, miniVariant, tmp } from './fixtures/mini-spec.ts';
import { snake } from '../../scripts/catalog/snake.ts';

describe('deprecated aliases for renamed tools', () => {
  const quiet = () => vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  const read = (out: string) => readCatalogueDir(out);
  const byPath = async (out: string, path: string) => (await read(out)).tools.find((t) => t.http.path === path)!;

  it('keeps a renamed tool\'s old name while the spec stays the same, through generator changes; a new spec version drops it; hand renames stay', async () => {
    const err = quiet();
    try {
      const dir = tmp();
      const spec = join(dir, 'spec.yaml');
      const out = join(dir, 'out');
      copyFileSync(MINI, spec);
      writeFileSync(join(dir, 'overrides.json'), JSON.stringify({ tools: { create_pet: { rename: 'pets_create' } } }));
      const run = (...more: string[]) => main(['--spec', spec, '--out', out, '--overrides', join(dir, 'overrides.json'), '--quiet', ...more]);
      expect(await run()).toBe(0);
      expect((await byPath(out, '/counts')).name).toBe('counts_get_all');

      // A regeneration that renames the tool (same METHOD path): the old name becomes an alias.
      const doc = YAML.parse(readFileSync(spec, 'utf8'));
      doc.paths['/counts'].get.operationId = 'counts/tally';
      writeFileSync(spec, YAML.stringify(doc));
      expect(await run()).toBe(0);
      const renamed = await byPath(out, '/counts');
      expect(renamed).toMatchObject({ name: 'counts_tally', aliases: ['counts_get_all'] });
      expect((await byPath(out, '/pets')).aliases ?? []).toEqual([]);
      const report = readFileSync(join(out, 'report.md'), 'utf8');
      expect(report).toMatch(/counts_get_all -> counts_tally \(GET \/counts\)/);
      expect(report).toMatch(/hashed names \(last resort\): 0/);

      // The runtime resolves the alias in tools/call and never lists it.
      const loaded = loadCatalogue(readFileSync(join(out, 'catalog.txt'), 'utf8'));
      expect(loaded.byName.get('counts_get_all')?.name).toBe('counts_tally');
      expect([...loaded.names()]).not.toContain('counts_get_all');

      // Regenerating the same catalogue keeps it, so --check compares like with like.
      const text = readFileSync(join(out, 'catalog.txt'), 'utf8');
      expect(await run('--check')).toBe(0);
      expect(await run()).toBe(0);
      expect(readFileSync(join(out, 'catalog.txt'), 'utf8')).toBe(text);

      // A generator change from the same spec (here: the committed catalogue as an older generator wrote it, with
      // other schemas and descriptions, in the format it wrote) keeps the alias: renames by our own generator must reach a deployment.
      const older = await readCatalogue(text);
      for (const t of older.tools) {
        t.inputSchema = { type: 'object', properties: {} };
        t.description = `${t.description} (older generator)`;
      }
      writeFileSync(join(out, 'catalog.txt'), JSON.stringify({ ...older, format: 1 }));
      expect(await run()).toBe(0);
      expect(readFileSync(join(out, 'catalog.txt'), 'utf8')).toBe(text);

      // The same document reformatted (YAML -> JSON, keys reordered) is the same spec.
      const asJson = join(dir, 'spec.json');
      writeFileSync(asJson, JSON.stringify(Object.fromEntries(Object.entries(doc).reverse())));
      expect(await main(['--spec', asJson, '--out', out, '--overrides', join(dir, 'overrides.json'), '--quiet'])).toBe(0);
      expect((await byPath(out, '/counts')).aliases).toEqual(['counts_get_all']);

      // The next spec version drops it; the hand rename's alias stays.
      doc.paths['/owners'] = { get: { operationId: 'listOwners', responses: { 200: { description: 'ok' } } } };
      writeFileSync(spec, YAML.stringify(doc));
      expect(await run()).toBe(0);
      expect((await byPath(out, '/counts')).aliases).toBeUndefined();
      expect((await read(out)).tools.find((t) => t.name === 'pets_create')!.aliases).toEqual(['create_pet']);
    } finally {
      err.mockRestore();
    }
  });

  it('knows a catalogue written before the spec digest existed by its source.version alone', async () => {
    const first = await buildCatalogue(MINI);
    const renamed = miniVariant((d) => {
      d.paths['/counts'].get.operationId = 'counts/tally';
    });
    const second = await buildCatalogue(renamed, { previous: { text: first.text } });
    // As older generators wrote it: format 1 (one JSON document), no digest.
    const undigested = (version: string) => {
      const { digest: _digest, ...source } = second.catalogue.source;
      return JSON.stringify({ ...second.catalogue, source: { ...source, version }, format: 1 });
    };
    const aliasesAfter = async (previous: string) => (await buildCatalogue(renamed, { previous: { text: previous } })).catalogue.tools.flatMap((t) => t.aliases ?? []);
    expect(await aliasesAfter(second.text)).toEqual(['counts_get_all']);
    expect(await aliasesAfter(undigested(second.catalogue.source.version))).toEqual(['counts_get_all']);
    expect(await aliasesAfter(undigested('0.0.0-other'))).toEqual([]);
  });

  it('names from meaning keep the path-style names an older generator gave as aliases, and tools/call takes them', async () => {
    // A spec that names its operations after their paths, as Stripe does.
    const ok = { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } };
    const spec = join(tmp(), 'spec.json');
    writeFileSync(
      spec,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'Shop', version: '1' },
        paths: {
          '/v1/customers': { get: { operationId: 'GetCustomers', responses: ok }, post: { operationId: 'PostCustomers', responses: ok } },
          '/v1/customers/{customer}': {
            parameters: [{ name: 'customer', in: 'path', required: true, schema: { type: 'string' } }],
            get: { operationId: 'GetCustomersCustomer', responses: ok },
            post: { operationId: 'PostCustomersCustomer', description: 'Updates the specified customer.', responses: ok },
            delete: { operationId: 'DeleteCustomersCustomer', description: 'Permanently deletes a customer.', responses: ok },
          },
        },
      }),
    );
    const now = await buildCatalogue(spec);
    expect(now.catalogue.tools.map((t) => t.name).sort()).toEqual(['customers_create', 'customers_delete', 'customers_get', 'customers_list', 'customers_update']);
    // The same catalogue as the previous generator named it: the HTTP method and the path's words.
    const older = await readCatalogue(now.text);
    for (const t of older.tools) t.name = snake(`${t.http.method}_${t.http.path.replace(/\{(\w+)\}/g, '$1').replace('/v1/', '')}`);
    const again = await buildCatalogue(spec, { previous: { text: JSON.stringify({ ...older, format: 1 }) } });
    const update = again.catalogue.tools.find((t) => t.name === 'customers_update')!;
    expect(update.aliases).toEqual(['post_customers_customer']);
    expect(again.report.names.deprecated.map((d) => `${d.from} -> ${d.to}`).sort()).toEqual([
      'delete_customers_customer -> customers_delete',
      'get_customers -> customers_list',
      'get_customers_customer -> customers_get',
      'post_customers -> customers_create',
      'post_customers_customer -> customers_update',
    ]);
    const loaded = loadCatalogue(again.text);
    expect(loaded.byName.get('post_customers_customer')?.name).toBe('customers_update');
    expect([...loaded.names()]).not.toContain('post_customers_customer');
  });

  it('does not give an old name to a tool when another tool now has it', async () => {
    const first = await buildCatalogue(MINI);
    const swapped = miniVariant((d) => {
      d.paths['/counts'].get.operationId = 'listPets';
      d.paths['/pets'].get.operationId = 'counts/get-all';
    });
    const r = await buildCatalogue(swapped, { previous: { text: first.text } });
    expect(r.catalogue.tools.flatMap((t) => t.aliases ?? [])).toEqual([]);
    expect(r.report.names.skipped.map((x) => `${x.from} -> ${x.to}`).sort()).toEqual(['counts_get_all -> list_pets', 'list_pets -> counts_get_all']);
  });
});
