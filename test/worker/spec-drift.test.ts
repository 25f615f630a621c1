// The spec drift check inside workerd: the shared document functions (parse, digest, fingerprints), the check's
// failure paths against the real loopback upstream (down, reset, malformed, not OpenAPI, too large declared and
// streamed, compressed past the limit, slow), what /healthz and /admin/schema-health show, and the baseline asset.
// The success path against a spec that really changes runs end to end in test/e2e/spec-drift.test.ts.
import { env as bindings } from 'cloudflare:workers';
import { afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import YAML from 'yaml';
import { createApp } from '../../src/app.ts';
import catalogueText from 'catalog-data';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { loadBaseline } from '../../src/spec-drift/baseline.ts';
import { runDriftCheck, specDriftScheduled } from '../../src/spec-drift/check.ts';
import { driftSettings } from '../../src/spec-drift/settings.ts';
import { canonicalJson, compareOperations, hasExternalRef, openApiVersion, operationFingerprints as fingerprintsOf, parseSpecText, sortedDocument, specDigest as digestOf } from '../../src/spec-drift/spec-document.ts';
import { DRIFT_KEY, writeDrift, type DriftRecord } from '../../src/spec-drift/store.ts';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';

const upstream = inject('upstreamUrl');
const ADMIN = 'admin-secret-0123456789';
const SPEC_DIGEST = '0123456789abcdef';

async function catalogueWithSource(spec: string, digest: string | undefined = SPEC_DIGEST) {
  const c = fixtureCatalogue();
  c.source = { ...c.source, spec, ...(digest ? { digest } : {}) };
  return loadCatalogue(await encodeCatalogue(c));
}

const petstore = {
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1' },
  paths: {
    '/pets': {
      parameters: [{ name: 'tenant', in: 'header', schema: { type: 'string' } }],
      get: { responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Pet' } } } } } } },
      post: { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } } }, responses: { 201: { description: 'made' } } },
    },
    '/pets/{id}': { get: { responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } } } } },
    '/owners': { $ref: '#/components/pathItems/Owners' },
  },
  components: {
    schemas: {
      Pet: { type: 'object', properties: { id: { type: 'integer' }, owner: { $ref: '#/components/schemas/Owner' } } },
      Owner: { type: 'object', properties: { name: { type: 'string' } } },
      NewPet: { type: 'object', properties: { name: { type: 'string' } } },
      Unused: { type: 'string' },
    },
    pathItems: { Owners: { get: { responses: { 200: { description: 'ok' } } } } },
  },
};
const clone = <T>(v: T): T => structuredClone(v);
const specDigest = (doc: unknown) => digestOf(sortedDocument(doc));
const operationFingerprints = (doc: unknown) => fingerprintsOf(sortedDocument(doc));

describe('the spec document as the generator and the Worker read it', () => {
  it('canonical JSON sorts keys at every level and drops undefined members, whatever the input order', () => {
    const value = { b: 1, a: { d: [{ z: 1, y: undefined, x: 2 }], c: null } };
    expect(canonicalJson(value)).toBe('{"a":{"c":null,"d":[{"x":2,"z":1}]},"b":1}');
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
    // The Worker sorts its own parsed copy in place; the generator sorts a copy and builds from the original.
    const mine = clone(petstore);
    expect(JSON.stringify(sortedDocument(mine, { consume: true }).root)).toBe(canonicalJson(petstore));
    const kept = clone(value);
    expect(JSON.stringify(sortedDocument(kept).root)).toBe(canonicalJson(value));
    expect(Object.keys(kept)).toEqual(['b', 'a']);
  });

  it('digests the same document alike from JSON and from YAML, and differently once anything changes', async () => {
    const fromJson = await parseSpecText(`\uFEFF  ${JSON.stringify(petstore, null, 2)}`);
    const fromYaml = await parseSpecText(YAML.stringify(petstore));
    expect(await specDigest(fromYaml)).toBe(await specDigest(fromJson));
    expect(await specDigest(fromJson)).toMatch(/^[0-9a-f]{16}$/);
    const edited = clone(petstore);
    edited.info.title = 'Pets!';
    expect(await specDigest(edited)).not.toBe(await specDigest(fromJson));
  });

  it('fingerprints each operation by its own text and everything it references, and nothing else', async () => {
    const before = await operationFingerprints(petstore);
    expect(Object.keys(before).sort()).toEqual(['GET /owners', 'GET /pets', 'GET /pets/{id}', 'POST /pets']);
    const fp = async (edit: (d: typeof petstore) => void) => {
      const d = clone(petstore);
      edit(d);
      return compareOperations(before, await operationFingerprints(d));
    };
    // A schema two references deep: exactly the operations that reach it.
    expect(await fp((d) => void ((d.components.schemas.Owner.properties as Record<string, unknown>).email = { type: 'string' }))).toEqual({ added: [], removed: [], changed: ['GET /pets', 'GET /pets/{id}'] });
    // A path-level parameter belongs to every operation of the path.
    expect((await fp((d) => void (d.paths['/pets'].parameters[0]!.name = 'org'))).changed).toEqual(['GET /pets', 'POST /pets']);
    // A path item behind a $ref.
    expect((await fp((d) => void ((d.components.pathItems.Owners.get as Record<string, unknown>).summary = 'List owners'))).changed).toEqual(['GET /owners']);
    // Nothing an operation uses: info, an unused schema.
    expect(await fp((d) => void ((d.info.title = 'x'), (d.components.schemas.Unused.type = 'integer')))).toEqual({ added: [], removed: [], changed: [] });
    expect(await fp((d) => void ((d.paths as Record<string, unknown>)['/toys'] = { delete: { responses: {} } }, delete (d.paths as Record<string, unknown>)['/pets/{id}']))).toEqual({
      added: ['DELETE /toys'],
      removed: ['GET /pets/{id}'],
      changed: [],
    });
  });

  it('fingerprints Swagger 2.0 as written: #/definitions are references like any other', async () => {
    const swagger = { swagger: '2.0', info: { title: 't', version: '1' }, paths: { '/a': { get: { responses: { 200: { description: 'ok', schema: { $ref: '#/definitions/A' } } } } }, '/b': { get: { responses: { 200: { description: 'ok' } } } } }, definitions: { A: { type: 'object' } } };
    expect(openApiVersion(swagger)).toBe('2.0');
    const before = await operationFingerprints(swagger);
    const after = clone(swagger);
    after.definitions.A = { type: 'object', properties: { n: { type: 'integer' } } } as never;
    expect(compareOperations(before, await operationFingerprints(after)).changed).toEqual(['GET /a']);
  });

  it('refuses what is not an OpenAPI 3.x or Swagger 2.0 document, and flags external references', async () => {
    await expect(parseSpecText('{"openapi": "3.0.0", "paths": {')).rejects.toThrow(/not valid JSON/);
    await expect(parseSpecText('a: [1, 2\nb: }')).rejects.toThrow(/neither JSON nor valid YAML/);
    expect(() => openApiVersion(YAML.parse('# Title\n\nsome text'))).toThrow(/not an OpenAPI document/);
    expect(() => openApiVersion({ openapi: '4.0.0', paths: {} })).toThrow(/not an OpenAPI 3.0\/3.1 or Swagger 2.0 document/);
    expect(() => openApiVersion({ openapi: '3.1.0' })).toThrow(/no "paths" object/);
    expect(hasExternalRef(petstore)).toBe(false);
    expect(hasExternalRef({ paths: { '/a': { get: { responses: { 200: { $ref: 'common.yaml#/responses/Ok' } } } } } })).toBe(true);
    // A YAML bomb stops at the alias limit instead of expanding.
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...Array.from({ length: 9 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9).fill(`*${String.fromCharCode(97 + i)}`).join(',')}]`)].join('\n');
    await expect(parseSpecText(bomb)).rejects.toThrow(/neither JSON nor valid YAML/);
  });
});

describe('settings', () => {
  it('watches the catalogue source when it is a URL, SPEC_URL otherwise, and nothing when off', () => {
    expect(driftSettings({}, 'node_modules/x/spec.json')).toMatchObject({ enabled: false, reason: expect.stringMatching(/built from a file/) });
    expect(driftSettings({}, 'https://api.example.com/openapi.json')).toMatchObject({ enabled: true, url: 'https://api.example.com/openapi.json', timeoutMs: 15000, maxBytes: 16777216 });
    expect(driftSettings({ SPEC_URL: 'off' }, 'https://api.example.com/openapi.json')).toMatchObject({ enabled: false });
    const own = driftSettings({ SPEC_URL: 'https://user:pw@specs.example.com/v2.yaml?token=s3cret#x', SPEC_CHECK_CRON: '5 * * * *', SPEC_AUTH_HEADER: 'X-Api-Key: k' }, 'spec.json');
    expect(own).toMatchObject({ enabled: true, source: 'https://specs.example.com/v2.yaml', cron: '5 * * * *', authHeader: ['X-Api-Key', 'k'] });
    expect(driftSettings({ SPEC_URL: 'ftp://example.com/spec' }, 'x')).toMatchObject({ enabled: true, invalid: 'SPEC_URL must be an http(s) URL' });
  });
});

describe('a check that cannot read the spec', () => {
  const lines: string[] = [];
  beforeEach(() => {
    lines.length = 0;
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
  });
  afterEach(() => vi.restoreAllMocks());
  const events = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e.event === 'spec_drift_check');

  const stale: DriftRecord = { v: 1, catalogueDigest: SPEC_DIGEST, source: '', checkedAt: '2026-01-01T00:00:00.000Z', stale: true, added: 2, removed: 1, changed: 3, digest: 'feedfacefeedface', readAt: '2026-01-01T00:00:00.000Z', baseline: 'asset', operations: { added: ['GET /a', 'GET /b'], removed: ['GET /c'], changed: [] } };

  const cases: Array<[string, string, Record<string, string>, RegExp]> = [
    ['down (HTTP 503)', '/status/503', {}, /^the spec answered HTTP 503/],
    ['down (not found)', '/nowhere/openapi.json', {}, /^the spec answered HTTP 404/],
    ['down (connection reset)', '/reset', {}, /^cannot fetch the spec/],
    ['malformed JSON', '/json/invalid', {}, /^not valid JSON/],
    ['JSON that is not OpenAPI', '/json/object', {}, /^not an OpenAPI 3.0\/3.1 or Swagger 2.0 document/],
    ['a page that is not a spec', '/readme.md', {}, /^not an OpenAPI document|^neither JSON nor valid YAML/],
    ['too large by Content-Length', '/big?mb=1&length=1', { SPEC_MAX_BYTES: '100000' }, /^the spec is larger than SPEC_MAX_BYTES \(100000 bytes\)/],
    ['too large while streaming', '/big?mb=1', { SPEC_MAX_BYTES: '100000' }, /^the spec is larger than SPEC_MAX_BYTES/],
    ['too large once decompressed', '/gzip-bomb', { SPEC_MAX_BYTES: '1000000' }, /^the spec is larger than SPEC_MAX_BYTES/],
    ['too slow to answer', '/slow-headers?ms=5000', { SPEC_CHECK_TIMEOUT_MS: '300' }, /^no complete answer within 300 ms/],
    ['too slow to finish', '/slow-body?ms=5000', { SPEC_CHECK_TIMEOUT_MS: '300' }, /^no complete answer within 300 ms/],
  ];
  for (const [what, path, vars, error] of cases) {
    it(`reports ${what}, keeps the last good comparison and serves on`, async () => {
      const url = `${upstream}${path}`;
      const loaded = await catalogueWithSource(url);
      const env = { KEYS: bindings.KEYS, ...vars };
      const source = driftSettings(vars, url);
      await writeDrift(env, { ...stale, source: source.enabled ? source.source : '' });
      const record = await runDriftCheck(env, loaded);
      expect(record!.error).toMatch(error);
      // Never marked stale (or fresh) by a failed read: the last good comparison stands.
      expect(record).toMatchObject({ stale: true, added: 2, removed: 1, changed: 3, digest: 'feedfacefeedface', readAt: stale.readAt });
      expect(record!.checkedAt > stale.checkedAt).toBe(true);
      expect(JSON.parse((await bindings.KEYS.get(DRIFT_KEY))!)).toEqual(JSON.parse(JSON.stringify(record)));
      expect(events()).toEqual([expect.objectContaining({ event: 'spec_drift_check', outcome: 'error', stale: true, stored: 'written', error: record!.error })]);
      expect(lines.join('\n')).not.toContain('token=');
      const health = await (await createApp(loaded).fetch(new Request('http://127.0.0.1/healthz'), env as never)).json();
      expect(health).toMatchObject({ status: 'ok', specDrift: { enabled: true, stale: true, added: 2, removed: 1, changed: 3, error: record!.error } });
    });
  }

  it('starts from stale: false when a first check fails', async () => {
    const url = `${upstream}/status/503?first=1`;
    const loaded = await catalogueWithSource(url, 'aaaaaaaaaaaaaaaa');
    const record = await runDriftCheck({ KEYS: bindings.KEYS }, loaded);
    expect(record).toMatchObject({ stale: false, added: 0, removed: 0, changed: 0, error: expect.stringMatching(/HTTP 503/) });
    expect(record!.digest).toBeUndefined();
  });

  it('never shows a query string: the source, the error and the log carry the URL without it', async () => {
    const url = `${upstream}/status/404?token=s3cret`;
    // A file source and no SPEC_URL: no check at all.
    expect(await runDriftCheck({ KEYS: bindings.KEYS }, await catalogueWithSource('spec.json'))).toBeUndefined();
    const checked = await runDriftCheck({ KEYS: bindings.KEYS, SPEC_URL: url }, await catalogueWithSource('spec.json'));
    expect(checked!.source).toBe(`${upstream}/status/404`);
    expect(JSON.stringify(checked) + lines.join('\n')).not.toContain('s3cret');
  });

  it('runs only on SPEC_CHECK_CRON when it is set', async () => {
    const loaded = await catalogueWithSource(`${upstream}/status/503`);
    const env = { KEYS: bindings.KEYS, SPEC_CHECK_CRON: '5 * * * *' };
    await specDriftScheduled({ cron: '17 * * * *', scheduledTime: Date.now() }, env, loaded);
    expect(events()).toEqual([]);
    await specDriftScheduled({ cron: '5 * * * *', scheduledTime: Date.now() }, env, loaded);
    expect(events()).toHaveLength(1);
  });
});

describe('what /healthz and /admin/schema-health show', () => {
  const admin = { authorization: `Bearer ${ADMIN}` };
  const get = async (loaded: Awaited<ReturnType<typeof catalogueWithSource>>, path: string, env: object, headers: Record<string, string> = {}) =>
    (await (await createApp(loaded).fetch(new Request(`http://127.0.0.1${path}`, { headers }), env as never)).json()) as { specDrift: Record<string, unknown> };

  it('says when nothing is watched', async () => {
    const loaded = await catalogueWithSource('node_modules/spec.json');
    expect((await get(loaded, '/healthz', { KEYS: bindings.KEYS })).specDrift).toEqual({
      enabled: false,
      stale: false,
      checkedAt: null,
      source: null,
      added: 0,
      removed: 0,
      changed: 0,
      reason: 'the catalogue was built from a file; set SPEC_URL to the live spec to check it',
    });
  });

  it('shows the stored outcome with the same fields in both, names and digests only to the admin', async () => {
    const url = 'https://specs.example.com/openapi.json';
    const loaded = await catalogueWithSource(url);
    const env = { KEYS: bindings.KEYS, ADMIN_TOKEN: ADMIN };
    const before = (await get(loaded, '/healthz', env)).specDrift;
    expect(before).toEqual({ enabled: true, stale: false, checkedAt: null, source: url, added: 0, removed: 0, changed: 0 });
    const record: DriftRecord = { v: 1, catalogueDigest: SPEC_DIGEST, source: url, checkedAt: '2026-02-02T10:00:00.000Z', stale: true, added: 1, removed: 1, changed: 0, digest: 'ffffffffffffffff', readAt: '2026-02-02T10:00:00.000Z', baseline: 'asset', operations: { added: ['POST /owners'], removed: ['DELETE /pets/{id}'], changed: [] } };
    await writeDrift(env, record);
    const health = (await get(loaded, '/healthz', env)).specDrift;
    expect(health).toEqual({ enabled: true, stale: true, checkedAt: record.checkedAt, source: url, added: 1, removed: 1, changed: 0 });
    const detail = (await get(loaded, '/admin/schema-health', env, admin)).specDrift;
    expect(detail).toMatchObject({ ...health, catalogueDigest: SPEC_DIGEST, digest: 'ffffffffffffffff', operations: record.operations, schedule: 'every cron trigger' });
    // A record made for another catalogue (a redeploy) is not this catalogue's status.
    const other = await catalogueWithSource(url, 'bbbbbbbbbbbbbbbb');
    expect((await get(other, '/healthz', env)).specDrift).toMatchObject({ stale: false, checkedAt: null });
  });
});

describe('the baseline', () => {
  it('is the generator’s spec-operations.json asset when it matches the catalogue, else the served operations', async () => {
    const github = loadCatalogue(catalogueText);
    const asset = await loadBaseline(github, bindings.ASSETS);
    expect(asset.kind).toBe('asset');
    expect(Object.keys(asset.operations)).toHaveLength(github.count);
    expect(asset.operations['GET /repos/{owner}/{repo}']).toMatch(/^[0-9a-f]{12}$/);
    // Another catalogue with the same assets: the asset's digest is not its spec's, so its own tools are the baseline.
    const fixture = await catalogueWithSource('https://x.example/spec.json');
    expect(await loadBaseline(fixture, bindings.ASSETS)).toEqual({ kind: 'catalogue', operations: { 'DELETE /echo/{id}': null, 'GET /echo/{id}': null } });
    expect((await loadBaseline(fixture, undefined)).kind).toBe('catalogue');
    // Without fingerprints, existing operations cannot be compared: only added and removed count.
    expect(compareOperations({ 'GET /a': null, 'GET /b': null }, { 'GET /a': 'x', 'GET /c': 'y' })).toEqual({ added: ['GET /c'], removed: ['GET /b'], changed: [] });
  });
});
