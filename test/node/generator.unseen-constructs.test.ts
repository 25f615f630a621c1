// Spec constructs the unseen-spec sweep found (docs/sweep.md, "Unseen specs"), on small hand-written specs:
//   - a $ref whose sibling `type` contradicts its target (`{$ref: <array>, type: object}`; OpenAPI 3.0 ignores the
//     sibling), and `allOf: [<string>, {type: "null"}]` written for "nullable": parts no single value satisfies, so a
//     plain allOf would fail every response (outputs) or refuse every argument (inputs);
//   - a form body whose schema is not an object (`multipart/form-data: {schema: {}}`): the worker encodes only an
//     object of fields, so the inputSchema must ask for one;
//   - operationIds with accented Latin letters ("détails"), which lost the letter and split the word;
//   - untagged path keys with a query part (AWS's `/#X-Amz-Target=Svc.Op`), which made one toolset per operation.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogue, type BuildResult } from '../../scripts/catalog/build.ts';
import { baseToolName } from '../../scripts/catalog/naming.ts';
import { SchemaConverter } from '../../scripts/catalog/schema-converter.ts';
import { snake } from '../../scripts/catalog/snake.ts';
import { typesConflict } from '../../scripts/catalog/type-conflict.ts';
import { validate } from '../../src/catalogue/validator.ts';
import type { CatalogueTool, JsonSchema } from '../../src/catalogue/types.ts';
import { listWithV1Client, wireTools } from './fixtures/corpus-suite.ts';
import { tmp } from './fixtures/mini-spec.ts';

const SPEC = {
  openapi: '3.0.0',
  info: { title: 'Contradictions', version: '1' },
  paths: {
    '/shops/{shopId}/hours': {
      parameters: [{ name: 'shopId', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        operationId: 'getShopHours',
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Hours' } } } } },
      },
      put: {
        operationId: 'putShopHours',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Hours' } } } },
        responses: { '204': { description: 'done' } },
      },
    },
    '/bills/{billId}': {
      get: {
        operationId: 'getBill',
        parameters: [{ name: 'billId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Bill' } } } } },
      },
    },
    '/bills/{billId}/attachments': {
      post: {
        operationId: 'uploadBillAttachment',
        parameters: [{ name: 'billId', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: { content: { 'multipart/form-data': { schema: {} } } },
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' } } } } } } },
      },
    },
    '/notes': {
      post: {
        operationId: 'createNote',
        requestBody: { content: { 'application/x-www-form-urlencoded': { schema: { type: 'string' } } } },
        responses: { '201': { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' } } } } } } },
      },
    },
  },
  components: {
    schemas: {
      Slots: { type: 'array', items: { type: 'object', properties: { start: { type: 'string' }, end: { type: 'string' } } } },
      Hours: {
        type: 'object',
        properties: {
          collection: { $ref: '#/components/schemas/Slots', type: 'object', description: 'Collection slots' },
          delivery: { $ref: '#/components/schemas/Slots', type: 'object', description: 'Delivery slots' },
        },
      },
      Currency: { type: 'string', description: 'ISO 4217 code' },
      Bill: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          currency: { allOf: [{ $ref: '#/components/schemas/Currency' }, { type: 'null' }] },
          total: { allOf: [{ type: 'number' }, { type: 'integer' }] },
        },
      },
    },
  },
};

/** SPEC's catalogue, built once for every describe that reads it. */
let once: Promise<BuildResult> | undefined;
const built = (): Promise<BuildResult> => {
  if (!once) {
    const f = join(tmp(), 'spec.json');
    writeFileSync(f, JSON.stringify(SPEC));
    once = buildCatalogue(f);
  }
  return once;
};

const tool = (r: BuildResult, name: string): CatalogueTool => {
  const t = r.catalogue.tools.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name} in ${r.catalogue.tools.map((x) => x.name).join(', ')}`);
  return t;
};
const ok = (schema: JsonSchema | undefined, value: unknown) => validate(schema!, value, 5);

describe('parts that admit no common type', () => {
  let r: BuildResult;
  beforeAll(async () => {
    r = await built();
  });

  it('an outputSchema accepts the $ref target (what the API sends) and the sibling type alike', () => {
    const out = tool(r, 'get_shop_hours').outputSchema;
    expect(ok(out, { collection: [{ start: '12:00:00', end: '14:00:00' }], delivery: [] })).toEqual({ valid: true, errors: [] });
    expect(ok(out, { collection: { start: '12:00:00' } }).valid).toBe(true);
    // Still typed: neither reading allows a string.
    expect(ok(out, { collection: 'closed' }).valid).toBe(false);
  });

  it('an inputSchema keeps the $ref target, as OpenAPI 3.0 reads a $ref with siblings', () => {
    const input = tool(r, 'set_shop_hours').inputSchema;
    expect(ok(input, { shopId: 's1', collection: [{ start: '12:00:00', end: '14:00:00' }] }).valid).toBe(true);
    expect(ok(input, { shopId: 's1', collection: { start: '12:00:00' } }).valid).toBe(false);
  });

  it('allOf [<string>, {type: null}] reads as "string or null" in an outputSchema', () => {
    const out = tool(r, 'get_bill').outputSchema;
    expect(ok(out, { id: 'b1', currency: 'GBP', total: 12 }).valid).toBe(true);
    expect(ok(out, { id: 'b1', currency: null }).valid).toBe(true);
    expect(ok(out, { id: 'b1', currency: 5 }).valid).toBe(false);
    // number ∩ integer is integer, not a contradiction: the allOf stays strict.
    expect(ok(out, { id: 'b1', total: 12.5 }).valid).toBe(false);
  });

  it('is reported as a type-conflict warning, and the v1 client lists every tool', async () => {
    expect(r.report.warnings['type-conflict']?.count).toBeGreaterThanOrEqual(3);
    expect(await listWithV1Client(wireTools(r.catalogue.tools))).toBe(r.catalogue.tools.length);
  });

  it('typesConflict: disjoint known types only; integer fits number, an untyped part says nothing', () => {
    expect(typesConflict([{ type: 'array' }, { type: 'object' }])).toBe(true);
    expect(typesConflict([{ type: ['string', 'null'] }, { type: 'null' }])).toBe(false);
    expect(typesConflict([{ type: 'number' }, { type: 'integer' }])).toBe(false);
    expect(typesConflict([{ type: 'string' }, { description: 'x' }])).toBe(false);
    expect(typesConflict([{ anyOf: [{ type: 'string' }, { type: 'number' }] }, { type: 'boolean' }])).toBe(true);
  });

  it('an allOf whose parts agree is converted as before', () => {
    const conv = new SchemaConverter({}, () => {});
    const s = conv.convert({ allOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'object', properties: { b: { type: 'integer' } } }] }, 'output', { depth: 6, descMax: 120 }, 'x');
    expect(s.allOf).toHaveLength(2);
    expect(s.anyOf).toBeUndefined();
  });
});

describe('a form body whose schema is not an object', () => {
  let r: BuildResult;
  beforeAll(async () => {
    r = await built();
  });

  it('multipart/form-data with schema {} asks for an object of fields', () => {
    const t = tool(r, 'upload_bill_attachment');
    expect(t.http.body).toMatchObject({ mediaType: 'multipart/form-data', mode: 'wrapped', arg: 'body' });
    const body = (t.inputSchema.properties as Record<string, JsonSchema>).body;
    expect(body).toMatchObject({ type: 'object' });
    expect(ok(t.inputSchema, { billId: 'b1', body: 'a string' }).valid).toBe(false);
    expect(ok(t.inputSchema, { billId: 'b1', body: { note: 'x' } }).valid).toBe(true);
  });

  it('a urlencoded body typed as a string is an object too, with a warning', () => {
    const body = (tool(r, 'create_note').inputSchema.properties as Record<string, JsonSchema>).body;
    expect(body).toMatchObject({ type: 'object' });
    expect(r.report.warnings['form-body-object']?.examples).toEqual([expect.stringContaining('POST /notes')]);
  });
});

describe('operationIds with accented Latin letters', () => {
  it('keep the base letter instead of splitting the word', () => {
    expect(baseToolName('Get File (v2) — détails', 'get', '/files/{id}')).toBe('get_file_v2_details');
    expect(baseToolName('créerFacture', 'post', '/factures')).toBe('creer_facture');
    expect(snake('Ünïcödé-Things straße Æsir')).toBe('unicode_things_strasse_aesir');
    // Scripts without a Latin base letter still leave nothing, and the name comes from the path.
    expect(baseToolName('获取用户', 'get', '/users/{id}')).toBe('users_get');
  });
});

describe('untagged path keys with a query part', () => {
  it("take their toolset from the path before it, not one per operation", async () => {
    const op = (target: string) => ({ post: { operationId: target, responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } } } });
    const doc = {
      openapi: '3.0.0',
      info: { title: 'Aws', version: '1' },
      paths: { '/#X-Amz-Target=Svc.ListThings': op('ListThings'), '/#X-Amz-Target=Svc.GetThing': op('GetThing'), '/buckets/{Bucket}#cors': op('GetBucketCors'), '/rest?method=photos.get': op('PhotosGet') },
    };
    const f = join(tmp(), 'spec.json');
    writeFileSync(f, JSON.stringify(doc));
    const r = await buildCatalogue(f);
    expect(Object.fromEntries(r.catalogue.tools.map((t) => [t.name, t.toolsets]))).toEqual({
      list_things: ['default'],
      get_thing: ['default'],
      get_bucket_cors: ['buckets'],
      photos_get: ['rest'],
    });
  });
});
