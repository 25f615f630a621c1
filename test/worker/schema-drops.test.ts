// Runtime schema drop list (src/schema-health/drops.ts): tools/list and tools/call honour it; TTL re-reads.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, inject, it } from 'vitest';
import { DROPS_KEY, parseDrops } from '../../src/schema-health/drop-list.ts';
import { applyDrops, currentDrops, newDropState } from '../../src/schema-health/drops.ts';
import { createApp } from '../../src/app.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';

const KEY = 'mcp_test_0123456789abcdef0123456789abcdef';
const URL_MCP = 'http://127.0.0.1:8787/mcp';
const auth = { Authorization: `Bearer ${KEY}` };

// Counts reads, which the real binding cannot report; only `get` is used by the drop list.
class FakeKv {
  values = new Map<string, string>();
  reads = 0;
  async get(key: string): Promise<string | null> {
    this.reads++;
    return this.values.get(key) ?? null;
  }
}

const fixtureText = await encodeCatalogue(fixtureCatalogue());

function setup(ttl = '60') {
  const loaded = loadCatalogue(fixtureText);
  const app = createApp(loaded);
  const kv = new FakeKv();
  const env = { API_KEY: KEY, UPSTREAM_URL: inject('upstreamUrl'), CREDENTIAL_MODE: 'key', CONFIG: kv, SCHEMA_DROPS_TTL_SECONDS: ttl };
  const appFetch = async (input: string | URL | Request, init?: RequestInit) => app.fetch(new Request(input, init), env as never);
  return { loaded, app, kv, env, appFetch };
}

const drop = (kv: FakeKv, tools: Record<string, { reason: string }>) => kv.values.set(DROPS_KEY, JSON.stringify({ tools }));

describe('runtime schema drop list', () => {
  it('tools/list omits the dropped outputSchema and tools/call sends no structuredContent (v1 strict client)', async () => {
    const { kv, appFetch } = setup();
    drop(kv, { echo_get: { reason: 'drifting upstream' } });
    const client = new ClientV1({ name: 't', version: '1' });
    await client.connect(new TransportV1(new URL(URL_MCP), { fetch: appFetch, requestInit: { headers: auth } }));
    const { tools } = await client.listTools();
    const echo = tools.find((t) => t.name === 'echo_get')!;
    expect(echo.outputSchema).toBeUndefined();
    const result = await client.callTool({ name: 'echo_get', arguments: { id: 'abc' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toBeUndefined();
    const text = (result.content as Array<{ type: string; text?: string }>)[0]?.text ?? '';
    expect(JSON.parse(text)).toMatchObject({ method: 'GET' });
    await client.close();
  });

  it('v2 client sees the same; without drops the schema is advertised again', async () => {
    const { kv, appFetch } = setup('0');
    const connect = async () => {
      const c = new ClientV2({ name: 't', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await c.connect(new TransportV2(new URL(URL_MCP), { fetch: appFetch, requestInit: { headers: auth } }));
      return c;
    };
    let c = await connect();
    expect((await c.listTools()).tools.find((t) => t.name === 'echo_get')?.outputSchema).toMatchObject({ type: 'object' });
    await c.close();
    drop(kv, { echo_get: { reason: 'x' } });
    c = await connect();
    expect((await c.listTools()).tools.find((t) => t.name === 'echo_get')?.outputSchema).toBeUndefined();
    const r = await c.callTool({ name: 'echo_get', arguments: { id: 'q' } });
    expect(r.structuredContent).toBeUndefined();
    await c.close();
    kv.values.delete(DROPS_KEY);
    c = await connect();
    expect((await c.listTools()).tools.find((t) => t.name === 'echo_get')?.outputSchema).toMatchObject({ type: 'object' });
    await c.close();
  });

  it('a running isolate re-reads KV only after the TTL', async () => {
    const { kv } = setup();
    const state = newDropState(); // a fresh isolate's state: no drop list has been read yet
    const env = { CONFIG: kv as unknown as KVNamespace, SCHEMA_DROPS_TTL_SECONDS: '60' };
    const t0 = 1_000_000;
    expect(Object.keys((await currentDrops(state, env, t0)).list.tools)).toEqual([]);
    drop(kv, { echo_get: { reason: 'x' } });
    expect(Object.keys((await currentDrops(state, env, t0 + 59_000)).list.tools)).toEqual([]);
    expect(kv.reads).toBe(1);
    expect(Object.keys((await currentDrops(state, env, t0 + 60_000)).list.tools)).toEqual(['echo_get']);
    expect(kv.reads).toBe(2);
  });

  it('applyDrops: aliases resolve, unknown names are ignored, one view per distinct list', () => {
    const { loaded } = setup();
    const cache = newDropState();
    expect(applyDrops(loaded, { tools: {} }, cache)).toBe(loaded);
    expect(applyDrops(loaded, { tools: { nope: { reason: 'x' } } }, cache)).toBe(loaded);
    const a = applyDrops(loaded, { tools: { echo_get: { reason: 'x' } } }, cache);
    const b = applyDrops(loaded, { tools: { echo_get: { reason: 'y' } } }, cache);
    expect(a).toBe(b);
    expect(a.byName.get('echo_get')?.outputSchema).toBeUndefined();
    expect(a.byName.get('echo_get')?.outputSchemaDropped).toMatch(/runtime drop list/);
    expect(loaded.byName.get('echo_get')?.outputSchema).toBeDefined();
    const echo = loaded.indexOf('echo_get')!;
    expect(a.hasOutputSchema(echo)).toBe(false);
    expect(loaded.hasOutputSchema(echo)).toBe(true);
    expect(a.tool(echo).outputSchemaDropped).toBe('runtime drop list: x');
  });

  it('parseDrops tolerates garbage', () => {
    expect(parseDrops('nope').error).toMatch(/not JSON/);
    expect(parseDrops('[]').list.tools).toEqual({});
    expect(parseDrops(null).list.tools).toEqual({});
  });
});
