// Sweep building blocks: argument generator, drift layer, call classification, overrides writing.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validate } from '../../src/catalogue/validator.ts';
import { generateArgs, sampleRegex } from '../../scripts/sweep/args.ts';
import { classifyError, classifyResult } from '../../scripts/sweep/clients.ts';
import { drift, DRIFT_MAP_OTHER, DRIFT_MAP_TYPED, DRIFT_OBJECT, DRIFT_SCALAR, emptyDriftStats, SpecIndex, startBuiltinMock } from '../../scripts/sweep/drift.ts';
import { writeOverrides } from '../../scripts/sweep/report.ts';
import type { SweepReport } from '../../scripts/sweep/run.ts';

const stats = emptyDriftStats;

describe('argument generator: constructs of the corpus draw of seed 20261208', () => {
  it('keeps the required fields beside an anyOf branch (GitHub Enterprise checks/create)', () => {
    const body = {
      type: 'object',
      properties: { name: { type: 'string' }, head_sha: { type: 'string' }, status: { type: 'string' } },
      required: ['name', 'head_sha'],
      anyOf: [
        { type: 'object', properties: { status: { enum: ['completed'] } }, required: ['status'] },
        { type: 'object', properties: { status: { enum: ['queued', 'in_progress'] } } },
      ],
    };
    const input = { type: 'object', properties: { body }, required: ['body'] };
    for (const variant of [0, 1, 2, 3]) {
      const args = generateArgs(input, variant);
      expect(validate(input as never, args).errors).toEqual([]);
      expect(args.body).toMatchObject({ name: expect.any(String), head_sha: expect.any(String) });
    }
  });

  it('pads to a minimum length with a character the pattern takes (AWS Storage Gateway barcodes)', () => {
    const input = { type: 'object', properties: { barcode: { type: 'string', pattern: '^[A-Z0-9]*$', minLength: 5, maxLength: 16 } }, required: ['barcode'] };
    for (const variant of [0, 1]) expect(validate(input as never, generateArgs(input, variant)).errors).toEqual([]);
  });

  it('finds a date-time of the length a spec bounds (Unicourt: exactly 25 characters)', () => {
    const input = { type: 'object', properties: { from: { type: 'string', format: 'date-time', minLength: 25, maxLength: 25 } }, required: ['from'] };
    for (const variant of [0, 1, 2]) expect(validate(input as never, generateArgs(input, variant)).errors).toEqual([]);
  });
});

describe('argument generator', () => {
  const schema = {
    type: 'object',
    properties: {
      id: { type: 'integer', minimum: 5, maximum: 9 },
      when: { type: 'string', format: 'date-time' },
      mail: { type: 'string', format: 'email' },
      code: { type: 'string', pattern: '^[A-Z]{2}-\\d{3}$' },
      kind: { type: 'string', enum: ['a', 'b', 'c'] },
      tags: { type: 'array', items: { type: 'string', minLength: 3 }, minItems: 1 },
      ref: { $ref: '#/$defs/Ref' },
      nullable: { type: ['string', 'null'], maxLength: 4 },
      one: { anyOf: [{ type: 'null' }, { type: 'object', properties: { x: { type: 'number', exclusiveMinimum: 0 } }, required: ['x'] }] },
    },
    required: ['id', 'code'],
    $defs: { Ref: { type: 'object', properties: { n: { type: 'number', multipleOf: 0.5 } }, required: ['n'] } },
  };
  it('produces schema-valid arguments for every variant, deterministically', () => {
    for (let v = 0; v < 5; v++) {
      const args = generateArgs(schema, v);
      expect(validate(schema, args).errors).toEqual([]);
      expect(generateArgs(schema, v)).toEqual(args);
    }
    expect(Object.keys(generateArgs(schema, 0)).sort()).toEqual(['code', 'id']);
    expect(Object.keys(generateArgs(schema, 1)).length).toBe(9);
  });
  it('fills a map that needs entries (minProperties with an additionalProperties schema)', () => {
    const schema = { type: 'object', properties: { items: { type: 'object', minProperties: 2, additionalProperties: { type: 'object', required: ['Keys'], properties: { Keys: { type: 'array', minItems: 1, items: { type: 'string' } } } } } }, required: ['items'] };
    for (const variant of [0, 1, 2]) {
      const args = generateArgs(schema, variant);
      expect(validate(schema, args).valid, JSON.stringify(args)).toBe(true);
      expect(Object.keys(args.items as object)).toHaveLength(2);
    }
  });

  it('samples simple regexes', () => {
    for (const p of ['^[a-z0-9-]+$', '^\\d{4}-\\d{2}$', '^(foo|bar)_[a-f]{3,5}$', '^sk_(test|live)_\\w+$']) {
      const s = sampleRegex(p, 0);
      expect(s, p).toBeDefined();
      expect(new RegExp(p, 'u').test(s!)).toBe(true);
    }
  });
  it('retries variants until the validator accepts', () => {
    const closed = { type: 'object', properties: { b: { anyOf: [{ type: 'object', properties: { k: { const: 1 } }, required: ['k'], additionalProperties: false }, { type: 'string' }] } }, required: ['b'] };
    const valid = (a: unknown) => validate(closed, a).valid;
    expect(valid(generateArgs(closed, 0, valid))).toBe(true);
  });
});

describe('drift layer', () => {
  const doc = {
    openapi: '3.0.3',
    paths: { '/things/{id}': { get: { responses: { 200: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } } } } },
    components: {
      schemas: {
        Thing: {
          type: 'object',
          additionalProperties: false,
          required: ['id'],
          properties: {
            id: { type: 'integer' },
            note: { type: 'string', nullable: true },
            owner: { allOf: [{ $ref: '#/components/schemas/Owner' }] },
            metrics: { type: 'object', additionalProperties: { type: 'number' } },
            status: { type: 'string', enum: ['open', 'closed'] },
            level: { type: 'integer', enum: [1, 2] },
            count: { type: 'integer' },
            ratio: { type: 'number' },
            size: { type: 'integer' },
            deleted: { type: 'boolean', enum: [true] },
          },
        },
        Owner: { type: 'object', properties: { login: { type: ['string', 'null'] } } },
      },
    },
  };
  it('finds the response schema, adds undeclared fields at every level, nulls nullable fields and one non-nullable field per object', () => {
    const idx = new SpecIndex(doc);
    const schema = idx.responseSchema('GET', '/things/7', 200, 'application/json; charset=utf-8');
    expect(schema).toBeDefined();
    const s = stats();
    const out = drift(idx, { id: 1, note: 'x', owner: { login: 'me' }, metrics: { a: 1 } }, schema, { extras: true, nulls: true }, s) as any;
    expect(out.note).toBeNull();
    expect(out.owner.login).toBeNull();
    expect(out.id).toBeNull(); // not nullable in the spec
    expect(out[DRIFT_SCALAR]).toBeTypeOf('string');
    expect(out[DRIFT_OBJECT]).toBeTypeOf('object');
    expect(out.owner[DRIFT_SCALAR]).toBeTypeOf('string');
    expect(s.nullsSet).toBe(2);
    expect(s.strictNulls).toBe(1);
  });

  it('typed maps get a new key valued as declared and one of another type', () => {
    const idx = new SpecIndex(doc);
    const s = stats();
    const out = drift(idx, { id: 1, metrics: { a: 1 } }, idx.responseSchema('GET', '/things/7', 200, 'application/json'), { extras: true }, s) as any;
    expect(out.metrics).toMatchObject({ a: 1, [DRIFT_MAP_TYPED]: expect.any(Number), [DRIFT_MAP_OTHER]: expect.any(String) });
    expect(out.metrics[DRIFT_SCALAR]).toBeUndefined();
    expect(s.mapEntries).toBe(2);
  });

  it('values: enum members the spec does not list, and every other numeric field as a string', () => {
    const idx = new SpecIndex(doc);
    const s = stats();
    const out = drift(idx, { id: 1, status: 'open', level: 2, count: 5, ratio: 0.5, size: 7, deleted: true }, idx.responseSchema('GET', '/things/7', 200, 'application/json'), { values: true }, s) as any;
    // Unknown members keep the members' JSON type.
    expect(out.status).toBe('drift_unknown_enum_value');
    expect(out.level).toBe(1002);
    expect(out.deleted).toBe(false);
    expect([out.id, out.count, out.ratio, out.size]).toEqual(['1', 5, '0.5', 7]);
    expect(s).toMatchObject({ unknownEnums: 3, numbersAsStrings: 2, extrasAdded: 0, strictNulls: 0 });
  });
  it('leaves values alone when both options are off, and unmatched paths still drift', () => {
    const idx = new SpecIndex(doc);
    expect(idx.responseSchema('GET', '/nope', 200, 'application/json')).toBeUndefined();
    const out = drift(idx, [{ a: 1 }], undefined, { extras: true, nulls: false }, stats()) as any;
    expect(out[0][DRIFT_SCALAR]).toBeDefined();
    expect(drift(idx, { a: 1 }, undefined, { extras: false, nulls: false }, stats())).toEqual({ a: 1 });
  });
});

describe('built-in mock', () => {
  it('answers a non-JSON success with a body of its media type, and a bodyless one with 204', async () => {
    const ok = (content: Record<string, unknown>) => ({ responses: { 200: { description: 'ok', content } } });
    const idx = new SpecIndex({
      openapi: '3.0.3',
      paths: {
        '/report.csv': { get: ok({ 'text/csv': { schema: { type: 'string' } } }) },
        '/invoice/{id}/pdf': { get: ok({ 'application/pdf': { schema: { type: 'string', format: 'binary' } } }) },
        '/things': { get: ok({ 'application/json': { schema: { type: 'object', properties: { id: { type: 'integer' } } } } }) },
        '/things/{id}': { delete: { responses: { 204: { description: 'gone' } } } },
      },
    });
    const mock = await startBuiltinMock(idx);
    try {
      const csv = await fetch(`${mock.url}/report.csv`);
      expect([csv.status, csv.headers.get('content-type'), await csv.text()]).toEqual([200, 'text/csv', 'id,name\n1,sweep\n']);
      const pdf = await fetch(`${mock.url}/invoice/7/pdf`);
      expect([pdf.status, pdf.headers.get('content-type'), (await pdf.arrayBuffer()).byteLength]).toEqual([200, 'application/pdf', 8]);
      const json = await fetch(`${mock.url}/things`);
      expect(json.headers.get('content-type')).toBe('application/json');
      expect(await json.json()).toMatchObject({ id: expect.any(Number) });
      const gone = await fetch(`${mock.url}/things/7`, { method: 'DELETE' });
      expect([gone.status, await gone.text()]).toEqual([204, '']);
    } finally {
      await mock.close();
    }
  });
});

describe('spec index: path keys with a query part', () => {
  it("routes a request to the operation whose query part it carries (AWS's /{Bucket}#cors), else the plain path", () => {
    const ok = (prop: string) => ({ responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { [prop]: { type: 'string' } } } } } } } });
    const idx = new SpecIndex({
      openapi: '3.0.3',
      paths: {
        '/{Bucket}': { get: ok('objects') },
        '/{Bucket}#cors': { get: ok('cors') },
        '/{Bucket}#analytics&id': { get: ok('analytics') },
        '/#X-Amz-Target=Svc.List': { post: ok('list') },
        '/#X-Amz-Target=Svc.Get': { post: ok('get') },
      },
    });
    const names = (...n: string[]) => (name: string, value?: string) => n.includes(name) || (value !== undefined && n.includes(`${name}=${value}`));
    const prop = (s: any) => Object.keys(s?.properties ?? {})[0];
    expect(prop(idx.successResponse('GET', '/b1', names('cors'))?.schema)).toBe('cors');
    expect(prop(idx.successResponse('GET', '/b1', names('analytics', 'id'))?.schema)).toBe('analytics');
    expect(prop(idx.successResponse('GET', '/b1', names('analytics'))?.schema)).toBe('objects');
    expect(prop(idx.successResponse('GET', '/b1')?.schema)).toBe('objects');
    expect(prop(idx.responseSchema('GET', '/b1', 200, 'application/json', names('cors')))).toBe('cors');
    // A header discriminator (the worker sends X-Amz-Target as the declared header) picks by value; the first is the fallback.
    expect(prop(idx.successResponse('POST', '/', names('x-amz-target=Svc.Get'))?.schema)).toBe('get');
    expect(prop(idx.successResponse('POST', '/', names('x-amz-target=Svc.List'))?.schema)).toBe('list');
    expect(prop(idx.successResponse('POST', '/', names('x-amz-target=Other'))?.schema)).toBe('list');
  });
});

describe('classification', () => {
  it('results', () => {
    expect(classifyResult({ content: [] }).class).toBe('ok');
    expect(classifyResult({ isError: true, content: [{ type: 'text', text: 'Upstream error: HTTP 404' }] }).class).toBe('upstream_error');
    expect(classifyResult({ isError: true, content: [{ type: 'text', text: 'Error: upstream response did not match the declared output schema of tool x' }] })).toMatchObject({ class: 'schema_mismatch', side: 'server' });
    // The worker delivers such a body as a success, beside the empty result: the sweep still counts it.
    const aside = { result: null, as_returned: { a: 1 }, note: 'The call succeeded, but the upstream response did not match the declared output schema of tool x (/result: …)' };
    expect(classifyResult({ content: [{ type: 'text', text: JSON.stringify(aside) }], structuredContent: aside })).toMatchObject({ class: 'schema_mismatch', side: 'server' });
    expect(classifyResult({ isError: true, content: [{ type: 'text', text: 'Invalid arguments for x: …' }] }).class).toBe('invalid_arguments');
    // Beside the listed schema only because of the type drift the sweep injects (a null the spec does not allow, a
    // number as a string): type_drift, a success handled as designed. Anything else the body breaks stays a mismatch.
    const listed = { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' }, owner: { type: 'object', properties: { id: { type: 'number' } } }, tags: { type: 'array', items: { type: 'string' } } } };
    const note = 'The call succeeded, but the upstream response did not match the declared output schema of tool x (/id: …)';
    const beside = (data: unknown) => ({ content: [{ type: 'text', text: note }], structuredContent: { as_returned: data, note } });
    expect(classifyResult(beside({ id: '12', name: null, owner: { id: '1.5' }, tags: ['a'] }), listed)).toMatchObject({ class: 'type_drift', side: 'server' });
    for (const data of [{ id: 'twelve' }, { id: 12, owner: 'octo' }, { tags: ['a', null] }, { name: 7 }]) expect(classifyResult(beside(data), listed).class, JSON.stringify(data)).toBe('schema_mismatch');
    expect(classifyResult(beside({ id: '12' })).class).toBe('schema_mismatch');
    const wrapped = { type: 'object', properties: { result: { type: ['array', 'null'], items: { type: 'object', properties: { n: { type: 'integer' } } } } }, required: ['result'] };
    expect(classifyResult(beside([{ n: '3' }, { n: null }]), wrapped).class).toBe('type_drift');
    // Keys that a JSON pointer or a URI fragment escapes (a space, a slash) are found as well.
    const odd = { type: 'object', properties: { 'Site name': { type: 'string' }, 'a/b~c': { type: 'integer' } } };
    expect(classifyResult(beside({ 'Site name': null, 'a/b~c': '5' }), odd).class).toBe('type_drift');
    expect(classifyResult(beside({ 'Site name': 5 }), odd).class).toBe('schema_mismatch');
    for (const upstream of [
      'Upstream error: HTTP 503 Service Unavailable for GET /x.',
      'Could not reach the upstream for GET /x: refused.',
      'The upstream did not answer GET /x within 30000 ms, so the call was abandoned.',
      'The upstream response to GET /x is larger than the 10485760-byte limit, so it was not returned.',
    ]) {
      expect(classifyResult({ isError: true, content: [{ type: 'text', text: upstream }] }).class, upstream).toBe('upstream_error');
    }
    // Everything else the worker flags isError came from an upstream success.
    for (const success of [
      'HTTP 204 No Content: the upstream accepted DELETE /x and returned no content. The tool declares structured output, so there is no structured result to return. The operation succeeded: do not retry it.',
      'The upstream answered HTTP 200 with application/yaml, not the JSON this tool declares, so there is no structured result.',
      'The result is too large to return (over ~25000 tokens) and could not be shortened within the declared schema.',
    ]) {
      expect(classifyResult({ isError: true, content: [{ type: 'text', text: success }] }).class, success).toBe('error_on_2xx');
    }
  });
  it('errors', () => {
    expect(classifyError(Object.assign(new Error("MCP error -32602: Structured content does not match the tool's output schema: data must NOT have additional properties"), { code: -32602 }))).toMatchObject({ class: 'schema_mismatch', side: 'client' });
    expect(classifyError(Object.assign(new Error('Tool x has an output schema but did not return structured content'), { code: -32600 })).class).toBe('protocol_error');
    expect(classifyError(Object.assign(new Error('Request timed out'), { code: -32001 })).class).toBe('transport_failure');
    expect(classifyError(new TypeError('fetch failed')).class).toBe('transport_failure');
    expect(classifyError(Object.assign(new Error('Error POSTing to endpoint'), { code: 500 })).class).toBe('transport_failure');
  });
});

describe('--write-overrides', () => {
  it('adds outputSchema:false with a dated reason, keeps other entries, skips tools already dropped', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sweep-ov-'));
    const file = join(dir, 'overrides.json');
    await writeFile(file, JSON.stringify({ tools: { keep_me: { title: 'Kept' }, old: { outputSchema: false, reason: 'earlier' } } }));
    const counts = { ok: 1, type_drift: 0, upstream_error: 0, invalid_arguments: 0, schema_mismatch: 3, error_on_2xx: 0, protocol_error: 0, transport_failure: 0 };
    const report = {
      tools: [
        { tool: 'bad', overrideKey: 'bad_generated', hasOutputSchema: true, counts, invalidArgSets: 0, examples: [{ client: 'v1', variant: 0, class: 'schema_mismatch', side: 'server', detail: 'Error: upstream response did not match the declared output schema of tool bad (/a: wrong)', ms: 1, args: {} }] },
        { tool: 'old', overrideKey: 'old', hasOutputSchema: true, counts, invalidArgSets: 0, examples: [] },
        { tool: 'fine', overrideKey: 'fine', hasOutputSchema: true, counts: { ...counts, schema_mismatch: 0 }, invalidArgSets: 0, examples: [] },
      ],
    } as unknown as SweepReport;
    const changes = await writeOverrides(file, report, new Date('2026-11-30T12:00:00Z'));
    expect(changes.map((c) => c.key)).toEqual(['bad_generated']);
    const written = JSON.parse(await readFile(file, 'utf8'));
    expect(written.tools.keep_me).toEqual({ title: 'Kept' });
    expect(written.tools.old.reason).toBe('earlier');
    expect(written.tools.bad_generated.outputSchema).toBe(false);
    expect(written.tools.bad_generated.reason).toMatch(/^sweep 2026-11-30: 3\/4 results failed/);
    expect(await writeOverrides(file, report)).toEqual([]);
  });
});
