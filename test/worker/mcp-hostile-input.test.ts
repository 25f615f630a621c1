// Hostile input at the MCP door (/mcp and its slices), through the real app in workerd: names that are keys of
// Object.prototype where the server looks names up, params the SDK's schemas refuse, bodies whose declared length
// lies, and deep or batched JSON. Every one gets a 4xx or a JSON-RPC error with the right code, never a 5xx, and never
// a request served under a name that does not exist.
import { env as bindings } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { Env } from '../../src/config.ts';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';

const ORIGIN = 'http://127.0.0.1:8787';
const KEY = 'mcp_test_hostileinput000000000000000000000';
const app = createApp(loadCatalogue(await encodeCatalogue(fixtureCatalogue())));
const env: Env = { API_KEY: KEY, KEYS: bindings.KEYS, UPSTREAM_URL: 'http://127.0.0.1:9', LOADER: bindings.LOADER };
const HEADERS = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const MODERN = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientInfo': { name: 'hostile', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

interface Answer {
  status: number;
  /** The JSON-RPC message or HTTP error body (an SSE event's data for the 2025 era). */
  body: Record<string, unknown>;
}

async function post(path: string, body: string, headers: Record<string, string> = HEADERS): Promise<Answer> {
  const res = await app.fetch(new Request(new URL(path, ORIGIN), { method: 'POST', headers, body }), env);
  const text = await res.text();
  const data = text.startsWith('event:') ? text.split('\n').find((l) => l.startsWith('data: '))!.slice(6) : text;
  return { status: res.status, body: JSON.parse(data) as Record<string, unknown> };
}
const rpc = (method: string, params?: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) });
const rpcError = (a: Answer) => a.body.error as { code: number; message: string };

describe('names that are keys of Object.prototype are unknown names', () => {
  it('?client= names no profile: a 400 listing the valid ones, not a request served under Object.prototype', async () => {
    for (const name of PROTOTYPE_NAMES) {
      const a = await post(`/mcp?client=${name}`, rpc('tools/list'));
      expect(a.status, name).toBe(400);
      expect(a.body).toMatchObject({ error: 'unknown_client', unknown: [name] });
    }
  });

  it('/mcp/x/<toolset> and /mcp/discover?… are 400 unknown_toolset, not an empty endpoint', async () => {
    for (const name of PROTOTYPE_NAMES) {
      const a = await post(`/mcp/x/${name}`, rpc('tools/list'));
      expect(a.status, name).toBe(400);
      expect(a.body).toMatchObject({ error: 'unknown_toolset', unknown: [name] });
    }
  });

  it("search_tools' toolset and the page's /catalogue/search refuse them as unknown toolsets", async () => {
    for (const name of PROTOTYPE_NAMES) {
      const a = await post('/mcp/discover', rpc('tools/call', { name: 'search_tools', arguments: { query: 'echo', toolset: name } }));
      const result = a.body.result as { isError?: boolean; content: Array<{ text: string }> };
      expect(result.isError, name).toBe(true);
      expect(result.content[0]!.text).toMatch(new RegExp(`^Unknown toolset: ${name}\\. Valid toolsets: admin, echo`));
      const page = await app.fetch(new Request(`${ORIGIN}/catalogue/search?q=echo&toolset=${name}`), env);
      expect(page.status, name).toBe(400);
    }
  });

  it('as a JSON-RPC method, a tool name or describe_tool name: method not found or unknown tool', async () => {
    for (const name of PROTOTYPE_NAMES) {
      expect(rpcError(await post('/mcp', rpc(name, {}))), name).toMatchObject({ code: -32601 });
      expect(rpcError(await post('/mcp', rpc('tools/call', { name, arguments: {} }))), name).toEqual({ code: -32602, message: `Unknown tool: ${name}` });
      const described = await post('/mcp/discover', rpc('tools/call', { name: 'describe_tool', arguments: { name } }));
      expect((described.body.result as { content: Array<{ text: string }> }).content[0]!.text).toBe(`Unknown tool: ${name}. Use search_tools to find tool names.`);
    }
  });
});

describe('params the protocol schemas refuse are -32602 Invalid params, not -32603 Internal error', () => {
  it('2025 era: initialize without params or with a non-string clientInfo.name, tools/list with a numeric cursor', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['initialize', undefined, /^Invalid params for initialize: params: /],
      ['initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 5, version: '1' } }, /^Invalid params for initialize: params\.clientInfo\.name: Invalid input: expected string, received number$/],
      ['initialize', { protocolVersion: 7, capabilities: 5, clientInfo: { name: 'a', version: '1' } }, /params\.protocolVersion: .*; params\.capabilities: /],
      ['tools/list', { cursor: 5 }, /^Invalid params for tools\/list: params\.cursor: Invalid input: expected string, received number$/],
    ];
    for (const [method, params, message] of cases) {
      const a = await post('/mcp', rpc(method, params), { ...HEADERS, 'mcp-protocol-version': '2025-06-18' });
      expect(a.status, method).toBe(200);
      expect(rpcError(a).code, JSON.stringify(params)).toBe(-32602);
      expect(rpcError(a).message).toMatch(message);
    }
  });

  it('2026-07-28: tools/list with a numeric cursor, in the per-request envelope', async () => {
    const a = await post('/mcp', rpc('tools/list', { _meta: META, cursor: 5 }), { ...HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' });
    expect(a.status).toBeLessThan(500);
    expect(rpcError(a)).toMatchObject({ code: -32602 });
    expect(rpcError(a).message).toMatch(/cursor/);
  });

  it('well-formed requests are unchanged: initialize and tools/list answer, an unknown tool is still -32602 with its text', async () => {
    const init = await post('/mcp', rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'a', version: '1' } }));
    expect((init.body.result as { protocolVersion: string }).protocolVersion).toBe('2025-06-18');
    const list = await post('/mcp', rpc('tools/list', {}));
    expect((list.body.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(['echo_get', 'echo_remove']);
  });
});

describe('bodies', () => {
  const big = rpc('tools/list', { pad: 'x'.repeat(5 * 1024 * 1024) });

  it('a declared Content-Length that lies (small, empty, negative) does not lift the 4 MiB bound: 413', async () => {
    for (const length of ['10', '', '-1', '0x10']) {
      const a = await post('/mcp', big, { ...HEADERS, 'content-length': length });
      expect(a.status, `content-length: ${length}`).toBe(413);
      expect(rpcError(a)).toMatchObject({ code: -32000, message: expect.stringMatching(/^Payload Too Large/) });
    }
  });

  it('deeply nested JSON (100,000 levels) in the body, the id or the arguments is a 4xx or an isError, never a 5xx', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const bodies = [deep, `{"jsonrpc":"2.0","id":${deep},"method":"tools/list"}`, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo_get","arguments":{"id":"1","x":${deep}}}}`];
    for (const body of bodies) {
      const a = await post('/mcp', body);
      expect(a.status, body.slice(0, 40)).toBeLessThan(500);
      if (a.status !== 200) expect(rpcError(a).code).toBe(-32600);
    }
  });

  it('a batch over 100 messages is one -32600 Invalid Request; an empty batch too', async () => {
    const many = JSON.stringify(Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' })));
    for (const body of [many, '[]']) {
      const a = await post('/mcp', body);
      expect(a.status).toBe(400);
      expect(rpcError(a).code).toBe(-32600);
    }
  });
});

describe('search queries', () => {
  it('search_tools and code mode search refuse a query over 500 characters (ranking cost grows with it) and answer one of 500', async () => {
    const long = `${'list issues and '.repeat(32).slice(0, 500)}x`;
    for (const [path, tool] of [['/mcp/discover', 'search_tools'], ['/mcp/code', 'search']] as const) {
      const refused = (await post(path, rpc('tools/call', { name: tool, arguments: { query: long } }))).body.result as { isError?: boolean; content: Array<{ text: string }> };
      expect(refused.isError, tool).toBe(true);
      expect(refused.content[0]!.text).toBe('"query" is 501 characters long; the limit is 500. Say what you want to do in a sentence, e.g. "list open issues with a label", and search again for each other thing.');
      const answered = (await post(path, rpc('tools/call', { name: tool, arguments: { query: long.slice(0, 500) } }))).body.result as { isError?: boolean; content: Array<{ text: string }> };
      expect(answered.isError, tool).toBeUndefined();
      expect(answered.content[0]!.text).toMatch(/echo_get/);
    }
  });
});

describe('big inputs get small errors', () => {
  const huge = 'a'.repeat(3_900_000);
  const budgetChars = 25_000 * 4;
  const textOf = (a: Answer) => (a.body.result as { isError?: boolean; content: Array<{ text: string }> }).content[0]!.text;

  it('a 3.9 MB path argument: the network error quotes 200 characters of the path and says how much was cut', async () => {
    const a = await post('/mcp', rpc('tools/call', { name: 'echo_get', arguments: { id: huge } }));
    const text = textOf(a);
    expect((a.body.result as { isError?: boolean }).isError).toBe(true);
    expect(text).toMatch(/^Could not reach the upstream for GET \/echo\/a{194}… \(3,899,806 characters cut\): /);
    expect(text.length).toBeLessThan(1_000);
  });

  it('a 3.9 MB tool name, property name or toolset: every answer stays small', async () => {
    const answers = [
      await post('/mcp', rpc('tools/call', { name: huge, arguments: {} })),
      await post('/mcp', `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo_get","arguments":{"id":"1","${huge}":1e400}}}`),
      await post('/mcp/discover', rpc('tools/call', { name: 'describe_tool', arguments: { name: huge } })),
      await post('/mcp/discover', rpc('tools/call', { name: 'search_tools', arguments: { query: 'echo', toolset: huge } })),
    ];
    for (const a of answers) {
      const raw = JSON.stringify(a.body);
      expect(raw.length, raw.slice(0, 120)).toBeLessThan(4_000);
      expect(raw).toMatch(/characters cut/);
    }
    expect(rpcError(answers[0]!)).toMatchObject({ code: -32602, message: expect.stringMatching(/^Unknown tool: a{200}… \(3,899,800 characters cut\)$/) });
  });

  it('a 3.9 MB method name or tools/list cursor: the JSON-RPC error stays small', async () => {
    for (const body of [rpc(huge, {}), rpc('tools/list', { cursor: huge }), rpc('tools/call', { name: 'echo_get', arguments: huge })]) {
      const a = await post('/mcp', body);
      expect(a.status).toBeLessThan(500);
      expect(JSON.stringify(a.body).length, JSON.stringify(a.body).slice(0, 200)).toBeLessThan(4_000);
    }
  });

  it("an execute whose program throws a 3 MB message: the result the server writes is within the budget", async () => {
    const a = await post('/mcp/code', rpc('tools/call', { name: 'execute', arguments: { code: 'throw new Error("a".repeat(3_000_000));' } }));
    const result = a.body.result as { isError?: boolean; content: Array<{ text: string }> };
    expect(result.isError).toBe(true);
    expect(result.content.reduce((n, c) => n + c.text.length, 0)).toBeLessThanOrEqual(budgetChars);
  });

  it('ten invalid values under huge names stay within the result budget, each name cut', async () => {
    const names = Array.from({ length: 10 }, (_, i) => `${'k'.repeat(300_000)}${i}`);
    const a = await post('/mcp', `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo_get","arguments":{"id":"1",${names.map((n) => `"${n}":1e400`).join(',')}}}}`);
    expect(textOf(a).length).toBeLessThan(budgetChars);
    expect(textOf(a)).toMatch(/^Invalid arguments for echo_get:/);
    expect(textOf(a).match(/\/k{199}… \(299,802 characters cut\): Infinity is not a number JSON can carry/g)).toHaveLength(10);
  });
});

describe('numbers JSON cannot carry', () => {
  it('1e400 (Infinity after JSON.parse) anywhere in the arguments is an invalid argument naming it, and nothing is sent', async () => {
    for (const body of [
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo_get","arguments":{"id":"1","extra":1e400}}}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo_get","arguments":{"id":"1","extra":{"deep":[-1e400]}}}}',
    ]) {
      const a = await post('/mcp', body);
      const result = a.body.result as { isError?: boolean; content: Array<{ text: string }> };
      expect(result.isError).toBe(true);
      expect(result.content[0]!.text).toMatch(/^Invalid arguments for echo_get:\n- \/extra(\/deep\/0)?: -?Infinity is not a number JSON can carry; send a finite number/);
    }
  });
});

describe('what a client sends is never quoted back whole', () => {
  const bounded = (a: Answer) => expect(JSON.stringify(a.body).length).toBeLessThan(12_000);

  it('headers the SDK quotes in its refusals (protocol version, Mcp-Method, Mcp-Name) and an Origin come back cut', async () => {
    const big = 'x'.repeat(200_000);
    const modern = { ...HEADERS, 'mcp-protocol-version': MODERN };
    const answers = [
      await post('/mcp', rpc('tools/list'), { ...HEADERS, 'mcp-protocol-version': big }),
      await post('/mcp', rpc('tools/call', { name: 'echo', arguments: {}, _meta: META }), { ...modern, 'mcp-method': 'tools/call', 'mcp-name': big }),
      await post('/mcp', rpc('tools/list', { _meta: META }), { ...modern, 'mcp-method': big }),
      await post('/mcp', rpc('tools/call', { name: big, arguments: {}, _meta: META }), { ...modern, 'mcp-method': 'tools/call', 'mcp-name': 'echo' }),
      await post('/mcp', rpc('tools/list', { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': big } }), { ...modern, 'mcp-method': 'tools/list' }),
      await post('/mcp', rpc('tools/list'), { ...HEADERS, origin: `http://${big}` }),
    ];
    for (const a of answers) {
      expect(a.status).toBeGreaterThanOrEqual(400);
      expect(a.status).toBeLessThan(500);
      bounded(a);
    }
    expect(JSON.stringify(answers[0]!.body)).toMatch(/x… \(\d[\d,]* characters cut\)/);
  });

  it('a URL of 2,000 near-miss tool names is refused at once, naming ten of them', async () => {
    const names = Array.from({ length: 2000 }, (_, i) => `echo_messagexx${i}`).join(',');
    const a = await post(`/mcp?tools=${names}`, rpc('tools/list'));
    expect(a.status).toBe(400);
    expect(a.body).toMatchObject({ error: 'unknown_tool' });
    expect((a.body.unknown as string[]).length).toBe(10);
    expect(a.body.message).toMatch(/^Unknown tools: echo_messagexx0, .*echo_messagexx9 and 1990 more\./);
    bounded(a);
  });
});
