// Catalogue format 2 inside workerd: requests touch only the tools they need (a sharded catalogue makes that visible:
// each shard is fetched when a tool in it is first needed), shared subtrees validate from every tool that uses them,
// and a format-1 file is refused with how to regenerate it.
import { describe, expect, inject, it } from 'vitest';
import { writeCatalogue } from '../../scripts/catalog/write-catalogue.ts';
import { createApp } from '../../src/app.ts';
import { CatalogueFormatError } from '../../src/catalogue/catalogue-text.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { Catalogue, JsonSchema } from '../../src/catalogue/types.ts';
import { validate } from '../../src/catalogue/validator.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';

const KEY = 'mcp_test_0123456789abcdef0123456789abcdef';
const env = { API_KEY: KEY, UPSTREAM_URL: inject('upstreamUrl'), CREDENTIAL_MODE: 'key' };

function post(path: string, body: Record<string, unknown>): Request {
  return new Request(`http://127.0.0.1:8787${path}`, {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...body }),
  });
}

async function shardedFixture() {
  const files = await writeCatalogue(fixtureCatalogue(), { shardAboveBytes: 1 });
  const loaded = loadCatalogue(files.text);
  const fetched: string[] = [];
  loaded.useShards(async (name) => {
    fetched.push(name);
    return files.shards.get(name)!;
  });
  return { loaded, fetched, shards: [...files.shards.keys()].sort() };
}

describe('lazy catalogue', () => {
  it('initialize reads no tool; tools/call reads its own tool; tools/list reads its slice', async () => {
    const { loaded, fetched, shards } = await shardedFixture();
    expect(shards).toEqual(['admin.txt', 'echo.txt']);
    const app = createApp(loaded);
    const init = await app.fetch(post('/mcp/x/all', { method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }), env as never);
    expect(init.status).toBe(200);
    expect(fetched).toEqual([]);
    const call = await app.fetch(post('/mcp/x/all', { method: 'tools/call', params: { name: 'echo_get', arguments: { id: 'a' } } }), env as never);
    expect(await call.text()).toContain('"structuredContent"');
    expect(fetched).toEqual(['echo.txt']);
    const list = await app.fetch(post('/mcp/x/admin', { method: 'tools/list' }), env as never);
    expect(await list.text()).toContain('echo_remove');
    expect(fetched).toEqual(['echo.txt', 'admin.txt']);
    // The healthz route and the page need index data only.
    expect(((await (await app.fetch(new Request('http://127.0.0.1:8787/healthz'), env as never)).json()) as { catalogue: { tools: number } }).catalogue.tools).toBe(2);
    expect((await app.fetch(new Request('http://127.0.0.1:8787/'), env as never)).status).toBe(200);
    expect(fetched).toHaveLength(2);
  });

  it('a shard that cannot be read fails the request, and is fetched again next time', async () => {
    const files = await writeCatalogue(fixtureCatalogue(), { shardAboveBytes: 1 });
    const loaded = loadCatalogue(files.text);
    let fail = true;
    loaded.useShards(async (name) => {
      if (fail) throw new Error('asset unavailable');
      return files.shards.get(name)!;
    });
    const i = loaded.indexOf('echo_get')!;
    await expect(loaded.load([i])).rejects.toThrow(/cannot read shard echo.txt: asset unavailable/);
    fail = false;
    await loaded.load([i]);
    expect(loaded.tool(i).name).toBe('echo_get');
  });

  it('a subtree shared by two tools validates from both, in either order', async () => {
    const shared: JsonSchema = { type: 'object', properties: { method: { type: 'string' }, url: { type: 'string' }, extra: { type: 'integer' } } };
    const c: Catalogue = fixtureCatalogue();
    c.tools = c.tools.map((t) => ({ ...t, outputSchema: shared }));
    const text = (await writeCatalogue(c)).text;
    for (const order of [['echo_get', 'echo_remove'], ['echo_remove', 'echo_get']]) {
      const loaded = loadCatalogue(text);
      const [a, b] = order.map((n) => loaded.byName.get(n)!.outputSchema!);
      expect(a).toBe(b); // one object: the table entry
      for (const s of [a!, b!]) {
        expect(validate(s, { method: 'GET', url: '/x' }).valid).toBe(true);
        expect(validate(s, { method: 'GET', extra: 'no' }).errors.join()).toMatch(/extra/);
      }
    }
  });

  it('refuses a format-1 catalogue, saying how to regenerate it', () => {
    const old = JSON.stringify({ ...fixtureCatalogue(), format: 1 });
    expect(() => loadCatalogue(old)).toThrow(CatalogueFormatError);
    expect(() => loadCatalogue(old)).toThrow(/catalog\.txt is format 1 \(written by an older generator\); this Worker reads format 2\. Regenerate it: npm run catalog -- --spec fixture/);
    expect(() => loadCatalogue('hello')).toThrow(/not a generated catalogue/);
  });
});
