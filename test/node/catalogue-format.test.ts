// The catalogue format-2 writer: any plain-JSON tool field travels unchanged, repeated subtrees are stored once,
// what must not be shared is refused, and a sharded layout keeps shared entries in catalog.txt.
import { describe, expect, it } from 'vitest';
import { readCatalogue } from '../../scripts/catalog/catalogue-files.ts';
import { sortKeys } from '../../scripts/catalog/sort-keys.ts';
import { writeCatalogue } from '../../scripts/catalog/write-catalogue.ts';
import { INDEX_LINES } from '../../src/catalogue/file-format.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { Catalogue, CatalogueTool } from '../../src/catalogue/types.ts';
import { fixtureCatalogue } from '../worker/fixtures/catalogue.ts';

const big = { type: 'object', properties: { login: { type: 'string', description: 'The account login.' }, id: { type: 'integer' } } };

function catalogue(extra: (t: CatalogueTool, i: number) => Record<string, unknown> = () => ({})): Catalogue {
  const c = fixtureCatalogue();
  c.tools = c.tools.map((t, i) => ({ ...t, ...extra(t, i) }) as CatalogueTool);
  return c;
}

describe('catalogue format 2 writer', () => {
  it('carries fields it does not know, of any JSON type, and non-canonical annotations', async () => {
    const c = catalogue((t, i) => ({
      compaction: { drop: ['url', '*_url'], keepNulls: false },
      paging: i ? null : { page: 'page', perPage: { arg: 'per_page', max: 100 } },
      projectionArg: 'fields',
      emptyOnNoContent: true,
      weight: 0.5,
      annotations: i ? { ...t.annotations, title: 'Another title' } : t.annotations,
    }));
    const back = await readCatalogue((await writeCatalogue(c)).text);
    expect(back.tools.map((t) => JSON.stringify(t))).toEqual(c.tools.map((t) => JSON.stringify(sortKeys(t))));
  });

  it('stores a repeated subtree once and is deterministic', async () => {
    const c = catalogue(() => ({ outputSchema: big }));
    const a = await writeCatalogue(c);
    const b = await writeCatalogue(catalogue(() => ({ outputSchema: JSON.parse(JSON.stringify(big)) })));
    expect(b.text).toBe(a.text); // equal content, different objects: the same bytes
    expect(a.stats.tableEntries).toBe(2); // the schema, and the path parameter both tools bind
    expect(a.text.split('"description":"The account login."').length - 1).toBe(1);
    const header = JSON.parse(a.text.slice(0, a.text.indexOf('\n'))) as { format: number; table: number; index: number[] };
    expect(header).toMatchObject({ format: 2, table: 2 });
    expect(header.index).toHaveLength(INDEX_LINES.length);
  });

  it('carries the catalogue-level fields in the header, and the hash changes with any of them', async () => {
    const c = { ...catalogue(), results: { origins: ['https://api.example.com'], drop: ['node_id'] } };
    c.source = { ...c.source, digest: 'abc123' };
    const a = await writeCatalogue(c);
    const back = loadCatalogue(a.text).catalogue;
    expect(back.results).toEqual(c.results);
    expect(back.source.digest).toBe('abc123');
    expect((await readCatalogue(a.text)).results).toEqual(c.results);
    const otherRules = await writeCatalogue({ ...c, results: { ...c.results, drop: [] } });
    const otherDigest = await writeCatalogue({ ...c, source: { ...c.source, digest: 'def456' } });
    expect(new Set([a.hash, otherRules.hash, otherDigest.hash]).size).toBe(3);
    expect(a.text.slice(a.text.indexOf('\n'))).toBe(otherRules.text.slice(otherRules.text.indexOf('\n'))); // only the header differs
  });

  it('reads a format-1 catalogue (one JSON document, older generators) as the previous catalogue', async () => {
    const c = catalogue();
    const back = await readCatalogue(JSON.stringify({ ...c, format: 1 }));
    expect(back.tools.map((t) => t.name)).toEqual(c.tools.map((t) => t.name));
    await expect(readCatalogue('{"format":7}')).rejects.toThrow(/format 7/);
  });

  it('refuses a "$t" key and a $ref in a shared subtree', async () => {
    await expect(writeCatalogue(catalogue(() => ({ outputSchema: { type: 'object', properties: { $t: { type: 'string' } } } })))).rejects.toThrow(/reserves for table references/);
    const withRef = { ...big, properties: { ...big.properties, self: { $ref: '#/definitions/Self' } } };
    await expect(writeCatalogue(catalogue(() => ({ outputSchema: withRef })))).rejects.toThrow(/"\$ref"/);
    // The same $ref in a subtree that is not shared is written.
    await expect(writeCatalogue(catalogue((_, i) => (i ? {} : { outputSchema: withRef })))).resolves.toBeTruthy();
  });

  it('sharded: one shard per toolset, entries used by several shards in catalog.txt, the rest in their shard', async () => {
    const own = { type: 'object', properties: { only: { type: 'string', description: 'Used by the echo toolset only.' } } };
    const c = catalogue(() => ({ outputSchema: big }));
    c.tools.push({ ...c.tools[0]!, name: 'echo_more', aliases: undefined, inputSchema: own, outputSchema: big });
    c.tools[0] = { ...c.tools[0]!, inputSchema: own };
    const files = await writeCatalogue(c, { shardAboveBytes: 1 });
    expect([...files.shards.keys()].sort()).toEqual(['admin.txt', 'echo.txt']);
    expect(files.text).toContain('The account login.'); // shared by both toolsets
    expect(files.text).not.toContain('Used by the echo toolset only.');
    expect(files.shards.get('echo.txt')).toContain('Used by the echo toolset only.');
    const loaded = loadCatalogue(files.text);
    loaded.useShards(async (name) => files.shards.get(name)!);
    const admin = loaded.indexOf('echo_remove')!;
    await loaded.load([admin]);
    expect(loaded.tool(admin).outputSchema).toEqual(big);
    expect(() => loaded.tool(loaded.indexOf('echo_get')!)).toThrow(/echo\.txt is not loaded/);
    const back = await readCatalogue(files.text, undefined).catch((e: Error) => e.message);
    expect(back).toMatch(/sharded and no shards directory/);
  });
});
