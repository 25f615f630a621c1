// Large-catalogue behaviour at CI size: a generated spec (many toolsets, schemas shared across and within them)
// built with the shard threshold lowered, so its records go into static-asset shards as a catalogue too large for one
// module would (Microsoft Graph's full build runs in `npm run bench`). The catalogue must bundle with
// `wrangler deploy --dry-run` (assets included) and serve one toolset and /mcp/discover through `npm run serve`,
// each shard fetched through the ASSETS binding when first needed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as catalogCli } from '../../scripts/catalog/cli.ts';
import { binDir, childEnv, freePort, repoRoot } from '../../scripts/lib/proc.ts';
import { writeCatalogueConfig } from '../../scripts/lib/wrangler.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { startUpstream } from '../support/upstream-server.ts';
import { connectV1, connectV2, npmUntilBanner, textOf, type BannerChild } from './helpers.ts';

const TAGS = 12;
const PER_TAG = 5;
// Words that tell the operations apart: search reads numbers in a query as values, not words.
const GROUP_WORDS = ['apple', 'birch', 'cedar', 'daisy', 'elder', 'fern', 'ginger', 'hazel', 'iris', 'juniper', 'kale', 'lilac'];
const OP_WORDS = ['amber', 'bronze', 'coral', 'denim', 'ebony'];

/** An OpenAPI document with TAGS toolsets of PER_TAG operations; `Echo` is shared by all, `ItemN` within a tag. */
function generatedSpec(): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {
    Echo: {
      type: 'object',
      properties: {
        method: { type: 'string', description: 'The HTTP method the upstream received.' },
        url: { type: 'string', description: 'The path and query the upstream received.' },
        headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'Request headers as received.' },
      },
    },
  };
  for (let t = 0; t < TAGS; t++) {
    schemas[`Item${t}`] = { type: 'object', properties: { name: { type: 'string', description: `Name of an item of group ${t}.` }, size: { type: 'integer', minimum: 0 } } };
    for (let o = 0; o < PER_TAG; o++) {
      paths[`/echo/group${t}/op${o}/{id}`] = {
        post: {
          operationId: `group${t}Op${o}`,
          tags: [`group${t}`],
          summary: `Operation ${o} of group ${t}`,
          description: `Handles ${OP_WORDS[o]} ${GROUP_WORDS[t]} items.`,
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          requestBody: { content: { 'application/json': { schema: { $ref: `#/components/schemas/Item${t}` } } } },
          responses: { 200: { description: 'echo', content: { 'application/json': { schema: { $ref: '#/components/schemas/Echo' } } } } },
        },
      };
    }
  }
  const tags = Array.from({ length: TAGS }, (_, t) => ({ name: `group${t}`, description: `Group ${t} operations` }));
  return { openapi: '3.0.3', info: { title: 'Generated large API', version: '1.0.0' }, servers: [{ url: 'https://api.example.com' }], tags, paths, components: { schemas } };
}

let dir: string;
let spec: string;
let upstream: { url: string; close: () => Promise<void> };
let served: BannerChild | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-large-'));
  spec = join(dir, 'spec.json');
  writeFileSync(spec, JSON.stringify(generatedSpec()));
  upstream = await startUpstream();
  const port = await freePort();
  served = await npmUntilBanner(['run', 'serve', '--', '--spec', spec, '--upstream', upstream.url, '--key', 'mcp_test_large0000000000000000000000000', '--shard-above-bytes', '1', '--port', String(port)], { PORT: undefined });
});

afterAll(async () => {
  await served?.child.stop();
  await upstream?.close();
});

describe('a sharded catalogue', () => {
  it('is written as catalog.txt plus one shard per toolset, and reads back whole', async () => {
    const out = join(dir, 'catalog');
    expect(await catalogCli(['--spec', spec, '--out', out, '--shard-above-bytes', '1', '--quiet'])).toBe(0);
    const shards = readdirSync(join(out, 'shards')).filter((f) => f.endsWith('.txt')).sort();
    expect(shards).toEqual(Array.from({ length: TAGS }, (_, t) => `group${t}.txt`).sort());
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(new RegExp(`sharded: catalog.txt plus ${TAGS} shard files`));
    const loaded = loadCatalogue(readFileSync(join(out, 'catalog.txt'), 'utf8'));
    expect(loaded.sharded).toBe(true);
    expect(loaded.count).toBe(TAGS * PER_TAG);
    // Index data works without a shard; a tool needs its shard.
    expect(loaded.toolsetsOf(loaded.indexOf('group3_op1')!)).toEqual(['group3']);
    expect(() => loaded.tool(0)).toThrow(/not loaded/);
    // Code mode's declarations go to the static assets with the shards; declarations.txt only names them.
    const stub = JSON.parse(readFileSync(join(out, 'declarations.txt'), 'utf8')) as { asset: string; catalogueHash: string; tools: object };
    expect(stub).toMatchObject({ asset: 'code-mode-declarations.json', catalogueHash: loaded.catalogue.hash, tools: {} });
    const doc = JSON.parse(readFileSync(join(out, 'shards', stub.asset), 'utf8')) as { catalogueHash: string; tools: Record<string, { fn: string }> };
    expect(doc.catalogueHash).toBe(loaded.catalogue.hash);
    expect(Object.keys(doc.tools)).toHaveLength(TAGS * PER_TAG);
    // --check compares the shards too.
    expect(await catalogCli(['--spec', spec, '--out', out, '--shard-above-bytes', '1', '--check', '--quiet'])).toBe(0);
    writeFileSync(join(out, 'shards', 'group0.txt'), 'stale\n');
    expect(await catalogCli(['--spec', spec, '--out', out, '--shard-above-bytes', '1', '--check', '--quiet'])).toBe(1);
    expect(await catalogCli(['--spec', spec, '--out', out, '--shard-above-bytes', '1', '--quiet'])).toBe(0);
    writeFileSync(join(out, 'shards', stub.asset), '{}\n');
    expect(await catalogCli(['--spec', spec, '--out', out, '--shard-above-bytes', '1', '--check', '--quiet'])).toBe(1);
  });

  it('bundles with wrangler deploy --dry-run, shards as static assets', async () => {
    const out = join(dir, 'catalog');
    expect(await catalogCli(['--spec', spec, '--out', out, '--shard-above-bytes', '1', '--quiet'])).toBe(0);
    const config = await writeCatalogueConfig(out);
    const r = spawnSync(join(binDir, 'wrangler'), ['deploy', '--dry-run', '--config', config, '--outdir', join(dir, 'dist')], { cwd: repoRoot, env: childEnv(), encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    // The shards, the declarations, the drift check's baseline (spec-operations.json) and the ignore file.
    expect(`${r.stdout}${r.stderr}`).toMatch(new RegExp(`Read ${TAGS + 3} files? from the assets directory`));
    expect(`${r.stdout}${r.stderr}`).toMatch(/env\.ASSETS/);
  });

  it('serves one toolset through npm run serve: the strict client lists it and calls a tool', async () => {
    const client = await connectV1(served!.endpoint.replace(/\/mcp$/, '/mcp/x/group7'), { Authorization: `Bearer ${served!.key}` });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(Array.from({ length: PER_TAG }, (_, o) => `group7_op${o}`));
      const result = (await client.callTool({ name: 'group7_op2', arguments: { id: 'x1', name: 'n', size: 2 } })) as { isError?: boolean; structuredContent?: { method: string; url: string } };
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ method: 'POST', url: '/echo/group7/op2/x1' });
    } finally {
      await client.close();
    }
  });

  it('serves code mode: search answers with typed declarations read from the static assets, execute calls across shards', async () => {
    const client = await connectV2(served!.endpoint.replace(/\/mcp$/, '/mcp/code'), { Authorization: `Bearer ${served!.key}` });
    try {
      const found = (await client.callTool({ name: 'search', arguments: { query: 'ebony lilac items' } })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(found.isError, textOf(found)).toBeFalsy();
      // Typed (from the declarations asset), not the untyped fallback `args?: Record<string, unknown>`.
      expect(found.content[0]!.text).toMatch(/function group11_op4\(args: Group11Op4Args\)/);
      const run = (await client.callTool({ name: 'execute', arguments: { code: "return (await api.group5_op3({ id: 'z' })).url;" } })) as { isError?: boolean };
      expect(run.isError, textOf(run)).toBeFalsy();
      expect(textOf(run)).toContain('/echo/group5/op3/z');
    } finally {
      await client.close();
    }
  });

  it('serves /mcp/discover: search, describe and call across shards', async () => {
    const client = await connectV2(served!.endpoint.replace(/\/mcp$/, '/mcp/discover'), { Authorization: `Bearer ${served!.key}` });
    try {
      const search = (await client.callTool({ name: 'search_tools', arguments: { query: 'ebony lilac items' } })) as { structuredContent: { results: Array<{ name: string }> } };
      expect(search.structuredContent.results.map((r) => r.name)).toContain('group11_op4');
      const described = (await client.callTool({ name: 'describe_tool', arguments: { name: 'group2_op0' } })) as { structuredContent: { inputSchema: { properties: Record<string, unknown> } } };
      expect(Object.keys(described.structuredContent.inputSchema.properties).sort()).toEqual(['_fields', 'id', 'name', 'size']); // its own three, and the projection argument
      const called = (await client.callTool({ name: 'call_tool', arguments: { name: 'group5_op3', arguments: { id: 'y' } } })) as { isError?: boolean; structuredContent?: { url: string } };
      expect(called.isError, textOf(called)).toBeFalsy();
      expect(called.structuredContent?.url).toBe('/echo/group5/op3/y');
    } finally {
      await client.close();
    }
  });
});
