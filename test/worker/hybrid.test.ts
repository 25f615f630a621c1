// Hybrid lists inside workerd (src/discovery/hybrid.ts): a client whose tool budget the slice exceeds gets the discovery
// trio plus the most important typed tools, and still reaches every tool of the slice. Real v1 and v2 clients, the
// embedded GitHub catalogue, and the loopback upstream (its /echo route answers with the request it received).
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { env as bindings } from 'cloudflare:workers';
import { describe, expect, inject, it } from 'vitest';
import catalogueText from 'catalog-data';
import { createApp } from '../../src/app.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import type { Env } from '../../src/config.ts';

const KEY = 'mcp_test_0123456789abcdef0123456789abcdef';
const BASE = 'http://127.0.0.1:8787';
const env: Env = { API_KEY: KEY, UPSTREAM_URL: `${inject('upstreamUrl')}/echo`, CREDENTIAL_MODE: 'key' };
const auth = { Authorization: `Bearer ${KEY}` };
const loaded = loadCatalogue(catalogueText);
const app = createApp(loaded);
const appFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => app.fetch(new Request(input, init), env);
const defaults = sliceOf(loaded, { toolsets: loaded.catalogue.defaultToolsets });
const META = ['search_tools', 'describe_tool', 'call_tool'];

type Result = { content?: Array<{ type: string; text?: string }>; structuredContent?: unknown; isError?: boolean };
const textOf = (r: Result) => r.content?.find((b) => b.type === 'text')?.text ?? '';
/** What the echo upstream received, from a call's result (a tool whose output is not an object wraps it as {result}). */
function echoed(r: Result): { method: string; url: string; body: string } {
  const data = (r.structuredContent ?? JSON.parse(textOf(r))) as Record<string, unknown>;
  return (data.result && !data.method ? data.result : data) as { method: string; url: string; body: string };
}

async function v1(url: string, name: string) {
  const client = new ClientV1({ name, version: '1.0.0' });
  await client.connect(new TransportV1(new URL(url), { fetch: appFetch, requestInit: { headers: auth } }));
  return client;
}

describe('hybrid is only ever an automatic form of tools mode', () => {
  const withLoader = async (input: string | URL | Request, init?: RequestInit) => app.fetch(new Request(input, init), { ...env, LOADER: bindings.LOADER });
  const list = async (url: string) => {
    const client = new ClientV1({ name: 'cursor-vscode', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(url), { fetch: withLoader, requestInit: { headers: auth } }));
    const names = (await client.listTools()).tools.map((t) => t.name);
    await client.close();
    return names;
  };

  it('an over-budget client keeps code and discovery mode as they are; ?mode=tools keeps the full list', async () => {
    expect(await list(`${BASE}/mcp/code`)).toEqual(['search', 'execute']);
    expect(await list(`${BASE}/mcp/x/all?mode=code`)).toEqual(['search', 'execute']);
    expect(await list(`${BASE}/mcp/x/all?mode=discover`)).toEqual(META);
    expect(await list(`${BASE}/mcp/x/all?mode=tools`)).toHaveLength(loaded.count);
  });

  it('?mode= names every mode a URL can ask for; hybrid is not one of them', async () => {
    const res = await withLoader(`${BASE}/mcp?mode=hybrid`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; message: string; valid: string[] };
    expect(body).toMatchObject({ error: 'unknown_mode', valid: ['tools', 'discover', 'code'] });
    expect(body.message).toMatch(/^Unknown mode: hybrid\. Valid modes: tools, discover, code \(a client over its tool budget gets tools mode as a hybrid list by itself/);
  });
});

describe('hybrid lists', () => {
  it('v1 client announcing itself as cursor-vscode on bare /mcp (2025 era): at most 40 tools, the trio first, instructions that say so', async () => {
    const client = await v1(`${BASE}/mcp`, 'cursor-vscode');
    const { tools } = await client.listTools();
    expect(defaults.tools).toHaveLength(101);
    expect(tools.length).toBeLessThanOrEqual(40);
    expect(tools.slice(0, 3).map((t) => t.name)).toEqual(META);
    for (const t of tools.slice(3)) expect(defaults.tools.map((i) => loaded.name(i)), t.name).toContain(t.name);
    expect(client.getInstructions()).toMatch(/Cursor uses at most 40 tools, so this list holds the 37 most used operations/);
    expect(client.getInstructions()).toContain('mode=tools');
    await client.close();
  });

  it('still reaches every tool of the slice: search_tools finds each by its title, describe_tool and call_tool take each', async () => {
    const client = await v1(`${BASE}/mcp`, 'cursor-vscode');
    const listed = new Set((await client.listTools()).tools.map((t) => t.name));
    const missed: string[] = [];
    for (const def of defaults.tools.map((i) => loaded.peek(i))) {
      const found = (await client.callTool({ name: 'search_tools', arguments: { query: def.title, limit: 10 } })) as Result;
      const names = (found.structuredContent as { results: Array<{ name: string }> }).results.map((r) => r.name);
      if (!names.includes(def.name)) missed.push(`${def.name} ("${def.title}")`);
      const described = (await client.callTool({ name: 'describe_tool', arguments: { name: def.name } })) as Result;
      expect(described.isError, def.name).toBeFalsy();
      expect((described.structuredContent as { name: string }).name).toBe(def.name);
    }
    expect(missed).toEqual([]);
    // An operation the list does not show runs through call_tool, and by name in tools/call.
    expect(listed.has('repos_get_content')).toBe(false);
    const viaMeta = (await client.callTool({ name: 'call_tool', arguments: { name: 'repos_get_content', arguments: { owner: 'o', repo: 'r', path: 'README.md' } } })) as Result;
    expect(viaMeta.isError).toBeFalsy();
    expect(echoed(viaMeta)).toMatchObject({ method: 'GET', url: '/echo/repos/o/r/contents/README.md' });
    const direct = (await client.callTool({ name: 'repos_get_content', arguments: { owner: 'o', repo: 'r', path: 'a.md' } })) as Result;
    expect(echoed(direct)).toMatchObject({ method: 'GET', url: '/echo/repos/o/r/contents/a.md' });
    // A tool outside the slice stays out of reach.
    const outside = (await client.callTool({ name: 'call_tool', arguments: { name: 'actions_list_repo_workflows', arguments: { owner: 'o', repo: 'r' } } })) as Result;
    expect(outside.isError).toBe(true);
    await client.close();
  });

  it('a listed typed tool runs as in tools mode, its result shaped against the outputSchema it advertised', async () => {
    const client = await v1(`${BASE}/mcp`, 'cursor-vscode');
    const { tools } = await client.listTools();
    const get = tools.find((t) => t.name === 'repos_get')!;
    expect(get.outputSchema).toMatchObject({ type: 'object' });
    const r = (await client.callTool({ name: 'repos_get', arguments: { owner: 'o', repo: 'r' } })) as Result;
    expect(textOf(r)).toContain('/echo/repos/o/r');
    await client.close();
  });

  it('a 2026-07-28 client named Cursor gets the same hybrid list (its name travels in every request)', async () => {
    const modern = new ClientV2({ name: 'cursor-vscode', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await modern.connect(new TransportV2(new URL(`${BASE}/mcp`), { fetch: appFetch, requestInit: { headers: auth } }));
    const tools = (await modern.listTools()).tools.map((t) => t.name);
    expect(tools.length).toBe(40);
    expect(tools.slice(0, 3)).toEqual(META);
    const r = (await modern.callTool({ name: 'call_tool', arguments: { name: 'pulls_create', arguments: { owner: 'o', repo: 'r', head: 'f', base: 'main', title: 'T' } } })) as Result;
    expect(echoed(r)).toMatchObject({ method: 'POST', url: '/echo/repos/o/r/pulls' });
    await modern.close();
  });

  it('OpenAI and VS Code (128 tools) take bare /mcp whole and get a hybrid of 128 for the whole catalogue', async () => {
    for (const name of ['openai-mcp', 'Visual Studio Code']) {
      const small = await v1(`${BASE}/mcp`, name);
      expect((await small.listTools()).tools).toHaveLength(101);
      await small.close();
      const big = await v1(`${BASE}/mcp/x/all`, name);
      const tools = (await big.listTools()).tools.map((t) => t.name);
      expect(tools).toHaveLength(128);
      expect(tools.slice(0, 3)).toEqual(META);
      await big.close();
    }
    // Four strict listings of 101-128 whole outputSchemas, each compiled by the client (Ajv): seconds on a busy machine.
  }, 120_000);

  it('profiles without a tool budget (Claude, Gemini, unknown clients) keep the full list', async () => {
    for (const name of ['claude-ai', 'gemini-cli-mcp-client', 'some-client']) {
      const client = await v1(`${BASE}/mcp`, name);
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools, name).toHaveLength(101);
      expect(tools.some((t) => META.includes(t))).toBe(false);
      await client.close();
    }
  });
});
