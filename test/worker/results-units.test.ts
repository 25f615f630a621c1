// The result-shaping modules (src/results) one by one: links, compaction, projection, paging arithmetic, notes,
// and how src/upstream/response.ts applies a shaped result (schema re-check, note keys, schema-less tools).
import { describe, expect, it } from 'vitest';
import type { CatalogueTool } from '../../src/catalogue/types.ts';
import { estimateTokens } from '../../src/lib/tokens.ts';
import { compactJson } from '../../src/results/result-compaction.ts';
import { compilePatterns, patternProblem } from '../../src/results/field-pattern.ts';
import { isHypermedia, originOf } from '../../src/results/links.ts';
import { compactRules, fieldsAsText } from '../../src/results/options.ts';
import { continuation, pageRequest, wholeItemsThatFit } from '../../src/results/paging.ts';
import { fieldTree, parseFields, project, unknownPaths } from '../../src/results/projection.ts';
import { resultBudget } from '../../src/results/budget.ts';
import { planResult, shapeResult } from '../../src/results/shape.ts';
import { convertResponse } from '../../src/upstream/response.ts';

const API = 'https://api.example.com';
const rules = compactRules({ origins: [`${API}/v2`] }, ['http://127.0.0.1:9999/mock']);
const options = { compact: true, rules };

function listTool(extra: Partial<CatalogueTool> = {}): CatalogueTool {
  return {
    name: 'things_list',
    title: 't',
    description: 't',
    inputSchema: { type: 'object', properties: { page: { type: 'integer', default: 1 }, per_page: { type: 'integer', default: 30, maximum: 100 }, _fields: { type: 'string' } } },
    outputSchema: {
      type: 'object',
      properties: {
        result: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' }, owner: { type: 'object', properties: { login: { type: 'string' } } }, tags: { type: 'array', items: { anyOf: [{ type: 'object', properties: { label: { type: 'string' } } }, { type: 'string' }] } }, meta: { type: 'object' } } } },
      },
      required: ['result'],
    },
    outputWrapped: true,
    annotations: { title: 't', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    toolsets: ['t'],
    http: { method: 'GET', path: '/things', params: [], accept: ['application/json'] },
    result: { fields: '_fields', items: 'result', paging: { page: 'page', size: 'per_page', itemTokens: 28 } },
    ...extra,
  };
}

describe('links', () => {
  it('normalises origins and recognises API links, URI templates and paging links', () => {
    expect(originOf('HTTPS://API.Example.com:443/x?y')).toBe(API);
    expect(originOf('http://user@host:80/')).toBe('http://host');
    expect(originOf('/relative')).toBeUndefined();
    expect(isHypermedia('url', undefined, `${API}/things/1`, rules)).toBe(true);
    expect(isHypermedia('events_url', undefined, 'https://elsewhere.example/x{/id}', rules)).toBe(true);
    expect(isHypermedia('repoUrl', undefined, 'http://127.0.0.1:9999/things', rules)).toBe(true); // the configured upstream
    expect(isHypermedia('html_url', undefined, 'https://example.com/things/1', rules)).toBe(false);
    expect(isHypermedia('homepage', undefined, `${API}/x`, rules)).toBe(false); // not a link field by name or declaration
    expect(isHypermedia('next', undefined, `${API}/things?page=2`, rules)).toBe(false);
    expect(isHypermedia('next_page_url', undefined, `${API}/things?page=2`, rules)).toBe(false);
    expect(isHypermedia('nextLink', undefined, `${API}/things?page=2`, rules)).toBe(false);
    expect(isHypermedia('last_commit_url', undefined, `${API}/commits/1`, rules)).toBe(true);
    expect(isHypermedia('self', '_links', `${API}/things/1`, rules)).toBe(true);
    expect(isHypermedia('homepage', undefined, `${API}/x`, compactRules({ origins: [API], linkFields: ['homepage'] }))).toBe(true);
  });
});

describe('compaction', () => {
  it('drops nulls, empties and hypermedia from objects, never array elements, and cascades', () => {
    const v = { id: 1, a: null, b: '', c: [], d: {}, e: { url: `${API}/e`, f: null }, list: [null, {}, '', 0, { g: null }], html_url: 'https://example.com/1', flag: false, zero: 0 };
    expect(compactJson(v, rules)).toEqual({ id: 1, list: [null, {}, '', 0, { g: null }], html_url: 'https://example.com/1', flag: false, zero: 0 });
    expect(compactJson({ a: null }, rules)).toEqual({});
    expect(compactJson([], rules)).toEqual([]);
  });

  it('keep and drop patterns match key-path suffixes; named fields survive everything', () => {
    const r = compactRules({ origins: [API], keep: ['owner.url', 'x*'], drop: ['node_id', '*.secret'] });
    const v = { url: `${API}/1`, owner: { url: `${API}/u`, node_id: 'N', secret: 's', xa: null }, node_id: 'M', secret: 'top' };
    expect(compactJson(v, r)).toEqual({ owner: { url: `${API}/u`, xa: null }, secret: 'top' });
    // A projection's fields are kept as keys even when null, linked or dropped; what is under them is compacted.
    expect(compactJson({ url: `${API}/1`, node_id: 'M', a: null, o: { b: null, c: 1 } }, r, fieldTree([['url'], ['node_id'], ['a'], ['o']]))).toEqual({ url: `${API}/1`, node_id: 'M', a: null, o: { c: 1 } });
    expect(patternProblem('a..b')).toMatch(/empty segment/);
    expect(patternProblem('')).toMatch(/non-empty/);
    expect(compilePatterns(['a.b'])(['x', 'a', 'b'])).toBe(true);
    expect(compilePatterns(['a.b'])(['b'])).toBe(false);
  });
});

describe('projection', () => {
  const tool = listTool();
  const itemSchema = (tool.outputSchema!.properties as Record<string, unknown>).result;

  it('parses comma-separated or array paths, "*" for everything, and refuses empty segments', () => {
    expect(parseFields(' id , owner.login ,')).toEqual({ paths: [['id'], ['owner', 'login']] });
    expect(parseFields(['id', 'name,tags.label'])).toEqual({ paths: [['id'], ['name'], ['tags', 'label']] });
    expect(parseFields('id,*')).toEqual({ all: true });
    expect(parseFields(' , ')).toHaveProperty('error');
    expect(parseFields(5)).toHaveProperty('error');
    expect(fieldsAsText(tool, { _fields: ['id', 'name'] })).toEqual({ _fields: 'id,name' });
  });

  it('checks paths through arrays, anyOf branches and open objects; a path below a scalar is unknown', () => {
    expect(unknownPaths([itemSchema], [['id'], ['owner', 'login'], ['tags', 'label'], ['meta', 'anything', 'deeper']])).toEqual([]);
    expect(unknownPaths([itemSchema], [['nope'], ['id', 'x'], ['owner', 'nope']])).toEqual(['nope', 'id.x', 'owner.nope']);
  });

  it('keeps only the named fields of every item, in data order, nulls included when named', () => {
    const items = [{ id: 1, name: 'a', owner: { login: 'o', id: 9 }, tags: [{ label: 'x', n: 1 }, 'plain'] }, { name: 'b', owner: null }];
    expect(project(items, fieldTree([['owner', 'login'], ['id'], ['tags', 'label'], ['owner']]))).toEqual([
      { id: 1, owner: { login: 'o', id: 9 }, tags: [{ label: 'x' }, 'plain'] },
      { owner: null },
    ]);
  });
});

describe('paging', () => {
  it('chooses a page size below the API default when the example says items are large', () => {
    const tool = listTool();
    const args: Record<string, unknown> = {};
    expect(pageRequest(tool, tool.result!.paging, args, 500, true)).toEqual({ fitted: { value: 16, apiDefault: 30 }, size: 16, page: 1 });
    expect(args).toEqual({ per_page: 16 });
    const given = { per_page: 50, page: 3 };
    expect(pageRequest(tool, tool.result!.paging, given, 500, true)).toEqual({ size: 50, page: 3 });
    const noDefault = listTool({ inputSchema: { type: 'object', properties: { per_page: { type: 'integer' } } } });
    const a2: Record<string, unknown> = {};
    expect(pageRequest(noDefault, noDefault.result!.paging, a2, 500, true).fitted).toBeUndefined();
    expect(a2).toEqual({});
  });

  it('fits whole items and names the exact next call', () => {
    expect(wholeItemsThatFit([10, 10, 10], 21)).toBe(2);
    expect(wholeItemsThatFit([10, 10, 10], 20)).toBe(1);
    expect(wholeItemsThatFit([30], 20)).toBe(0);
    const p = { page: 'page', size: 'per_page' };
    expect(continuation(p, { page: 1, size: 30 }, [], 7)).toEqual({ show: 7, next: { per_page: 7, page: 2 }, then: 'page' });
    // Page 3 of 30: 60 items before it; 7 fit, 6 divides 60, so page 12 of size 6 starts at item 67.
    expect(continuation(p, { page: 3, size: 30 }, [], 7)).toEqual({ show: 6, next: { per_page: 6, page: 12 }, then: 'page' });
    expect(continuation(p, { page: 3 }, [], 7)).toEqual({ show: 7 });
    expect(continuation({ offset: 'offset', size: 'limit' }, { offset: 40 }, [], 5)).toEqual({ show: 5, next: { offset: 45, limit: 5 } });
    expect(continuation({ after: 'starting_after', size: 'limit' }, {}, [{ id: 'a' }, { id: 'b' }], 2)).toEqual({ show: 2, next: { starting_after: 'b', limit: 2 } });
    expect(continuation({ after: 'starting_after' }, {}, [{ name: 'no id' }], 1)).toEqual({ show: 1 });
    expect(continuation({ cursor: 'after', size: 'per_page' }, {}, [], 4)).toEqual({ show: 4, next: { per_page: 4 }, viaCursor: 'after' });
  });
});

describe('shapeResult', () => {
  const tool = listTool();
  const items = Array.from({ length: 30 }, (_, i) => ({ id: i + 1, name: `n${i + 1}`.padEnd(80, '.'), url: `${API}/things/${i + 1}`, empty: null }));

  it('over the budget: a prefix of whole compacted items, and the call for the rest', () => {
    const planned = planResult(tool, { per_page: 30 }, options, resultBudget(500));
    if ('error' in planned) throw new Error(planned.error);
    const s = shapeResult({ result: items }, planned.plan);
    const shown = (s.value as { result: unknown[] }).result;
    expect(s.cut).toBe(true);
    expect(shown).toEqual(items.slice(0, shown.length).map(({ id, name }) => ({ id, name })));
    expect(estimateTokens(JSON.stringify(s.value))).toBeLessThanOrEqual(500 - 300);
    expect(s.note).toContain(`Showing ${shown.length} of 30 items`);
    expect(s.note).toContain(`{"per_page":${shown.length},"page":2}`);
  });

  it('a page size chosen here is mentioned only when the page came back full', () => {
    const planned = planResult(tool, {}, options, resultBudget(500));
    if ('error' in planned) throw new Error(planned.error);
    expect(planned.args).toEqual({ per_page: 16 });
    expect(shapeResult({ result: items.slice(0, 16) }, planned.plan, resultBudget(25_000)).note).toContain('per_page=16 was chosen');
    expect(shapeResult({ result: items.slice(0, 3) }, planned.plan, resultBudget(25_000)).note).toBeUndefined();
  });

  it('without an outputSchema, a projection is checked on the data and never fails a call that succeeded', () => {
    const bare = listTool({ outputSchema: undefined, outputWrapped: undefined });
    const planned = planResult(bare, { _fields: 'id,nope' }, options, resultBudget(25_000));
    if ('error' in planned) throw new Error(planned.error);
    const s = shapeResult(items.slice(0, 2), planned.plan, resultBudget(25_000));
    expect(s.value).toEqual([{ id: 1 }, { id: 2 }]);
    expect(s.note).toMatch(/^No item has nope\. Its fields are: id, name, url, empty\.$/);
  });
});

describe('response.ts with shaping', () => {
  const body = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
  const ctx = { status: 200, statusText: 'OK', contentType: 'application/json', method: 'GET', path: '/things', budget: resultBudget(500), maxBinaryBytes: 1000 };
  const items = Array.from({ length: 40 }, (_, i) => ({ id: i + 1, name: 'x'.repeat(60) }));

  it('puts the note under a key the schema and data do not use', () => {
    const tool = listTool();
    (tool.outputSchema!.properties as Record<string, unknown>).truncated = { type: 'boolean' };
    const planned = planResult(tool, { per_page: 40 }, options, resultBudget(500));
    if ('error' in planned) throw new Error(planned.error);
    const { result, truncated } = convertResponse(tool, tool.outputSchema, body(items), { ...ctx, shape: (v: unknown) => shapeResult(v, planned.plan) });
    expect(truncated).toBe(true);
    const sc = result.structuredContent as Record<string, unknown>;
    expect(sc.truncated).toBeUndefined();
    expect(String(sc._truncated)).toMatch(/^Showing \d+ of 40 items/);
  });

  it('reverts shaping a hand-written schema would reject (a required field compaction removes)', () => {
    const tool = listTool({ outputWrapped: undefined, result: { fields: '_fields' }, outputSchema: { type: 'object', properties: { a: { type: ['string', 'null'] } }, required: ['a'] } });
    const planned = planResult(tool, {}, options, resultBudget(500));
    if ('error' in planned) throw new Error(planned.error);
    const { result } = convertResponse(tool, tool.outputSchema, body({ a: null, b: 1 }), { ...ctx, shape: (v: unknown) => shapeResult(v, planned.plan) });
    expect(result.structuredContent).toEqual({ a: null, b: 1 });
  });

  it('a tool without an outputSchema gets the note as its own text block for the assistant', () => {
    const tool = listTool({ outputSchema: undefined, outputWrapped: undefined });
    const planned = planResult(tool, { per_page: 40 }, options, resultBudget(500));
    if ('error' in planned) throw new Error(planned.error);
    const { result } = convertResponse(tool, tool.outputSchema, body(items), { ...ctx, shape: (v: unknown) => shapeResult(v, planned.plan) });
    expect(result.structuredContent).toBeUndefined();
    const shown = JSON.parse((result.content[0] as { text: string }).text) as unknown[];
    expect(shown).toEqual(items.slice(0, shown.length));
    expect(result.content[1]).toMatchObject({ type: 'text', annotations: { audience: ['assistant'] } });
    expect((result.content[1] as { text: string }).text).toContain(`{"per_page":${shown.length},"page":2}`);
  });
});
