// A client that goes away cancels the upstream calls it caused: tools/call, discovery's call_tool and each api call of
// a code-mode execute. The loopback upstream holds the request (test/support/upstream-server.ts, /hold/<id>) and
// reports when its connection closed; real MCP clients abort their own request.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { codeEnv, connect, fetcherFor, ORIGIN, OPERATOR_KEY, upstreamUrl } from './fixtures/codemode-endpoint.ts';

interface Held {
  path: string;
  arrivedAt: number;
  closedAt: number | null;
}

const held = async (id: string): Promise<Held[]> => (await (await fetch(`${upstreamUrl}/__held?id=${id}`)).json()) as Held[];

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Starts `run` with an AbortSignal, aborts it once the upstream holds the request, and returns how long the upstream connection stayed open after that. */
async function abortWhileHeld(id: string, run: (signal: AbortSignal) => Promise<unknown>): Promise<number> {
  const ctrl = new AbortController();
  const outcome = run(ctrl.signal).catch((e: unknown) => e);
  await until('the upstream to receive the call', async () => ((await held(id)).length ? true : undefined));
  const abortedAt = Date.now();
  ctrl.abort();
  const [entry] = await until('the upstream connection to close', async () => {
    const list = await held(id);
    return list.every((h) => h.closedAt !== null) ? list : undefined;
  });
  await outcome;
  return entry!.closedAt! - abortedAt;
}

const holdEnv = (id: string) => codeEnv({ UPSTREAM_URL: `${upstreamUrl}/hold/${id}` });

async function v2(url: string, id: string): Promise<Client> {
  const client = new Client({ name: 'cancel-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: fetcherFor(holdEnv(id)), requestInit: { headers: { authorization: `Bearer ${OPERATOR_KEY}` } } }));
  return client;
}

describe('a client that goes away cancels the upstream call', () => {
  beforeAll(async () => {
    // The first execute imports the compiler; not part of what is timed below.
    const client = await connect('v1');
    await client.execute('return 1');
    await client.close();
  }, 60_000);

  it('tools/call through the SDK (v2 client, 2026-07-28)', async () => {
    const id = crypto.randomUUID();
    const client = await v2(`${ORIGIN}/mcp/x/users`, id);
    const open = await abortWhileHeld(id, (signal) => client.callTool({ name: 'users_get_by_username', arguments: { username: 'octocat' } }, { signal }));
    expect(open).toBeLessThan(1000);
    await client.close();
  });

  it('tools/call answered by the fast path (a plain 2025-era request)', async () => {
    const id = crypto.randomUUID();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'users_get_by_username', arguments: { username: 'octocat' } } });
    const headers = { authorization: `Bearer ${OPERATOR_KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
    const open = await abortWhileHeld(id, (signal) => fetcherFor(holdEnv(id))(`${ORIGIN}/mcp/x/users`, { method: 'POST', headers, body, signal }));
    expect(open).toBeLessThan(1000);
  });

  it("discovery's call_tool", async () => {
    const id = crypto.randomUUID();
    const client = await v2(`${ORIGIN}/mcp/discover`, id);
    const open = await abortWhileHeld(id, (signal) => client.callTool({ name: 'call_tool', arguments: { name: 'users_get_by_username', arguments: { username: 'octocat' } } }, { signal }));
    expect(open).toBeLessThan(1000);
    await client.close();
  });

  it('an api call of a code-mode execute', async () => {
    const id = crypto.randomUUID();
    const client = await v2(`${ORIGIN}/mcp/code`, id);
    const open = await abortWhileHeld(id, (signal) => client.callTool({ name: 'execute', arguments: { code: 'return await api.users_get_by_username({ username: "octocat" });' } }, { signal }));
    expect(open).toBeLessThan(1000);
    await client.close();
  });
});
