// OpenAI strict function calling under the openai profile: the checker written from OpenAI's published rules, the
// strict form of every GitHub tool (listing and describe_tool), and the mapping of strict arguments back.
import { readFileSync } from 'node:fs';
import { toolsOf } from '../../scripts/catalog/catalogue-files.ts';
import { describe, expect, it } from 'vitest';
import { strictProblems } from '../../scripts/catalog/openai-strict-rules.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import type { JsonSchema } from '../../src/catalogue/types.ts';
import { validate } from '../../src/catalogue/validator.ts';
import { discoveryTools } from '../../src/discovery/listing.ts';
import { applyDialect } from '../../src/profiles/dialects.ts';
import { PROFILES } from '../../src/profiles/profiles.ts';
import { fromStrictArguments } from '../../src/profiles/strict-arguments.ts';
import { toStrictSchema } from '../../src/profiles/strict-schema.ts';
import { buildView } from '../../src/profiles/view.ts';

const loaded = loadCatalogue(readFileSync(new URL('../../catalog/catalog.txt', import.meta.url), 'utf8'));
const tool = (name: string) => loaded.byName.get(name)!;
const strict = (name: string) => applyDialect(tool(name).inputSchema, PROFILES.openai);

describe('the strict-mode checker (OpenAI Structured Outputs rules)', () => {
  const ok: JsonSchema = { type: 'object', properties: { a: { type: ['string', 'null'] } }, required: ['a'], additionalProperties: false };

  it('accepts a strict schema, including an empty argument object, nullable unions and $defs refs', () => {
    expect(strictProblems(ok)).toEqual([]);
    expect(strictProblems({ type: 'object', properties: {}, required: [], additionalProperties: false })).toEqual([]);
    const withRef = { ...ok, properties: { a: { anyOf: [{ $ref: '#/$defs/A' }, { type: 'null' }] } }, $defs: { A: { type: 'string', enum: ['x'] } } };
    expect(strictProblems(withRef)).toEqual([]);
  });

  it('rejects each rule violation the GitHub catalogue had before conversion', () => {
    const cases: Array<[JsonSchema, RegExp]> = [
      [{ type: 'object', properties: {} }, /additionalProperties is not false/], // a no-argument tool as generated
      [{ ...ok, required: [] }, /"a" is not required/],
      [{ ...ok, properties: { a: { type: 'object', description: 'free-form' } } }, /arguments\.a: additionalProperties is not false/],
      [{ ...ok, properties: { a: { allOf: [{ type: 'object', properties: {} }] } } }, /keyword "allOf"/],
      [{ ...ok, properties: { a: { type: 'array' } } }, /array without an items schema/],
      [{ anyOf: [ok, ok] }, /root: anyOf/],
      [{ ...ok, properties: { a: { type: 'string', default: 'x' } } }, /keyword "default"/],
      [{ ...ok, properties: { a: { type: 'string', maxLength: 3 } } }, /keyword "maxLength"/],
      [{ ...ok, properties: { a: { type: 'string', format: 'uri' } } }, /format "uri"/],
      [{ ...ok, properties: { a: {} } }, /no type/],
      [{ ...ok, properties: { a: { type: 'string', nullable: true } } }, /keyword "nullable"/],
    ];
    for (const [schema, re] of cases) expect(strictProblems(schema).join('\n'), JSON.stringify(schema)).toMatch(re);
  });

  it('enforces the size limits: nesting depth, enum values', () => {
    let deep: JsonSchema = { type: 'string' };
    for (let i = 0; i < 11; i++) deep = { type: 'object', properties: { x: deep }, required: ['x'], additionalProperties: false };
    expect(strictProblems(deep).join('\n')).toMatch(/nesting deeper than 10/);
    const many = { ...ok, properties: { a: { type: 'string', enum: Array.from({ length: 1001 }, (_, i) => `v${i}`) } } };
    expect(strictProblems(many).join('\n')).toMatch(/1001 enum values/);
  });
});

describe('the openai profile serves strict-form input schemas', () => {
  const tools = toolsOf(loaded);

  it('100% of GitHub tools pass strict mode, in the listing (compacted) and in describe_tool (full); 0% did before', () => {
    const view = buildView(loaded, sliceOf(loaded, {}), PROFILES.openai);
    expect(view.tools).toHaveLength(tools.length);
    const failures = [...view.tools.map((t) => [t.name, t.inputSchema] as const), ...tools.map((t) => [`describe ${t.name}`, strict(t.name)] as const)]
      .map(([name, schema]) => [name, strictProblems(schema)] as const)
      .filter(([, p]) => p.length);
    expect(failures.slice(0, 5)).toEqual([]);
    expect(tools.filter((t) => strictProblems(t.inputSchema).length === 0)).toHaveLength(0);
  });

  it('the discovery meta-tools are strict too: call_tool takes its arguments as a JSON string', () => {
    const meta = discoveryTools(PROFILES.openai);
    for (const t of meta) expect(strictProblems(t.inputSchema), t.name).toEqual([]);
    expect((meta[2]!.inputSchema.properties as Record<string, JsonSchema>).arguments).toMatchObject({ type: ['string', 'null'] });
    expect(discoveryTools(PROFILES.default)[2]!.inputSchema.properties).toMatchObject({ arguments: { type: 'object' } });
  });

  it('handles the three cases that failed: no arguments, free-form objects, allOf-wrapped bodies', () => {
    // No arguments of its own: only the optional projection argument, nullable and listed as required in strict form.
    expect(strict('meta_get')).toEqual({ type: 'object', properties: { _fields: { type: ['string', 'null'], description: expect.any(String) } }, required: ['_fields'], additionalProperties: false });
    const dispatch = strict('actions_create_workflow_dispatch').properties as Record<string, JsonSchema>;
    expect(dispatch.inputs).toMatchObject({ type: ['string', 'null'] });
    expect(String(dispatch.inputs!.description)).toContain('A JSON object, as a string.');
    expect(JSON.stringify(tool('issues_add_labels').inputSchema)).toContain('"allOf"');
    expect(JSON.stringify(strict('issues_add_labels'))).not.toContain('allOf');
    // A map with typed values travels as {key, value} pairs.
    expect((strict('gists_create').properties as Record<string, JsonSchema>).files).toMatchObject({ type: 'array', items: { required: ['key', 'value'] } });
  });

  it('only loosens: every optional property accepts null and a default is named in the description', () => {
    const s = strict('issues_list_for_repo');
    const props = s.properties as Record<string, JsonSchema>;
    expect(s.required).toEqual(Object.keys(props));
    expect(props.owner!.type).toBe('string');
    expect(props.per_page).toMatchObject({ type: ['integer', 'null'] });
    expect(String(props.per_page!.description)).toMatch(/30/);
    expect(toStrictSchema(tool('issues_list_for_repo').inputSchema)).toBe(toStrictSchema(tool('issues_list_for_repo').inputSchema));
  });

  it('loosens schemas over strict mode\'s size limits (enum dropped, structure as a JSON string) rather than serve one the API rejects', () => {
    const kinds = Array.from({ length: 1200 }, (_, i) => `k${i}`);
    const big: JsonSchema = {
      type: 'object',
      properties: { kind: { type: 'string', enum: kinds }, n: { type: 'integer' }, spec: { type: 'object', properties: { kind: { type: 'string', enum: kinds } } } },
      required: ['n'],
    };
    const s = toStrictSchema(big);
    expect(strictProblems(s)).toEqual([]);
    expect((s.properties as Record<string, JsonSchema>).kind).toMatchObject({ type: ['string', 'null'] });
    expect(fromStrictArguments(big, { kind: 'k7', n: 1, spec: '{"kind":"k8"}' }).args).toEqual({ kind: 'k7', n: 1, spec: { kind: 'k8' } });
  });
});

describe('strict arguments map back to what the catalogue schema means', () => {
  const map = (name: string, args: Record<string, unknown>) => fromStrictArguments(tool(name).inputSchema, args);

  it('null means absent for optional properties, at every level', () => {
    const r = map('issues_create', { owner: 'o', repo: 'r', title: 'T', body: null, assignee: null, milestone: null, labels: null, assignees: ['a'], type: null, issue_field_values: null });
    expect(r).toEqual({ args: { owner: 'o', repo: 'r', title: 'T', assignees: ['a'] }, errors: [] });
    expect(validate(tool('issues_create').inputSchema, r.args).valid).toBe(true);
    const nested = map('issues_add_labels', { owner: 'o', repo: 'r', issue_number: 1, body: { labels: [{ name: 'bug', confidence: null, rationale: null, suggest: null }] } });
    expect(nested.args.body).toEqual({ labels: [{ name: 'bug' }] });
  });

  it('free-form objects from a JSON string or {key, value} pairs; values already in catalogue form pass unchanged', () => {
    expect(map('actions_create_workflow_dispatch', { owner: 'o', repo: 'r', workflow_id: 'ci.yml', ref: 'main', inputs: '{"env":"prod","debug":true}', return_run_details: null }).args).toEqual({
      owner: 'o',
      repo: 'r',
      workflow_id: 'ci.yml',
      ref: 'main',
      inputs: { env: 'prod', debug: true },
    });
    expect(map('gists_create', { files: [{ key: 'a.md', value: { content: '# A' } }], description: null, public: null }).args).toEqual({ files: { 'a.md': { content: '# A' } } });
    const plain = { owner: 'o', repo: 'r', workflow_id: 7, ref: 'main', inputs: { a: '1' } };
    expect(map('actions_create_workflow_dispatch', plain)).toEqual({ args: plain, errors: [] });
  });

  it('a free-form object that is not JSON is a readable argument error, not a guess', () => {
    const r = map('actions_create_workflow_dispatch', { owner: 'o', repo: 'r', workflow_id: 'ci.yml', ref: 'main', inputs: 'env=prod' });
    expect(r.errors).toEqual([expect.stringContaining('"inputs": expected a JSON object')]);
    expect(map('gists_create', { files: [{ name: 'x' }] }).errors[0]).toMatch(/"files": expected a list of \{"key"/);
  });

  it('a required property keeps an explicit null (the catalogue schema then reports it)', () => {
    expect(map('repos_get', { owner: null, repo: 'r' }).args).toEqual({ owner: null, repo: 'r' });
  });
});
