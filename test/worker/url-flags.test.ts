// MCP URL parameters fail closed (issue point 13): a yes/no flag takes 1/0/true/false/yes/no/on/off in any case and
// nothing else; an unknown, repeated or empty parameter is a 400 naming what is valid, on every MCP route; the
// parameters clients use today keep working. Through the real app in workerd, with the v2 SDK client for listings.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { env as bindings } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { metadataOf, newKey, RECORD_PREFIX } from '../../src/auth/keys-core.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { Env } from '../../src/config.ts';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';

const ORIGIN = 'http://127.0.0.1:8787';
const KEY = 'mcp_test_urlflags00000000000000000000000000';
const app = createApp(loadCatalogue(await encodeCatalogue(fixtureCatalogue())));
const env: Env = { API_KEY: KEY, KEYS: bindings.KEYS, UPSTREAM_URL: 'http://127.0.0.1:9', LOADER: bindings.LOADER };
const appFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => app.fetch(new Request(input instanceof Request ? input.url : String(input), init), env);

async function toolNames(path: string, bearer = KEY): Promise<string[]> {
  const client = new Client({ name: 'url-flags', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(path, ORIGIN), { fetch: appFetch, requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
  try {
    return (await client.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await client.close();
  }
}

/** One raw tools/list POST: the status and JSON body of a refusal. */
async function refused(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await appFetch(new URL(path, ORIGIN).href, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('?readonly=', () => {
  it('yes, on and TRUE serve read-only tools only, as 1 and true do (the issue found them serving writes)', async () => {
    for (const value of ['yes', 'on', 'TRUE', '1', 'true', 'Yes', 'ON', 'tRuE']) expect(await toolNames(`/mcp/x/all?readonly=${value}`), value).toEqual(['echo_get']);
  });

  it('no, off, 0 and false in any case serve the slice as it is', async () => {
    for (const value of ['no', 'off', '0', 'false', 'NO', 'Off']) expect(await toolNames(`/mcp/x/all?readonly=${value}`), value).toEqual(['echo_get', 'echo_remove']);
  });

  it('any other value is a 400 naming the valid ones, on every MCP route', async () => {
    for (const route of ['/mcp', '/mcp/x/all', '/mcp/discover', '/mcp/code']) {
      for (const value of ['maybe', '2', '', 'y', 'yes%20please', 'true1', 'onn', '%E2%80%AEon']) {
        const { status, body } = await refused(`${route}?readonly=${value}`);
        expect(status, `${route} ${value}`).toBe(400);
        expect(body.error).toBe('invalid_readonly');
        expect(body.message).toMatch(/^readonly must be one of 1, 0, true, false, yes, no, on, off \(any case\); got /);
        expect(body.valid).toEqual(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off']);
      }
    }
  });

  it('cannot widen a key: readonly=0 with a read-only key still lists read-only tools only', async () => {
    const made = await newKey({ prefix: 'mcp_test_', customer: { id: 'ro', name: 'Read only' }, readOnly: true });
    await bindings.KEYS.put(RECORD_PREFIX + made.hash, JSON.stringify(made.record), { metadata: metadataOf(made.record) });
    for (const value of ['0', 'false', 'no', 'off']) expect(await toolNames(`/mcp/x/all?readonly=${value}`, made.key), value).toEqual(['echo_get']);
  });
});

describe('unknown, repeated and empty parameters', () => {
  it('?readnoly=1 and ?toolset=issues are 400 listing the valid parameters, on every MCP route', async () => {
    for (const route of ['/mcp', '/mcp/x/echo', '/mcp/discover', '/mcp/code']) {
      for (const query of ['readnoly=1', 'toolset=issues', 'ReadOnly=1', 'read_only=yes', 'tools[]=echo_get', 'key=abc']) {
        const { status, body } = await refused(`${route}?${query}`);
        expect(status, `${route}?${query}`).toBe(400);
        expect(body).toMatchObject({ error: 'unknown_parameter', valid: ['tools', 'readonly', 'mode', 'client'] });
        expect(body.message).toMatch(/^Unknown URL parameter: .+\. Valid parameters: tools, readonly, mode, client$/);
      }
    }
    const many = await refused('/mcp?readnoly=1&toolset=issues&tools=echo_get');
    expect(many.body).toMatchObject({ error: 'unknown_parameter', unknown: ['readnoly', 'toolset'] });
  });

  it('a parameter given twice is a 400, whatever the values', async () => {
    for (const query of ['readonly=1&readonly=0', 'readonly=0&readonly=1', 'tools=echo_get&tools=echo_remove', 'mode=tools&mode=code', 'client=claude&client=cursor']) {
      const { status, body } = await refused(`/mcp/x/all?${query}`);
      expect(status, query).toBe(400);
      expect(body.error).toBe('repeated_parameter');
    }
  });

  it('an empty tools, mode or client is a 400, not "everything"', async () => {
    expect(await refused('/mcp/x/all?tools=')).toMatchObject({ status: 400, body: { error: 'invalid_tools' } });
    expect(await refused('/mcp/x/all?tools=,,')).toMatchObject({ status: 400, body: { error: 'invalid_tools' } });
    expect(await refused('/mcp/x/all?mode=')).toMatchObject({ status: 400, body: { error: 'unknown_mode' } });
    expect(await refused('/mcp/x/all?client=')).toMatchObject({ status: 400, body: { error: 'unknown_client' } });
  });

  it("a mode that contradicts the route is a 400: /mcp/code stays code mode, /mcp/discover discovery", async () => {
    expect(await refused('/mcp/code?mode=tools')).toMatchObject({ status: 400, body: { error: 'mode_conflict', valid: ['code'] } });
    expect(await refused('/mcp/discover?mode=code')).toMatchObject({ status: 400, body: { error: 'mode_conflict', valid: ['discover'] } });
    expect(await toolNames('/mcp/code?mode=code')).toEqual(['execute', 'search']);
  });
});

describe('the parameters clients use today', () => {
  it('still work: tools, readonly, mode and client, alone and together', async () => {
    expect(await toolNames('/mcp/x/all?tools=echo_remove')).toEqual(['echo_remove']);
    expect(await toolNames('/mcp/x/all?tools=echo_get,echo_remove&readonly=1')).toEqual(['echo_get']);
    expect(await toolNames('/mcp/x/echo?mode=discover')).toEqual(['call_tool', 'describe_tool', 'search_tools']);
    expect(await toolNames('/mcp/x/all?mode=tools&client=claude')).toEqual(['echo_get', 'echo_remove']);
    expect(await toolNames('/mcp/discover?client=gemini')).toEqual(['call_tool', 'describe_tool', 'search_tools']);
    expect(await toolNames('/mcp/code?readonly=1&client=openai')).toEqual(['execute', 'search']);
  });
});
