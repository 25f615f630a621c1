// Clean schemas (docs/generator.md, "Defaults", "Lossy conversions"): a default its own schema refuses is coerced
// where that loses nothing and dropped otherwise, both reported; required array parameters refuse []; a spec with
// no operations is refused by `npm run catalog` and `npm run serve` with a clear message and a non-zero exit; a
// dangling $ref outside a schema is reported with what was lost.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { buildCatalogue } from '../../scripts/catalog/build.ts';
import { main } from '../../scripts/catalog/cli.ts';
import { cleanDefault } from '../../scripts/catalog/schema-defaults.ts';
import { validate } from '../../src/catalogue/validator.ts';
import type { CatalogueTool, JsonSchema } from '../../src/catalogue/types.ts';
import { tmp } from './fixtures/mini-spec.ts';

const specFile = (doc: object) => {
  const f = join(tmp(), 'spec.json');
  writeFileSync(f, JSON.stringify(doc));
  return f;
};
const ok = { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' } } } } } } };

describe('defaults their own schema refuses', () => {
  const clean = (s: JsonSchema) => {
    const warned: string[] = [];
    const out = { ...s };
    cleanDefault(out, 'x', (kind) => warned.push(kind));
    return { out, warned };
  };

  it('coerces what loses nothing, drops the rest, keeps what is right, and says which', () => {
    expect(clean({ type: 'integer', default: '1' })).toEqual({ out: { type: 'integer', default: 1 }, warned: ['default-coerced'] });
    expect(clean({ type: 'boolean', default: 'false' })).toEqual({ out: { type: 'boolean', default: false }, warned: ['default-coerced'] });
    expect(clean({ type: 'number', default: '0.5' }).out.default).toBe(0.5);
    expect(clean({ type: 'string', default: 10 }).out.default).toBe('10');
    expect(clean({ type: 'integer', enum: [10, 20], default: '20' }).out.default).toBe(20);
    expect(clean({ type: 'integer', default: 'inf' })).toEqual({ out: { type: 'integer' }, warned: ['default-dropped'] });
    expect(clean({ type: 'integer', default: 1.5 })).toEqual({ out: { type: 'integer' }, warned: ['default-dropped'] });
    expect(clean({ type: 'string', enum: ['asc', 'desc'], default: 'ascending' })).toEqual({ out: { type: 'string', enum: ['asc', 'desc'] }, warned: ['default-dropped'] });
    // Checked as the Worker checks an argument: a format, a pattern, a bound.
    expect(clean({ type: 'string', format: 'uri', default: '' })).toEqual({ out: { type: 'string', format: 'uri' }, warned: ['default-dropped'] });
    expect(clean({ type: 'string', format: 'date', default: 'now' }).warned).toEqual(['default-dropped']);
    expect(clean({ type: 'integer', minimum: 1, default: 0 }).warned).toEqual(['default-dropped']);
    for (const s of [{ type: 'integer', default: 3 }, { type: 'string', enum: ['a'], default: 'a' }, { default: 'anything' }, { type: ['integer', 'null'], default: null }] as JsonSchema[]) {
      expect(clean(s)).toEqual({ out: s, warned: [] });
    }
  });

  it('in a built catalogue: every default is one its schema accepts, and the report lists each change', async () => {
    const spec = specFile({
      openapi: '3.0.0',
      info: { title: 'Defaults', version: '1' },
      paths: {
        '/things': {
          get: {
            operationId: 'listThings',
            parameters: [
              { name: 'pageNumber', in: 'query', schema: { type: 'integer', default: '1' } },
              { name: 'testMode', in: 'query', schema: { type: 'boolean', default: 'false' } },
              { name: 'max_tokens', in: 'query', schema: { type: 'integer', default: 'inf' } },
              { name: 'order', in: 'query', schema: { type: 'string', enum: ['asc', 'desc'], default: 'newest' } },
              { name: 'size', in: 'query', schema: { $ref: '#/components/schemas/Size' } },
            ],
            responses: ok,
          },
          post: { operationId: 'createThing', requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { count: { type: 'integer', default: '5' }, kind: { $ref: '#/components/schemas/Kind', default: 7 }, stop: { $ref: '#/components/schemas/Stop' } } } } } }, responses: ok },
        },
      },
      components: { schemas: { Size: { type: 'integer', default: '25' }, Kind: { type: 'string' }, Stop: { nullable: true, default: null, oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] } } },
    });
    const { catalogue, report } = await buildCatalogue(spec, { sweep: false });
    const tool = (n: string) => catalogue.tools.find((t) => t.name === n)!;
    const props = (t: CatalogueTool) => t.inputSchema.properties as Record<string, JsonSchema>;
    expect(props(tool('list_things')).pageNumber!.default).toBe(1);
    expect(props(tool('list_things')).testMode!.default).toBe(false);
    expect(props(tool('list_things')).max_tokens!.default).toBeUndefined();
    expect(props(tool('list_things')).order!.default).toBeUndefined();
    expect(props(tool('list_things')).size!.default).toBe(25);
    expect(props(tool('create_thing')).count!.default).toBe(5);
    expect(props(tool('create_thing')).kind!.default).toBe('7');
    // A nullable value without a type becomes anyOf [value, null]: its null default stays with the whole.
    expect(props(tool('create_thing')).stop).toMatchObject({ default: null, anyOf: [expect.not.objectContaining({ default: null }), { type: 'null' }] });
    for (const t of catalogue.tools) for (const [k, p] of Object.entries(props(t))) if (p.default !== undefined) expect(validate(p, p.default).valid, `${t.name}.${k}`).toBe(true);
    expect(report.warnings['default-coerced']?.count).toBe(5);
    expect(report.warnings['default-dropped']?.count).toBe(2);
    expect(report.warnings['default-dropped']!.examples.join('\n')).toMatch(/"inf" is not a integer/);
  });
});

describe('required array parameters', () => {
  it('refuse [], which would serialise to nothing; optional ones and body arrays still take it', async () => {
    const spec = specFile({
      openapi: '3.0.0',
      info: { title: 'Arrays', version: '1' },
      paths: {
        '/search': {
          post: {
            operationId: 'search',
            parameters: [
              { name: 'ids', in: 'query', required: true, schema: { type: 'array', items: { type: 'string' } } },
              { name: 'tags', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
              { name: 'fields', in: 'query', required: true, schema: { type: 'array', items: { type: 'string' }, minItems: 2 } },
            ],
            requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['labels'], properties: { labels: { type: 'array', items: { type: 'string' } } } } } } },
            responses: ok,
          },
        },
      },
    });
    const { catalogue } = await buildCatalogue(spec, { sweep: false });
    const t = catalogue.tools[0]!;
    const p = t.inputSchema.properties as Record<string, JsonSchema>;
    expect(p.ids!.minItems).toBe(1);
    expect(p.tags!.minItems).toBeUndefined();
    expect(p.fields!.minItems).toBe(2);
    expect(p.labels!.minItems).toBeUndefined();
    expect(validate(t.inputSchema, { ids: [], fields: ['a', 'b'], labels: [] }).valid).toBe(false);
    expect(validate(t.inputSchema, { ids: ['x'], fields: ['a', 'b'], labels: [] }).valid).toBe(true);
  });
});

describe('a spec with no operations', () => {
  const empty = () => specFile({ openapi: '3.0.0', info: { title: 'Empty', version: '1' }, paths: {} });

  it('npm run catalog refuses it with a clear message and exit 1, and writes nothing', async () => {
    const out = tmp();
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await main(['--spec', empty(), '--out', out, '--quiet'])).toBe(1);
      expect(err.mock.calls.map((c) => String(c[0])).join('')).toMatch(/has no operations \(its paths object is empty\): there is nothing to serve/);
    } finally {
      err.mockRestore();
    }
    const noMethods = specFile({ openapi: '3.0.0', info: { title: 'Empty', version: '1' }, paths: { '/x': { summary: 'no methods' } } });
    await expect(buildCatalogue(noMethods)).rejects.toThrow(/none of its paths has a method/);
  });

  it('npm run serve refuses it before starting anything, with the message and a non-zero exit', () => {
    const r = spawnSync(process.execPath, ['scripts/serve.ts', '--spec', empty(), '--port', '18777'], { cwd: new URL('../..', import.meta.url).pathname, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/cannot build a catalogue from .*has no operations/);
    expect(r.stdout + r.stderr).not.toMatch(/MCP server ready/);
  });
});

describe('a dangling $ref outside a schema', () => {
  it('is reported with what was lost: a parameter, a request body, a response, a path item', async () => {
    const spec = specFile({
      openapi: '3.0.0',
      info: { title: 'Dangling', version: '1' },
      paths: {
        '/items': {
          post: {
            operationId: 'createItem',
            parameters: [{ $ref: '#/components/parameters/Missing' }, { name: 'dryRun', in: 'query', schema: { type: 'boolean' } }],
            requestBody: { $ref: '#/components/requestBodies/Gone' },
            responses: { '201': { $ref: '#/components/responses/Nowhere' } },
          },
          get: { operationId: 'listItems', responses: { '200': { description: 'ok', content: { 'application/json': { $ref: '#/components/x/Media' } } } } },
        },
        '/ghost': { $ref: '#/components/pathItems/Ghost' },
      },
    });
    const { catalogue, report } = await buildCatalogue(spec, { sweep: false });
    const examples = report.warnings['unresolved-ref']!.examples.join('\n');
    expect(report.warnings['unresolved-ref']!.count).toBe(5);
    expect(examples).toMatch(/POST \/items: \$ref #\/components\/parameters\/Missing not found; a parameter is lost/);
    expect(examples).toMatch(/POST \/items: \$ref #\/components\/requestBodies\/Gone not found; the request body is lost/);
    expect(examples).toMatch(/POST \/items response 201: \$ref #\/components\/responses\/Nowhere not found; its content and output schema are lost/);
    expect(examples).toMatch(/GET \/items response 200 application\/json: \$ref #\/components\/x\/Media not found; its output schema is lost/);
    expect(examples).toMatch(/path \/ghost: \$ref #\/components\/pathItems\/Ghost not found; its operations are lost/);
    expect(catalogue.tools.map((t) => t.name).sort()).toEqual(['create_item', 'list_items']);
  });
});
