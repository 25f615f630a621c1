// Calls through the openai profile (strict-form schemas, src/profiles/strict-*.ts) reach a real loopback upstream with
// the arguments the catalogue schema means: null = absent, free-form objects decoded from JSON strings and
// {key, value} pairs, through tools/call, discovery's call_tool and a hybrid list alike.
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, inject, it } from 'vitest';
import catalogueText from 'catalog-data';
import { createApp } from '../../src/app.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { Env } from '../../src/config.ts';

const KEY = 'mcp_test_0123456789abcdef0123456789abcdef';
const BASE = 'http://127.0.0.1:8787';
const env: Env = { API_KEY: KEY, UPSTREAM_URL: `${inject('upstreamUrl')}/echo`, CREDENTIAL_MODE: 'key' };
const app = createApp(loadCatalogue(catalogueText));
const appFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => app.fetch(new Request(input, init), env);

type Result = { content?: Array<{ type: string; text?: string }>; structuredContent?: unknown; isError?: boolean };
/**
 * What the echo upstream received. A non-object output is wrapped as {result}; where the tool's outputSchema expects
 * an array, the echo's object does not fit it and arrives beside the empty result, under `as_returned`: a success
 * all the same (src/upstream/beside-schema.ts).
 */
function received(r: Result): { method: string; url: string; body: unknown } {
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  const data = (r.structuredContent ?? JSON.parse(r.content![0]!.text!)) as Record<string, unknown>;
  const echo = (data.as_returned ?? (data.result && !data.method ? data.result : data)) as { method: string; url: string; body: string };
  return { method: echo.method, url: echo.url, body: echo.body ? JSON.parse(echo.body) : undefined };
}

async function openai(path: string) {
  const client = new ClientV1({ name: 'openai-mcp', version: '1.0.0' });
  await client.connect(new TransportV1(new URL(`${BASE}${path}`), { fetch: appFetch, requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }));
  return client;
}

describe('strict function calling under the openai profile', () => {
  it('the listed schemas are strict, and a call with every property (nulls included) reaches the upstream without the nulls', async () => {
    const client = await openai('/mcp/x/issues_core');
    const { tools } = await client.listTools();
    const create = tools.find((t) => t.name === 'issues_create')!;
    const props = Object.keys(create.inputSchema.properties ?? {});
    expect(create.inputSchema).toMatchObject({ additionalProperties: false, required: props });
    const args = Object.fromEntries(props.map((k) => [k, null])) as Record<string, unknown>;
    Object.assign(args, { owner: 'octo', repo: 'hello', title: 'Bug', labels: ['bug'] });
    const r = received((await client.callTool({ name: 'issues_create', arguments: args })) as Result);
    expect(r).toEqual({ method: 'POST', url: '/echo/repos/octo/hello/issues', body: { title: 'Bug', labels: ['bug'] } });
    const list = received((await client.callTool({ name: 'issues_list_for_repo', arguments: { owner: 'octo', repo: 'hello', state: null, per_page: 5, labels: null, sort: null, direction: null, since: null, page: null, milestone: null, assignee: null, type: null, creator: null, mentioned: null } })) as Result);
    expect(list.url).toBe('/echo/repos/octo/hello/issues?per_page=5');
    await client.close();
  });

  it('a free-form object sent as a JSON string arrives as the object (workflow dispatch inputs)', async () => {
    const client = await openai('/mcp/x/actions');
    const r = received(
      (await client.callTool({ name: 'actions_create_workflow_dispatch', arguments: { owner: 'o', repo: 'r', workflow_id: 'ci.yml', ref: 'main', inputs: '{"env":"prod","dry_run":"true"}', return_run_details: null } })) as Result,
    );
    expect(r).toEqual({ method: 'POST', url: '/echo/repos/o/r/actions/workflows/ci.yml/dispatches', body: { ref: 'main', inputs: { env: 'prod', dry_run: 'true' } } });
    const bad = (await client.callTool({ name: 'actions_create_workflow_dispatch', arguments: { owner: 'o', repo: 'r', workflow_id: 'ci.yml', ref: 'main', inputs: 'env=prod', return_run_details: null } })) as Result;
    expect(bad.isError).toBe(true);
    expect(bad.content![0]!.text).toMatch(/Invalid arguments for actions_create_workflow_dispatch:\n- "inputs": expected a JSON object/);
    await client.close();
  });

  it('a map sent as {key, value} pairs arrives as the object (gist files); an allOf-wrapped body arrives whole', async () => {
    const client = await openai('/mcp/x/gists+issues');
    const gist = received((await client.callTool({ name: 'gists_create', arguments: { description: null, public: null, files: [{ key: 'hello.md', value: { content: '# Hi' } }] } })) as Result);
    expect(gist).toEqual({ method: 'POST', url: '/echo/gists', body: { files: { 'hello.md': { content: '# Hi' } } } });
    const labels = received((await client.callTool({ name: 'issues_add_labels', arguments: { owner: 'o', repo: 'r', issue_number: 3, body: { labels: [{ name: 'bug', confidence: null, rationale: null, suggest: null }] } } })) as Result);
    expect(labels).toEqual({ method: 'POST', url: '/echo/repos/o/r/issues/3/labels', body: { labels: [{ name: 'bug' }] } });
    await client.close();
  });

  it('discovery: describe_tool returns the strict form and call_tool takes its arguments as a JSON string', async () => {
    const client = await openai('/mcp/discover');
    const described = (await client.callTool({ name: 'describe_tool', arguments: { name: 'actions_create_workflow_dispatch' } })) as Result;
    expect((described.structuredContent as { inputSchema: Record<string, unknown> }).inputSchema).toMatchObject({ additionalProperties: false, properties: { inputs: { type: ['string', 'null'] } } });
    const args = JSON.stringify({ owner: 'o', repo: 'r', workflow_id: 42, ref: 'v1', inputs: '{"n":"1"}', return_run_details: null });
    const r = received((await client.callTool({ name: 'call_tool', arguments: { name: 'actions_create_workflow_dispatch', arguments: args } })) as Result);
    expect(r).toEqual({ method: 'POST', url: '/echo/repos/o/r/actions/workflows/42/dispatches', body: { ref: 'v1', inputs: { n: '1' } } });
    const search = (await client.callTool({ name: 'search_tools', arguments: { query: 'dispatch a workflow', toolset: null, limit: null } })) as Result;
    expect(search.isError).toBeFalsy();
    await client.close();
  });

  it('the hybrid list for the whole catalogue (128 tools) is strict as well, and its typed tools map nulls away', async () => {
    const client = await openai('/mcp/x/all');
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(128);
    for (const t of tools) expect(t.inputSchema, t.name).toMatchObject({ additionalProperties: false, required: Object.keys(t.inputSchema.properties ?? {}) });
    const typed = tools.find((t) => t.name === 'users_get_authenticated')!;
    expect(typed).toBeDefined();
    expect(received((await client.callTool({ name: 'users_get_authenticated', arguments: {} })) as Result).url).toBe('/echo/user');
    await client.close();
  });
});
