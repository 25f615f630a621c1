// executeTool against a real loopback upstream, inside workerd: successful responses -> exact content blocks
// (JSON, media, empty bodies, large results). Failures, redirects and limits: execute-failures.test.ts.
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../src/catalogue/types.ts';
import { validate } from '../../src/catalogue/validator.ts';
import { TINY_PNG_BASE64, tool, lastRecord, text, call, petSchema } from './fixtures/execute-harness.ts';

describe('JSON responses', () => {
  it('object root: structuredContent is the object, one compact text block with the same JSON', async () => {
    const t = tool('get_pet', { path: '/json/object' }, { outputSchema: petSchema });
    const r = await call(t);
    expect(r).toEqual({
      content: [{ type: 'text', text: '{"id":7,"name":"Rex","tags":["good","dog"],"owner":null}' }],
      structuredContent: { id: 7, name: 'Rex', tags: ['good', 'dog'], owner: null },
    });
    expect(lastRecord()).toMatchObject({ method: 'GET', path: '/json/object', status: 200, validation: 'valid', outcome: 'ok', kind: 'json' });
  });

  it('array root with outputWrapped: structuredContent is {result: [...]}', async () => {
    const t = tool('list_pets', { path: '/json/array' }, {
      outputWrapped: true,
      outputSchema: { type: 'object', properties: { result: { type: 'array', items: { type: 'object' } } }, required: ['result'] },
    });
    const r = await call(t);
    expect(r).toEqual({ content: [{ type: 'text', text: '{"result":[{"id":1},{"id":2}]}' }], structuredContent: { result: [{ id: 1 }, { id: 2 }] } });
  });

  it('array root without the wrapped flag is still wrapped when there is an outputSchema', async () => {
    const t = tool('list_pets2', { path: '/json/array' }, { outputSchema: { type: 'object' } });
    const r = await call(t);
    expect(r.structuredContent).toEqual({ result: [{ id: 1 }, { id: 2 }] });
  });

  it('scalar root is wrapped', async () => {
    const t = tool('count', { path: '/json/scalar' }, { outputWrapped: true, outputSchema: { type: 'object', properties: { result: { type: 'integer' } } } });
    expect((await call(t)).structuredContent).toEqual({ result: 42 });
  });

  it('no outputSchema: text only, no structuredContent', async () => {
    const t = tool('list_raw', { path: '/json/array' });
    expect(await call(t)).toEqual({ content: [{ type: 'text', text: '[{"id":1},{"id":2}]' }] });
  });

  it.each([
    ['vendor +json', '/json/vendor', { id: 1, kind: 'vendor' }],
    ['*/* content-type', '/json/star', { id: 2, kind: 'star' }],
    ['missing content-type', '/json/none', { id: 3, kind: 'none' }],
  ])('%s is parsed as JSON', async (_n, path, expected) => {
    const t = tool('vendor', { path }, { outputSchema: { type: 'object', properties: { id: { type: 'integer' } } } });
    const r = await call(t);
    expect(r).toEqual({ content: [{ type: 'text', text: JSON.stringify(expected) }], structuredContent: expected });
  });

  it('schema mismatch: a success all the same, the data beside the empty result with a note; recorded with its errors', async () => {
    // As the generator writes output schemas: open, nothing required at the root.
    const { required: _r, ...openPet } = petSchema;
    const t = tool('mismatch_tool', { path: '/json/mismatch' }, { outputSchema: openPet });
    const r = await call(t);
    expect(r.isError).toBeUndefined();
    const s = r.structuredContent as { as_returned: unknown; note: string };
    expect(s.as_returned).toEqual({ id: 'not-a-number', name: 5 });
    expect(s.note).toContain('The call succeeded, but the upstream response did not match the declared output schema of tool mismatch_tool');
    expect(s.note).toMatch(/\/id/);
    expect(validate(openPet, s).valid).toBe(true);
    expect(JSON.parse(text(r, 0))).toEqual(s);
    expect(lastRecord()).toMatchObject({ validation: 'mismatch', outcome: 'schema_mismatch', message: 'upstream response did not match the declared output schema' });
    expect(lastRecord().schemaErrors?.[0]).toMatch(/^\/id: /);
  });

  it('schema mismatch on a wrapped list (an object where the schema says array): {result: null} and the data beside it', async () => {
    const listSchema: JsonSchema = { type: 'object', properties: { result: { type: ['array', 'null'], items: { type: 'object' } } }, required: ['result'] };
    const r = await call(tool('list_as_object', { path: '/json/object' }, { outputWrapped: true, outputSchema: listSchema }));
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent).toMatchObject({ result: null, as_returned: { id: 7, name: 'Rex' } });
    expect(validate(listSchema, r.structuredContent).valid).toBe(true);
    expect(lastRecord()).toMatchObject({ outcome: 'schema_mismatch' });
  });

  it('schema mismatch under a schema that takes no structured result at all (a catalogue built otherwise): isError that says it succeeded', async () => {
    const r = await call(tool('mismatch_required', { path: '/json/mismatch' }, { outputSchema: petSchema }));
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect(text(r, 0)).toContain('The upstream call itself succeeded');
    expect(JSON.parse(text(r, 1))).toEqual({ id: 'not-a-number', name: 5 });
  });

  it('invalid JSON under application/json on a 2xx: a success with the raw text, a note and the descriptor the outputSchema takes', async () => {
    const schema: JsonSchema = { type: 'object', properties: { id: { type: 'integer' } } };
    const r = await call(tool('bad_json', { path: '/json/invalid' }, { outputSchema: schema }));
    expect(r.isError).toBeUndefined();
    expect(text(r, 1)).toBe('{"id": 1, "name": "trunc');
    expect(text(r, 0)).toMatch(/^The upstream answered HTTP 200 with content-type application\/json but the body is not valid JSON \(.+\); it is shown as text\. The request itself succeeded/);
    expect(r.structuredContent).toMatchObject({ content_type: 'application/json', bytes: 24, text: '{"id": 1, "name": "trunc' });
    expect(validate(schema, r.structuredContent).valid).toBe(true);
    expect(lastRecord()).toMatchObject({ outcome: 'invalid_json', kind: 'text', status: 200 });
  });

  it('JSON nested deeper than the stack (100,000 levels in 600 KB): a success shown as text with a note, never isError', async () => {
    const schema: JsonSchema = { type: 'object', properties: { a: { type: 'object' } } };
    for (const outputSchema of [schema, undefined]) {
      const r = await call(tool('deep_json', { path: '/json/deep' }, outputSchema ? { outputSchema } : {}));
      expect(r.isError).toBeUndefined();
      expect(text(r, 0)).toMatch(/^The upstream answered HTTP 200 with content-type application\/json but the body is JSON nested too deeply to read as structured data; it is shown as text\. The request itself succeeded/);
      expect(text(r, 1).startsWith('{"a":{"a":')).toBe(true);
      if (outputSchema) expect(validate(outputSchema, r.structuredContent).valid).toBe(true);
      expect(lastRecord()).toMatchObject({ outcome: 'invalid_json', status: 200 });
    }
  });

  it('invalid JSON for a tool without an outputSchema (or a wrapped one): text and the note, never isError', async () => {
    const bare = await call(tool('bad_json_bare', { path: '/json/invalid' }));
    expect(bare.isError).toBeUndefined();
    expect(bare.structuredContent).toBeUndefined();
    expect(bare.content.map((c) => (c as { text: string }).text)).toEqual([expect.stringContaining('not valid JSON'), '{"id": 1, "name": "trunc']);
    const wrappedSchema: JsonSchema = { type: 'object', properties: { result: { type: ['array', 'null'] } }, required: ['result'] };
    const wrapped = await call(tool('bad_json_list', { path: '/json/invalid' }, { outputWrapped: true, outputSchema: wrappedSchema }));
    expect(wrapped.isError).toBeUndefined();
    expect(wrapped.structuredContent).toMatchObject({ result: null, content_type: 'application/json' });
    expect(validate(wrappedSchema, wrapped.structuredContent).valid).toBe(true);
  });
});

describe('media responses', () => {
  it('image -> image block with valid base64 + a text line', async () => {
    const t = tool('get_png', { path: '/image.png', accept: ['image/png'] });
    const r = await call(t);
    const bytes = Uint8Array.from(atob(TINY_PNG_BASE64), (c) => c.charCodeAt(0)).length;
    expect(r).toEqual({
      content: [
        { type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' },
        { type: 'text', text: `Image: image/png, ${bytes} bytes from GET /image.png.` },
      ],
    });
  });

  it('audio -> audio block + a text line', async () => {
    const t = tool('get_wav', { path: '/audio.wav', accept: ['audio/wav'] });
    const r = await call(t);
    expect(r.content).toHaveLength(2);
    const a = r.content[0]!;
    expect(a.type).toBe('audio');
    if (a.type !== 'audio') return;
    expect(a.mimeType).toBe('audio/wav');
    expect(atob(a.data).slice(0, 4)).toBe('RIFF');
    expect(atob(a.data).length).toBe(124);
    expect(text(r, 1)).toBe('Audio: audio/wav, 124 bytes from GET /audio.wav.');
  });

  it('PDF -> embedded resource with blob, uri and mimeType + a text line', async () => {
    const t = tool('get_pdf', { path: '/doc.pdf', accept: ['application/pdf'] });
    const r = await call(t);
    const b = r.content[0]!;
    expect(b.type).toBe('resource');
    if (b.type !== 'resource') return;
    expect(b.resource.uri).toBe('upstream://get_pdf/doc.pdf');
    expect(b.resource.mimeType).toBe('application/pdf');
    expect('blob' in b.resource && atob(b.resource.blob).startsWith('%PDF-1.4')).toBe(true);
    expect(text(r, 1)).toMatch(/^File: application\/pdf, \d+ bytes from GET \/doc\.pdf\.$/);
  });

  it('octet-stream -> resource with exact bytes', async () => {
    const t = tool('get_bytes', { path: '/bytes', accept: ['application/octet-stream'] });
    const r = await call(t);
    const b = r.content[0]!;
    if (b.type !== 'resource') throw new Error('expected resource');
    expect('blob' in b.resource ? b.resource.blob : undefined).toBe(btoa(String.fromCharCode(0, 1, 2, 3, 254, 255)));
  });

  it.each([
    ['/data.csv', 'text/csv', 'id,name\n1,Rex\n2,"Fido, Jr."\n'],
    ['/readme.md', 'text/markdown', '# Title\n\nSome *markdown*.\n'],
    ['/feed.xml', 'application/xml', '<?xml version="1.0"?><feed><id>1</id></feed>'],
  ])('%s -> one text block', async (path, accept, body) => {
    const t = tool('get_text', { path, accept: [accept] });
    expect(await call(t)).toEqual({ content: [{ type: 'text', text: body }] });
  });

  it('204 without outputSchema -> short text, no structuredContent', async () => {
    const t = tool('delete_pet', { path: '/no-content', method: 'DELETE', accept: [] });
    const r = await call(t);
    expect(r).toEqual({ content: [{ type: 'text', text: 'HTTP 204 No Content: the upstream accepted DELETE /no-content and returned no content.' }] });
  });

  it('204 with an open outputSchema -> structuredContent {}', async () => {
    const t = tool('delete_pet2', { path: '/no-content', method: 'DELETE' }, { outputSchema: { type: 'object', properties: { id: { type: 'integer' } } } });
    const r = await call(t);
    expect(r.structuredContent).toEqual({});
    expect(r.isError).toBeUndefined();
  });

  it('204 with a schema that needs fields -> isError that says not to retry, no structuredContent', async () => {
    const t = tool('delete_pet3', { path: '/no-content', method: 'DELETE' }, { outputSchema: petSchema });
    const r = await call(t);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('do not retry');
  });

  it('empty 200 body -> short text', async () => {
    const t = tool('empty', { path: '/empty' });
    expect(text(await call(t))).toMatch(/^HTTP 200 OK: the upstream accepted GET \/empty and returned no content\.$/);
  });

  it('non-JSON success for a tool with an open outputSchema -> descriptor structuredContent that validates', async () => {
    const t = tool('csv_with_schema', { path: '/data.csv' }, { outputSchema: { type: 'object' } });
    const r = await call(t);
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent).toMatchObject({ content_type: 'text/csv', text: 'id,name\n1,Rex\n2,"Fido, Jr."\n' });
  });
});

describe('large results', () => {
  const listSchema: JsonSchema = {
    type: 'object',
    properties: { total_count: { type: 'integer' }, items: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } } } } },
  };
  const paged = { type: 'object', properties: { per_page: { type: 'integer' }, page: { type: 'integer' } } };

  it('cuts arrays to the budget, keeps valid JSON and schema, and says how to get the rest', async () => {
    const t = tool('list_big', { path: '/json/big' }, { outputSchema: listSchema, inputSchema: paged });
    const r = await call(t, {}, { maxResultTokens: 5000 });
    expect(r.isError).toBeUndefined();
    const s = r.structuredContent as { items: unknown[]; total_count: number; truncated: string };
    expect(text(r).length).toBeLessThanOrEqual(5000 * 4);
    expect(s.items.length).toBeGreaterThan(10);
    expect(s.items.length).toBeLessThan(5000);
    expect(s.total_count).toBe(5000);
    expect(s.truncated).toMatch(/\$\.items: kept \d+ of 5000 items/);
    expect(s.truncated).toContain('per_page, page');
    expect(lastRecord()).toMatchObject({ truncated: true, outcome: 'ok' });
  });

  it('root arrays without schema: valid JSON text plus a note block', async () => {
    const t = tool('list_big_raw', { path: '/json/big', params: [{ arg: 'root', name: 'root', in: 'query', style: 'form', explode: true, required: false }] });
    const r = await call(t, { root: 'array' }, { maxResultTokens: 2000 });
    const arr = JSON.parse(text(r, 0)) as unknown[];
    expect(arr.length).toBeLessThan(5000);
    expect(text(r, 0).length).toBeLessThanOrEqual(8000);
    expect(text(r, 1)).toMatch(/kept \d+ of 5000 items/);
  });

  it('never breaks base64 strings: they are omitted whole', async () => {
    const t = tool('big_strings', { path: '/json/bigstring' }, { outputSchema: { type: 'object' } });
    const r = await call(t, {}, { maxResultTokens: 20000 });
    const s = r.structuredContent as { blob: string; text: string };
    expect(s.blob === 'QUJD'.repeat(50_000) || /^\[\d+ characters omitted/.test(s.blob)).toBe(true);
    expect(text(r).length).toBeLessThanOrEqual(80_000);
  });
});
