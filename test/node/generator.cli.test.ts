// The catalogue CLI (npm run catalog): atomic writes, --check on catalog.txt, declarations.txt and toolsnaps, failed builds that leave
// the previous files untouched, default overrides.
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { describe, expect, it, vi } from 'vitest';
import { main } from '../../scripts/catalog/cli.ts';
import { readCatalogueDir } from '../../scripts/catalog/catalogue-files.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { CatalogueTool } from '../../src/catalogue/types.ts';

const MINI = new URL('./fixtures/mini.yaml', import.meta.url).pathname;
const tmp = () => mkdtempSync(join(tmpdir(), 'catalogue-cli-test-'));

describe('CLI', () => {
  const quiet = () => vi.spyOn(process.stderr, 'write').mockImplementation(() => true);

  it('writes catalog.txt atomically, --check passes, then reports drift and exits non-zero', async () => {
    const err = quiet();
    try {
      const dir = tmp();
      const spec = join(dir, 'spec.yaml');
      copyFileSync(MINI, spec);
      const out = join(dir, 'out');
      expect(await main(['--spec', spec, '--out', out, '--quiet'])).toBe(0);
      const text = readFileSync(join(out, 'catalog.txt'), 'utf8');
      expect(loadCatalogue(text).count).toBe(9);
      expect(existsSync(join(out, 'report.md'))).toBe(true);
      expect(await main(['--spec', spec, '--out', out, '--check', '--quiet'])).toBe(0);

      const doc = YAML.parse(readFileSync(spec, 'utf8'));
      doc.paths['/owners'] = { get: { operationId: 'listOwners', responses: { 200: { description: 'ok' } } } };
      doc.paths['/pets'].get.parameters.push({ name: 'species', in: 'query', required: true, schema: { type: 'string' } });
      writeFileSync(spec, YAML.stringify(doc));
      err.mockClear();
      expect(await main(['--spec', spec, '--out', out, '--check', '--quiet'])).toBe(1);
      const printed = err.mock.calls.map((c) => String(c[0])).join('');
      expect(printed).toMatch(/out of date/);
      expect(printed).toMatch(/added 1/);
      expect(printed).toMatch(/list_owners/);
      expect(printed).toMatch(/list_pets: argument species now required/);
      // Only what changed is reported: the catalogue read back from disk must compare equal tool by tool.
      expect(printed).toMatch(/output schema changes 0,/);
      expect(printed).toMatch(/binding changes 1\b/);
      expect(readFileSync(join(out, 'catalog.txt'), 'utf8')).toBe(text); // --check never writes
    } finally {
      err.mockRestore();
    }
  });

  it('writes code mode declarations beside the catalogue; --check fails when they are stale or missing', async () => {
    const err = quiet();
    const printed = () => err.mock.calls.map((c) => String(c[0])).join('');
    try {
      const out = join(tmp(), 'out');
      expect(await main(['--spec', MINI, '--out', out, '--quiet'])).toBe(0);
      const file = join(out, 'declarations.txt');
      const written = readFileSync(file, 'utf8');
      const catalogue = await readCatalogueDir(out);
      const doc = JSON.parse(written) as { catalogueHash: string; tools: Record<string, { fn: string }> };
      expect(doc.catalogueHash).toBe(catalogue.hash);
      expect(Object.keys(doc.tools).sort()).toEqual(catalogue.tools.map((t) => t.name).sort());
      expect(doc.tools.list_pets!.fn).toMatch(/^\/\*\* .+ \*\/\nfunction list_pets\(/);
      const check = async () => {
        err.mockClear();
        return main(['--spec', MINI, '--out', out, '--check', '--quiet']);
      };
      expect(await check()).toBe(0);
      expect(printed()).toMatch(/declarations\.txt is up to date/);
      writeFileSync(file, written.replace('function list_pets(', 'function list_pets_old('));
      expect(await check()).toBe(1);
      expect(printed()).toMatch(/declarations\.txt is out of date with the catalogue/);
      expect(printed()).toMatch(/catalog\.txt is up to date/);
      unlinkSync(file);
      expect(await check()).toBe(1);
      expect(printed()).toMatch(/declarations\.txt is missing/);
      expect(await main(['--spec', MINI, '--out', out, '--quiet'])).toBe(0);
      expect(readFileSync(file, 'utf8')).toBe(written);
    } finally {
      err.mockRestore();
    }
  });

  it('--check compares toolsnaps: a changed, extra or missing snapshot fails with its file named', async () => {
    const err = quiet();
    const printed = () => err.mock.calls.map((c) => String(c[0])).join('');
    try {
      const out = join(tmp(), 'out');
      const snaps = join(out, 'toolsnaps');
      expect(await main(['--spec', MINI, '--out', out, '--toolsnaps', '--quiet'])).toBe(0);
      const files = readdirSync(snaps).sort();
      expect(files).toHaveLength(9);
      const check = async () => {
        err.mockClear();
        return main(['--spec', MINI, '--out', out, '--toolsnaps', '--check', '--quiet']);
      };
      expect(await check()).toBe(0);
      expect(printed()).toMatch(/toolsnaps is up to date \(9 snapshots\)/);

      const changed = join(snaps, 'list_pets.json');
      const original = readFileSync(changed, 'utf8');
      writeFileSync(changed, original.replace('"GET"', '"POST"'));
      expect(await check()).toBe(1);
      expect(printed()).toMatch(/toolsnaps is out of date: 1 changed, 0 extra, 0 missing/);
      expect(printed()).toMatch(/changed: list_pets\.json/);
      expect(printed()).toMatch(/catalog\.txt is up to date/); // only the snapshot drifted
      writeFileSync(changed, original);

      writeFileSync(join(snaps, 'gone_tool.json'), '{}\n');
      expect(await check()).toBe(1);
      expect(printed()).toMatch(/0 changed, 1 extra, 0 missing/);
      expect(printed()).toMatch(/extra \(no such tool\): gone_tool\.json/);
      unlinkSync(join(snaps, 'gone_tool.json'));

      unlinkSync(join(snaps, files[0]!));
      expect(await check()).toBe(1);
      expect(printed()).toMatch(/0 changed, 0 extra, 1 missing/);
      expect(printed()).toContain(`missing: ${files[0]}`);
      expect(printed()).toMatch(/Run `npm run catalog` to regenerate/);
      expect(existsSync(join(snaps, files[0]!))).toBe(false); // --check never writes

      // Without --toolsnaps (and not the default spec) snapshots are neither written nor checked.
      err.mockClear();
      expect(await main(['--spec', MINI, '--out', out, '--check', '--quiet'])).toBe(0);
      expect(printed()).not.toMatch(/toolsnaps/);
      expect(await main(['--spec', MINI, '--out', out, '--toolsnaps', '--quiet'])).toBe(0);
      expect(await check()).toBe(0);
    } finally {
      err.mockRestore();
    }
  });

  it('the committed catalogue and its toolsnaps are up to date (what CI checks)', async () => {
    const err = quiet();
    try {
      expect(await main(['--check', '--quiet'])).toBe(0);
      const printed = err.mock.calls.map((c) => String(c[0])).join('');
      expect(printed).toMatch(/catalog\/catalog\.txt is up to date/);
      expect(printed).toMatch(/catalog\/toolsnaps is up to date \(\d+ snapshots\)/);
    } finally {
      err.mockRestore();
    }
  });

  it('leaves the previous catalogue untouched when the spec is missing or broken', async () => {
    const err = quiet();
    try {
      const dir = tmp();
      const out = join(dir, 'out');
      expect(await main(['--spec', MINI, '--out', out, '--quiet'])).toBe(0);
      const before = readFileSync(join(out, 'catalog.txt'), 'utf8');
      err.mockClear();
      expect(await main(['--spec', join(dir, 'missing.yaml'), '--out', out, '--quiet'])).toBe(1);
      expect(err.mock.calls.map((c) => String(c[0])).join('')).toMatch(/Cannot read spec file .*missing\.yaml/);
      const broken = join(dir, 'broken.json');
      writeFileSync(broken, '{"openapi": "3.0.0", "paths": {');
      err.mockClear();
      expect(await main(['--spec', broken, '--out', out, '--quiet'])).toBe(1);
      expect(err.mock.calls.map((c) => String(c[0])).join('')).toMatch(/broken\.json is not valid JSON/);
      // A YAML mistake names its line and shows it, with a caret under the place (not a message ending in "column 3:").
      const badYaml = join(dir, 'bad.yaml');
      writeFileSync(badYaml, '\n\nopenapi: 3.0.0\npaths:\n  /a:\n    get: {responses: {"200": {description: ok}\n  bad: [\n');
      err.mockClear();
      expect(await main(['--spec', badYaml, '--out', out, '--quiet'])).toBe(1);
      const yamlMessage = err.mock.calls.map((c) => String(c[0])).join('');
      expect(yamlMessage).toMatch(/bad\.yaml is neither JSON nor valid YAML: .* at line 7, column 3\n/);
      expect(yamlMessage).toContain('  bad: [\n  ^');
      const badJson = join(dir, 'bad.json');
      writeFileSync(badJson, '{"openapi": "3.0.0",\n "info": {"title": "x" "version": "1"}}\n');
      err.mockClear();
      expect(await main(['--spec', badJson, '--out', out, '--quiet'])).toBe(1);
      expect(err.mock.calls.map((c) => String(c[0])).join('')).toContain(' "info": {"title": "x" "version": "1"}}\n                           ^');
      const notOpenapi = join(dir, 'x.yaml');
      writeFileSync(notOpenapi, 'hello: world\n');
      expect(await main(['--spec', notOpenapi, '--out', out, '--quiet'])).toBe(1);
      expect(readFileSync(join(out, 'catalog.txt'), 'utf8')).toBe(before);
      expect(readdirSync(out).sort()).toEqual(['catalog.txt', 'declarations.txt', 'report.md', 'shards']);
      expect(await main(['--bogus'])).toBe(2);
    } finally {
      err.mockRestore();
    }
  });

  it('uses <out>/overrides.json by default and reports renames', async () => {
    const err = quiet();
    try {
      const out = join(tmp(), 'out');
      expect(await main(['--spec', MINI, '--out', out, '--quiet'])).toBe(0);
      writeFileSync(join(out, 'overrides.json'), JSON.stringify({ tools: { list_pets: { rename: 'pets_list' } } }));
      expect(await main(['--spec', MINI, '--out', out, '--quiet'])).toBe(0);
      const cat = await readCatalogueDir(out);
      expect(cat.tools.find((t: CatalogueTool) => t.name === 'pets_list')?.aliases).toEqual(['list_pets']);
      expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(/list_pets -> pets_list/);
      writeFileSync(join(out, 'overrides.json'), JSON.stringify({ tools: { nope: { hidden: true } } }));
      expect(await main(['--spec', MINI, '--out', out, '--quiet'])).toBe(1);
    } finally {
      err.mockRestore();
    }
  });
});
