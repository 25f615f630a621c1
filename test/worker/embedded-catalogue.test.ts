// The real worker entry with the embedded default catalogue (GitHub, 1,223 operations), inside workerd.
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, inject, it } from 'vitest';
import catalogueText from 'catalog-data';
import worker from '../../src/index.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { Env } from '../../src/config.ts';
import pkg from '../../package.json' with { type: 'json' };
import { VERSION } from '../../src/version.ts';

const KEY = 'mcp_test_0123456789abcdef0123456789abcdef';
const env: Env = { API_KEY: KEY, UPSTREAM_URL: inject('upstreamUrl') };
const ctx = { waitUntil: () => {}, passThroughOnException: () => {} } as unknown as ExecutionContext;
const fetchWorker = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => worker.fetch(new Request(input, init), env, ctx);
const catalogue = loadCatalogue(catalogueText);
const all = Array.from({ length: catalogue.count }, (_, i) => i);

async function connect(url: string): Promise<ClientV1> {
  const client = new ClientV1({ name: 'strict', version: '1.0.0' });
  await client.connect(new TransportV1(new URL(url), { fetch: fetchWorker, requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }));
  return client;
}

describe('embedded GitHub catalogue', () => {
  it('the v1 strict client lists every tool in one call', async () => {
    const expected = catalogue.count;
    expect(expected).toBeGreaterThan(1000);
    const client = await connect('http://127.0.0.1:8787/mcp/x/all');
    const { tools, nextCursor } = await client.listTools();
    expect(nextCursor).toBeUndefined();
    expect(tools).toHaveLength(expected);
    expect(tools.find((t) => t.name === 'repos_get')?.annotations?.readOnlyHint).toBe(true);
    await client.close();
  });

  it('bare /mcp serves the catalogue default toolsets, each small enough for tool-capped clients', async () => {
    const defaults = catalogue.catalogue.defaultToolsets ?? [];
    expect(defaults.length).toBeGreaterThan(0);
    const expected = all.filter((i) => catalogue.toolsetsOf(i).some((s) => defaults.includes(s))).map((i) => catalogue.name(i));
    const client = await connect('http://127.0.0.1:8787/mcp');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(expected.sort());
    expect(tools.length).toBeLessThanOrEqual(128); // OpenAI and VS Code cap a request at 128 tools
    for (const set of defaults) {
      expect(all.filter((i) => catalogue.toolsetsOf(i).includes(set)).length).toBeLessThanOrEqual(40);
    }
    await client.close();
  });

  it('healthz reports the package version and the content hash the generator wrote into the catalogue', async () => {
    const res = await fetchWorker('http://127.0.0.1:8787/healthz');
    const body = (await res.json()) as { version: string; catalogue: { hash: string } };
    expect(body.version).toBe(pkg.version);
    expect(VERSION).toBe(pkg.version);
    const { hash } = JSON.parse(catalogueText.slice(0, catalogueText.indexOf('\n'))) as { hash: string };
    expect(hash).toMatch(/^[0-9a-f]{32}$/);
    expect(body.catalogue.hash).toBe(hash);
  });
});
