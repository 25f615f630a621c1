// Spec constructs the corpus check (docs/sweep.md, "Corpus check") found in real specs, on small hand-written ones.
//   - YAML specs with the version unquoted (`swagger: 2.0`, `openapi: 3.0`): YAML reads numbers, and the spec was
//     refused as having no supported version.
//   - patterns escaping punctuation that needs no escape (`[\w\~]`): no u-flag RegExp, so they were dropped.
//   - enums whose members contradict their type (`{type: object, enum: ["PKW"]}` in Mercedes-Benz's configurator,
//     `{type: integer, enum: ["1"]}`, `{type: array, enum: ["a"]}`): no value passed, so arguments were refused and
//     responses failed the outputSchema.
//   - allOf parts each closed by `additionalProperties: false` to their own properties (ShipEngine's
//     `shipping_address`: an address plus `instructions`): no object with properties of both passed.
//   - the sweep's arguments for an unanchored pattern with a minimum length (AWS's `arn:…`, at least 20 long).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../scripts/catalog/build.ts';
import { uPattern } from '../../scripts/catalog/regex-check.ts';
import { loadSpec } from '../../scripts/catalog/spec-loader.ts';
import { generateArgs } from '../../scripts/sweep/args.ts';
import { validate } from '../../src/catalogue/validator.ts';
import type { JsonSchema } from '../../src/catalogue/types.ts';
import { declaredVersion, openApiVersion } from '../../src/spec-drift/spec-document.ts';
import { tmp } from './fixtures/mini-spec.ts';

const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url).pathname;

describe('a version YAML reads as a number', () => {
  it('builds a Swagger 2.0 spec written `swagger: 2.0`', async () => {
    const built = await buildCatalogue(fixture('unquoted-version.yaml'));
    expect(built.catalogue.source.openapi).toBe('2.0');
    expect(built.catalogue.tools.map((t) => t.name)).toEqual(['get_thing']);
    expect(built.catalogue.tools[0]!.inputSchema).toMatchObject({ properties: { id: { type: 'integer' } }, required: ['id'] });
  });

  it('reads `openapi: 3.0` and `openapi: 3.1` as their first releases, in the generator and the drift check alike', async () => {
    const dir = tmp();
    for (const [written, version] of [['3.0', '3.0.0'], ['3.1', '3.1.0'], ['"3.0"', '3.0.0']] as const) {
      const file = join(dir, `v${version}.yaml`);
      writeFileSync(file, `openapi: ${written}\ninfo: {title: T, version: 2}\npaths:\n  /a:\n    get:\n      operationId: getA\n      responses:\n        200: {description: ok}\n`);
      const loaded = await loadSpec(file);
      expect(loaded.originalVersion).toBe(version);
      expect(loaded.doc.openapi).toBe(version);
    }
    expect(openApiVersion({ swagger: 2, paths: {} })).toBe('2.0');
    expect(openApiVersion({ openapi: 3.1, paths: {} })).toBe('3.1.0');
    // Numbers that name no release stay refused.
    expect(declaredVersion({ swagger: 1.2 })).toBe('1.2');
    expect(() => openApiVersion({ openapi: 4, paths: {} })).toThrow(/not an OpenAPI 3.0\/3.1 or Swagger 2.0 document \(openapi\/swagger = 4\)/);
  });
});

describe('patterns that escape punctuation needing no escape', () => {
  it('keep their meaning in u-flag form; a pattern with no u form is still dropped', () => {
    expect(uPattern('^[A-Za-z0-9_\\.\\-\\~]+$')).toBe('^[A-Za-z0-9_\\.\\-~]+$');
    expect(uPattern('^a\\_b\\-c\\@d$')).toBe('^a_b-c@d$');
    expect(uPattern('^\\d+$')).toBe('^\\d+$');
    expect(uPattern('(?i)^abc$')).toBeUndefined();
    for (const [p, yes, no] of [['^[A-Za-z0-9_\\.\\-\\~]+$', 'a.b-c~d', 'a b'], ['^a\\_b\\-c\\@d$', 'a_b-c@d', 'a_b_c@d']] as const) {
      const u = new RegExp(uPattern(p)!, 'u');
      expect([u.test(yes), u.test(no)]).toEqual([new RegExp(p).test(yes), new RegExp(p).test(no)]);
    }
  });

  it('reach the inputSchema', async () => {
    const file = join(tmp(), 'patterns.json');
    const param = (name: string, pattern: string) => ({ name, in: 'query', schema: { type: 'string', pattern } });
    const spec = { openapi: '3.0.0', info: { title: 'P', version: '1' }, paths: { '/files': { get: { operationId: 'listFiles', parameters: [param('path', '(?:[A-Za-z0-9_\\.\\-\\~]+/){0,10}'), param('flags', '(?i)^x$')], responses: { '200': { description: 'ok' } } } } } };
    writeFileSync(file, JSON.stringify(spec));
    const built = await buildCatalogue(file);
    const props = built.catalogue.tools[0]!.inputSchema.properties as Record<string, { pattern?: string; description?: string }>;
    expect(props.path!.pattern).toBe('(?:[A-Za-z0-9_\\.\\-~]+/){0,10}');
    expect(props.flags!.pattern).toBeUndefined();
    expect(built.report.warnings['pattern-dropped']?.count).toBe(1);
  });
});

describe('an enum against its own type', () => {
  const group = { type: 'object', enum: ['PKW', 'VAN'], properties: { name: { type: 'string' } } };
  const spec = {
    openapi: '3.0.0',
    info: { title: 'Enums', version: '1' },
    paths: {
      '/models': {
        post: {
          operationId: 'findModels',
          parameters: [
            { name: 'size', in: 'query', schema: { type: 'integer', enum: ['10', '20'] } },
            { name: 'code', in: 'query', schema: { type: 'string', enum: [1, 2] } },
            { name: 'flag', in: 'query', schema: { type: 'boolean', enum: ['true', 'false'] } },
            { name: 'fields', in: 'query', required: true, schema: { type: 'array', items: { type: 'string' }, enum: ['id', 'name'] } },
          ],
          requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { group } } } } },
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { groups: { type: 'array', items: group } } } } } } },
        },
      },
    },
  };

  it('reads members as the type when that loses nothing, else lets the type admit them; values pass again', async () => {
    const file = join(tmp(), 'enums.json');
    writeFileSync(file, JSON.stringify(spec));
    const built = await buildCatalogue(file);
    const tool = built.catalogue.tools[0]!;
    const props = tool.inputSchema.properties as Record<string, JsonSchema>;
    expect(props.size).toMatchObject({ type: 'integer', enum: [10, 20] });
    expect(props.code).toMatchObject({ type: 'string', enum: ['1', '2'] });
    expect(props.flag).toMatchObject({ type: 'boolean', enum: [true, false] });
    expect(props.fields).toMatchObject({ type: 'array', items: { type: 'string', enum: ['id', 'name'] } });
    expect(props.group!.type).toEqual(['object', 'string']);
    expect(validate(tool.inputSchema, { size: 20, code: '1', flag: false, fields: ['name'], group: 'VAN' }).valid).toBe(true);
    // The response the API sends with the enum's own members passes the outputSchema.
    expect(validate(tool.outputSchema!, { groups: ['PKW', { name: 'Van' }] }).valid).toBe(true);
    expect(built.report.warnings['enum-type']?.count).toBe(6);
  });
});

describe('allOf parts closed to each other', () => {
  const closed = (props: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', additionalProperties: false, properties: props, ...extra });
  const spec = {
    openapi: '3.0.0',
    info: { title: 'Closed', version: '1' },
    components: {
      schemas: {
        partial_address: closed({ name: { type: 'string' }, city: { type: 'string' } }),
        address: { type: 'object', additionalProperties: false, allOf: [{ $ref: '#/components/schemas/partial_address' }], required: ['name'] },
        shipping_address: { type: 'object', additionalProperties: false, allOf: [{ $ref: '#/components/schemas/address' }, closed({ instructions: { type: 'string' } })] },
        labelled: closed({ label: { type: 'string' } }, { allOf: [{ $ref: '#/components/schemas/partial_address' }] }),
      },
    },
    paths: {
      '/shipments': {
        post: {
          operationId: 'createShipment',
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', properties: { ship_to: { $ref: '#/components/schemas/shipping_address' }, tag: { $ref: '#/components/schemas/labelled' }, from: { $ref: '#/components/schemas/partial_address' } } } } } },
          responses: { '201': { description: 'made' } },
        },
      },
    },
  };

  it('are opened where they would refuse the other parts\' properties; a part closed on its own stays closed', async () => {
    const file = join(tmp(), 'closed.json');
    writeFileSync(file, JSON.stringify(spec));
    const built = await buildCatalogue(file);
    const schema = built.catalogue.tools[0]!.inputSchema;
    const ok = (args: unknown) => validate(schema, args).valid;
    expect(ok({ ship_to: { name: 'Ann', city: 'Oslo', instructions: 'ring twice' } })).toBe(true);
    expect(ok({ tag: { label: 'x', name: 'Ann' } })).toBe(true);
    // Where nothing else adds properties, a closed schema still refuses unknown ones.
    expect(ok({ from: { name: 'Ann', zip: '1' } })).toBe(false);
    expect(ok({ from: { name: 'Ann' } })).toBe(true);
    expect(built.report.warnings['closed-parts']?.count).toBeGreaterThan(0);
  });
});

describe('sweep arguments', () => {
  it('pad an unanchored pattern\'s sample to its minimum length', () => {
    const schema = { type: 'object', properties: { arn: { allOf: [{ type: 'string', minLength: 20, maxLength: 256, pattern: 'arn:[A-Za-z0-9_:/-]+' }, { description: 'An ARN.' }] } }, required: ['arn'] };
    const args = generateArgs(schema, 0);
    expect(validate(schema, args).errors).toEqual([]);
  });
});
