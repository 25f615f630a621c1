// Focused generator tests on small fixture specs: naming, clashes, conversions, overrides, URL specs.
import { createServer, type Server } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogue, OverridesError, SpecError, type BuildResult } from '../../scripts/catalog/build.ts';
import { assignToolNames, argName, baseToolName, isHashedName } from '../../scripts/catalog/naming.ts';
import type { CatalogueTool, JsonSchema } from '../../src/catalogue/types.ts';
import { namesProblems, structuralProblems } from '../../scripts/catalog/client-rules.ts';
import { isJsonOrJsonWildcard } from '../../scripts/catalog/json-media-type.ts';
import { listWithV1Client, wireTools } from './fixtures/corpus-suite.ts';
import { MINI, miniVariant, tmp } from './fixtures/mini-spec.ts';

const fx = (f: string) => new URL(`./fixtures/${f}`, import.meta.url).pathname;
const tool = (r: BuildResult, name: string): CatalogueTool => {
  const t = r.catalogue.tools.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name} in ${r.catalogue.tools.map((x) => x.name).join(', ')}`);
  return t;
};
const props = (s: JsonSchema | undefined) => (s?.properties ?? {}) as Record<string, JsonSchema>;

describe('naming', () => {
  it('derives snake_case names from operationIds and method+path', () => {
    expect(baseToolName('repos/list-for-org', 'get', '/x')).toBe('repos_list_for_org');
    expect(baseToolName('GetAccountsAccountBankAccountsId', 'get', '/x')).toBe('get_accounts_bank_accounts_id'); // a word said twice in a row, either number, once
    expect(baseToolName('listPets', 'get', '/x')).toBe('list_pets');
    expect(baseToolName('2fa/enable', 'post', '/x')).toBe('op_2fa_enable');
    // Without an operationId: the resource then the action (docs/naming.md, "Names from meaning").
    expect(baseToolName(undefined, 'get', '/pets/{petId}/photos')).toBe('pets_photos_list');
    expect(assignToolNames([{ key: 'GET /pets/{petId}/photos', method: 'get', path: '/pets/{petId}/photos' }], 41).get('GET /pets/{petId}/photos')).toBe('pet_photos_list');
    // Plural acronyms stay one word.
    expect(baseToolName('floatingIPs_list', 'get', '/x')).toBe('floating_ips_list');
    expect(baseToolName('getAPIsForUserIDs', 'get', '/x')).toBe('get_apis_for_user_ids');
  });

  it('resolves collisions deterministically: the operationId owner keeps the plain name, the others get the path word that tells them apart', () => {
    const cands = [
      { key: 'GET /b', operationId: 'list-things', method: 'get', path: '/b' },
      { key: 'GET /a', operationId: 'listThings', method: 'get', path: '/a' },
      { key: 'GET /list/things', method: 'get', path: '/list/things' },
      { key: 'POST /list_things', operationId: undefined, method: 'post', path: '/list_things' },
    ];
    const n1 = assignToolNames(cands, 40);
    const n2 = assignToolNames([...cands].reverse(), 40);
    expect([...n1.entries()].sort()).toEqual([...n2.entries()].sort());
    expect(n1.get('GET /a')).toBe('list_things'); // operationId, smallest key
    expect(n1.get('GET /b')).toBe('list_things_b');
    expect(n1.get('GET /list/things')).toBe('things_list'); // a leading verb segment is the action
    expect(n1.get('POST /list_things')).toBe('list_things_create');
    expect([...n1.values()].some(isHashedName)).toBe(false);
    expect(new Set(n1.values()).size).toBe(cands.length);
  });

  it('keeps every existing name when operations are added', async () => {
    const before = await buildCatalogue(MINI);
    const after = await buildCatalogue(
      miniVariant((d) => {
        d.paths['/owners'] = { get: { operationId: 'listOwners', responses: { 200: { description: 'ok' } } } };
        d.paths['/aaa/{x}'] = { post: { parameters: [{ name: 'x', in: 'path', required: true, schema: { type: 'string' } }], responses: { 204: { description: 'ok' } } } };
        d.paths['/z'] = { get: { operationId: 'getTheWholeTreeOfNodesIncludingEveryDescendantRecursivelyToo', responses: { 200: { description: 'ok' } } } };
      }),
    );
    const key = (t: CatalogueTool) => `${t.http.method} ${t.http.path}`;
    const names = new Map(after.catalogue.tools.map((t) => [key(t), t.name]));
    for (const t of before.catalogue.tools) expect(names.get(key(t))).toBe(t.name);
    expect(after.catalogue.tools.length).toBe(before.catalogue.tools.length + 3);
    // and the schemas of the old tools do not change either
    const outs = new Map(after.catalogue.tools.map((t) => [key(t), JSON.stringify([t.inputSchema, t.outputSchema])]));
    for (const t of before.catalogue.tools) expect(outs.get(key(t))).toBe(JSON.stringify([t.inputSchema, t.outputSchema]));
  });

  it('sanitises argument names', () => {
    expect(argName('expand[]')).toBe('expand');
    expect(argName('filter[name]')).toBe('filter_name');
    expect(argName('X-Request-Id')).toBe('X-Request-Id');
    expect(argName('$top')).toBe('top');
    expect(argName('ü')).toBe('arg');
    expect(argName('a'.repeat(80))).toMatch(/^a{57}_[0-9a-f]{6}$/);
  });

  it('honours --max-name', async () => {
    const r = await buildCatalogue(MINI, { maxName: 20 });
    expect(r.catalogue.tools.map((t) => t.name).filter((n) => n.length > 20)).toEqual([]);
    expect(new Set(r.catalogue.tools.map((t) => t.name)).size).toBe(r.catalogue.tools.length);
    await expect(buildCatalogue(MINI, { maxName: 5 })).rejects.toThrow(/maxName/);
  });
});

describe('JSON media types', () => {
  it('reads JSON types and the two wildcards a JSON document satisfies as JSON, nothing else', () => {
    for (const t of ['application/json', 'application/json; charset=utf-8', 'text/json', 'application/vnd.github.v3+json', 'application/vnd.api.json', '*/*', 'application/*', 'Application/*; q=0.5']) {
      expect(isJsonOrJsonWildcard(t), t).toBe(true);
    }
    for (const t of ['text/*', 'image/*', 'application/x-ndjson', 'application/jsonl', 'application/json-seq', 'text/plain', 'application/octet-stream', '']) {
      expect(isJsonOrJsonWildcard(t), t).toBe(false);
    }
  });
});

describe('mini spec conversion', () => {
  let r: BuildResult;
  beforeAll(async () => {
    r = await buildCatalogue(MINI);
  });

  it('passes the client rules', async () => {
    expect(namesProblems(r.catalogue.tools)).toEqual([]);
    for (const t of r.catalogue.tools) {
      expect(structuralProblems(t.inputSchema, 'input'), t.name).toEqual([]);
      if (t.outputSchema) expect(structuralProblems(t.outputSchema, 'output'), t.name).toEqual([]);
    }
    expect(await listWithV1Client(wireTools(r.catalogue.tools))).toBe(r.catalogue.tools.length);
  });

  it('fills source, upstream (server variables) and toolsets', () => {
    expect(r.catalogue.source).toEqual({ title: 'Mini', version: '1.0', spec: MINI, openapi: '3.0.3', digest: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(r.catalogue.defaultUpstream).toBe('https://eu.example.com/api');
    expect(r.catalogue.toolsets.pets).toEqual({ description: 'Pet operations' });
    expect(tool(r, 'list_pets').toolsets).toEqual(['pets']);
    expect(tool(r, 'counts_get_all').toolsets).toEqual(['counts']); // untagged: first path segment
  });

  it('binds parameters with OpenAPI default styles and drops Accept headers', () => {
    const t = tool(r, 'list_pets');
    expect(t.http.params).toEqual([
      { arg: 'expand', name: 'expand[]', in: 'query', style: 'form', explode: true, required: false },
      { arg: 'limit', name: 'limit', in: 'query', style: 'form', explode: true, required: false },
      { arg: 'X-Request-Id', name: 'X-Request-Id', in: 'header', style: 'simple', explode: false, required: false },
      { arg: 'session', name: 'session', in: 'cookie', style: 'form', explode: true, required: false },
    ]);
    expect(props(t.inputSchema).limit).toEqual({ type: 'integer', exclusiveMinimum: 0, maximum: 100 });
    expect(t.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true, title: 'List pets' });
    expect(tool(r, 'pets_delete').annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
  });

  it('resolves a path/body name clash deterministically', () => {
    const t = tool(r, 'update_pet');
    expect(t.http.params.map((p) => p.arg)).toEqual(['name']);
    expect(t.http.body).toMatchObject({ mediaType: 'application/json', mode: 'merged', required: false });
    expect(t.http.body!.props!.body_name).toBe('name');
    expect(t.http.body!.props!.extra).toBe('extra'); // allOf flattened
    expect(props(t.inputSchema).name).toEqual({ type: 'string', pattern: '^[a-z]+$' });
    expect(props(t.inputSchema).extra).toEqual({ type: ['string', 'null'] });
    expect(r.report.warnings['arg-clash']!.count).toBeGreaterThan(0);
  });

  it('translates OpenAPI 3.0 schema keywords for inputs', () => {
    const t = tool(r, 'create_pet');
    const p = props(t.inputSchema);
    expect(p.id).toBeUndefined(); // readOnly dropped
    expect(p.secret).toEqual({ type: 'string' }); // writeOnly kept in inputs
    expect(p.owner).toEqual({ type: ['string', 'null'], format: 'email' });
    expect(p.name!.pattern).toBeUndefined(); // (?i) does not compile with u
    expect(p.tags).toEqual({ type: 'array', items: {} });
    expect(p.born).toEqual({ type: 'string', description: 'Format: dateTime.' }); // unknown format -> text
    expect(p.shape!.anyOf).toHaveLength(2);
    expect(t.inputSchema.required).toEqual(['name']); // id was required but is readOnly
    expect(JSON.stringify(t.inputSchema)).not.toMatch(/discriminator|example|xml|x-internal|additionalProperties/);
  });

  it('makes output schemas open, format-free and wraps non-object roots', () => {
    const t = tool(r, 'create_pet');
    expect(t.http.accept).toEqual(['application/vnd.mini.v1+json']);
    const o = t.outputSchema!;
    expect(o.type).toBe('object');
    expect(t.outputWrapped).toBeUndefined();
    expect(o.additionalProperties).toBeUndefined();
    expect(o.required).toBeUndefined();
    expect(props(o).secret).toBeUndefined(); // writeOnly dropped
    // Exact types (output-drift.ts): no null the spec does not declare, no string beside a number.
    expect(props(o).id).toEqual({ type: 'integer', description: 'Format: int64.' });
    expect(props(o).kind).toEqual({ type: 'string', description: 'One of: dog, cat.' });
    const list = tool(r, 'list_pets');
    expect(list.outputWrapped).toBe(true);
    expect(list.outputSchema).toMatchObject({ type: 'object', required: ['result'], properties: { result: { type: ['array', 'null'] } } });
    // a 204 next to the JSON 200: {result: null} must validate too
    expect(tool(r, 'counts_get_all').outputSchema).toEqual({ type: 'object', properties: { result: { type: ['integer', 'null'] } }, required: ['result'] });
    expect(tool(r, 'update_pet').outputSchema?.type).toBe('object'); // */* with a schema
  });

  it('handles non-JSON responses and binary / multipart bodies', () => {
    const photo = tool(r, 'get_pet_photo');
    expect(photo.outputSchema).toBeUndefined();
    expect(photo.http.accept).toEqual(['image/png']);
    const up = tool(r, 'upload_pet_photo');
    expect(up.http.body).toEqual({ mediaType: 'application/octet-stream', required: false, mode: 'wrapped', arg: 'body', binary: true });
    expect(props(up.inputSchema).body!.type).toBe('string');
    const files = tool(r, 'upload_pet_files');
    expect(files.http.body).toMatchObject({ mediaType: 'multipart/form-data', mode: 'merged', fileFields: ['file'], encoding: { file: { contentType: 'image/png' } } });
    expect(props(files.inputSchema).file).toMatchObject({ type: 'object', required: ['data'] });
    expect(files.http.accept).toEqual(['text/csv']);
    expect(files.outputSchema).toBeUndefined();
  });

  it('cuts recursion without overflowing, within the size budget', () => {
    const t = r.catalogue.tools.find((x) => x.http.path === '/tree')!;
    expect(t.name).toBe('get_tree_every_descendant_recursively'); // shortened by meaning (filler and frequent words out, verb and head noun kept), no hash
    expect(t.title).toBe('Get the whole tree of nodes including every descendant recursively'); // from the operationId, not the name
    expect(JSON.stringify(t.outputSchema).length).toBeLessThan(30_000);
    expect(r.report.warnings['depth-cut']!.count).toBeGreaterThan(0);
  });

  it('converts Swagger 2.0 (formData file, x-nullable, host/basePath)', async () => {
    const s = await buildCatalogue(fx('mini-swagger2.json'));
    expect(s.catalogue.source.openapi).toBe('2.0');
    expect(s.catalogue.defaultUpstream).toBe('https://api.example.org/v2');
    const up = tool(s, 'upload');
    expect(up.http.body).toMatchObject({ mediaType: 'multipart/form-data', mode: 'merged', fileFields: ['file'], required: true });
    expect(up.inputSchema.required).toEqual(['file']);
    expect(props(up.outputSchema).deleted_at).toEqual({ type: ['string', 'null'], description: 'Format: date-time.' });
    expect(tool(s, 'things_list').outputWrapped).toBe(true);
  });
});

describe('overrides', () => {
  it('applies rename (with alias), hidden, description, title, toolsets and outputSchema:false', async () => {
    const r = await buildCatalogue(MINI, {
      overrides: {
        tools: {
          list_pets: { rename: 'pets_list', description: 'All the pets.', title: 'Pets', toolsets: ['animals'] },
          counts_get_all: { hidden: true },
          create_pet: { outputSchema: false, reason: 'upstream returns extra shapes' },
        },
        toolsets: { animals: { description: 'Animal things' } },
      },
    });
    const t = tool(r, 'pets_list');
    expect(t.aliases).toEqual(['list_pets']);
    expect(t).toMatchObject({ description: 'All the pets.', title: 'Pets', toolsets: ['animals'] });
    expect(t.annotations.title).toBe('Pets');
    expect(r.catalogue.toolsets.animals).toEqual({ description: 'Animal things' });
    expect(r.catalogue.tools.some((x) => x.name === 'counts_get_all')).toBe(false);
    expect(r.catalogue.toolsets.counts).toBeUndefined();
    expect(r.report.hidden).toEqual(['counts_get_all']);
    const c = tool(r, 'create_pet');
    expect(c.outputSchema).toBeUndefined();
    expect(c.outputSchemaDropped).toBe('override: upstream returns extra shapes');
    expect(r.report.dropped).toEqual([{ tool: 'create_pet', reason: 'override: upstream returns extra shapes' }]);
    expect(namesProblems(r.catalogue.tools)).toEqual([]);
  });

  it('adds tools to curated toolsets in bulk (toolsets.<name>.tools) and rejects unknown members', async () => {
    const r = await buildCatalogue(MINI, { overrides: { tools: {}, toolsets: { core: { description: 'Core pets', tools: ['list_pets', 'create_pet'] } } } });
    expect(tool(r, 'list_pets').toolsets).toEqual(['core', 'pets']);
    expect(r.catalogue.toolsets.core).toEqual({ description: 'Core pets' });
    await expect(buildCatalogue(MINI, { overrides: { tools: {}, toolsets: { core: { description: 'x', tools: ['nope'] } } } })).rejects.toThrow(/nope/);
  });

  it('records defaultToolsets (served at bare /mcp) and rejects toolsets the catalogue does not have', async () => {
    const r = await buildCatalogue(MINI, { overrides: { tools: {}, defaultToolsets: ['pets'] } });
    expect(r.catalogue.defaultToolsets).toEqual(['pets']);
    expect((await buildCatalogue(MINI, { overrides: { tools: {} } })).catalogue.defaultToolsets).toBeUndefined();
    await expect(buildCatalogue(MINI, { overrides: { tools: {}, defaultToolsets: ['nope'] } })).rejects.toThrow(/defaultToolsets.*nope/);
    await expect(buildCatalogue(MINI, { overrides: { tools: {}, defaultToolsets: [] } as never })).rejects.toThrow(/defaultToolsets/);
  });

  it('rejects unknown tools, bad keys, outputSchema:false without reason and name conflicts', async () => {
    await expect(buildCatalogue(MINI, { overrides: { tools: { no_such_tool: { hidden: true } } } })).rejects.toThrow(OverridesError);
    await expect(buildCatalogue(MINI, { overrides: { tools: { no_such_tool: { hidden: true } } } })).rejects.toThrow(/no_such_tool/);
    await expect(buildCatalogue(MINI, { overrides: { tools: { list_pets: { outputSchema: false } } } as never })).rejects.toThrow(/reason/);
    await expect(buildCatalogue(MINI, { overrides: { tools: { list_pets: { colour: 'red' } } } as never })).rejects.toThrow(/unknown key "colour"/);
    await expect(buildCatalogue(MINI, { overrides: { tools: { list_pets: { rename: 'Bad-Name' } } } })).rejects.toThrow(/rename/);
    await expect(buildCatalogue(MINI, { overrides: { tools: { list_pets: { rename: 'create_pet' } } } })).rejects.toThrow(/create_pet/);
    const f = join(tmp(), 'overrides.json');
    writeFileSync(f, '{ "tools": { ');
    await expect(buildCatalogue(MINI, { overrides: f })).rejects.toThrow(/not valid JSON/);
  });
});

describe('URL specs', () => {
  let server: Server;
  let base = '';
  const seen: string[] = [];
  beforeAll(async () => {
    const yaml = readFileSync(MINI, 'utf8').replace(/servers:\n(.*\n){3}/, 'servers:\n  - url: /api/v3\n');
    server = createServer((req, res) => {
      seen.push(`${req.url} ${req.headers['x-api-key'] ?? ''}`);
      if (req.url?.startsWith('/old')) return void res.writeHead(302, { location: '/specs/mini.yaml' }).end();
      if (req.url === '/specs/mini.yaml') {
        if (req.headers['x-api-key'] !== 'sekret') return void res.writeHead(401).end('no');
        return void res.writeHead(200, { 'content-type': 'application/yaml' }).end(yaml);
      }
      if (req.url === '/slow') return; // never answers
      res.writeHead(404).end();
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const a = server.address() as { port: number };
    base = `http://127.0.0.1:${a.port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('fetches YAML over HTTP following redirects with an auth header; strips the query string from source.spec', async () => {
    const r = await buildCatalogue(`${base}/old?token=abc`, { load: { authHeader: 'X-Api-Key: sekret' } });
    expect(r.catalogue.tools.length).toBe(9);
    expect(r.catalogue.source.spec).toBe(`${base}/old`);
    expect(r.text).not.toMatch(/sekret|token=abc/);
    expect(r.catalogue.defaultUpstream).toBe(`${base}/api/v3`); // relative server resolved against the spec URL
    expect(seen).toContain('/specs/mini.yaml sekret');
  });

  it('reports HTTP errors and timeouts clearly', async () => {
    await expect(buildCatalogue(`${base}/specs/mini.yaml`, { load: { authHeader: 'X-Api-Key: wrong' } })).rejects.toThrow(/HTTP 401/);
    await expect(buildCatalogue(`${base}/slow`, { load: { timeoutMs: 300 } })).rejects.toThrow(SpecError);
    await expect(buildCatalogue(`${base}/slow`, { load: { timeoutMs: 300 } })).rejects.toThrow(/timed out after 300 ms/);
    await expect(buildCatalogue('http://127.0.0.1:1/x.json', { load: { timeoutMs: 2000 } })).rejects.toThrow(/Cannot fetch spec/);
  });
});
