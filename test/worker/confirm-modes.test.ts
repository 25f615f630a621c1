// Confirmation in the other modes, and the meta-tools' hints (docs/confirmation.md): discovery's call_tool confirms
// as a typed tool does; code mode refuses a destructive api call when the client could have confirmed it (a program
// cannot stop to ask), and runs it as before when it could not; call_tool's and execute's annotations follow what
// their slice reaches; the Durable Object ledger refuses a replay across isolates.
import { env as bindings } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { durableLedger } from '../../src/tools/confirm-ledger-object.ts';
import { accepted, baseEnv, fresh, modernClient, rawCall, textOf, upstreamSaw } from './fixtures/confirm-harness.ts';

const listed = async (path: string, names: string[]) => {
  const { client } = await modernClient({ path });
  const { tools } = await client.listTools();
  await client.close();
  return Object.fromEntries(names.map((n) => [n, tools.find((t) => t.name === n)?.annotations]));
};

describe("discovery's call_tool", () => {
  it('confirms a destructive inner tool the same way: asked once, the upstream called once after the accepted retry', async () => {
    const id = fresh('discover');
    const { client, asked } = await modernClient({ answer: 'accept', path: '/mcp/discover' });
    const result = await client.callTool({ name: 'call_tool', arguments: { name: 'echo_remove', arguments: { id } } });
    expect(result.isError).toBeFalsy();
    expect(asked).toEqual([`Delete through echo route ${id}?`]);
    expect((await upstreamSaw(id)).map((r) => r.method)).toEqual(['DELETE']);
    await client.close();
  });

  it('a declined call_tool leaves the upstream untouched; a state issued for call_tool answers the typed tool too (same call, same key)', async () => {
    const id = fresh('discover-decline');
    const { client } = await modernClient({ answer: 'decline', path: '/mcp/discover' });
    expect(textOf(await client.callTool({ name: 'call_tool', arguments: { name: 'echo_remove', arguments: { id } } }))).toMatch(/^Not done: the person declined/);
    await client.close();
    expect(await upstreamSaw(id)).toEqual([]);
    const first = await rawCall('call_tool', { name: 'echo_remove', arguments: { id } }, {}, { path: '/mcp/discover' });
    expect(first.result?.resultType).toBe('input_required');
    const typed = await rawCall('echo_remove', { id }, { inputResponses: accepted, requestState: first.result!.requestState });
    expect(typed.result?.isError).toBeFalsy();
    expect(await upstreamSaw(id)).toHaveLength(1);
  });
});

describe("code mode's execute", () => {
  const program = (id: string) => `await api.echo_get({ id: "${id}" }); return await api.echo_remove({ id: "${id}" });`;

  it('refuses a destructive api call when the client could confirm it, telling the model to make it as a tool call; earlier calls stand', async () => {
    const id = fresh('code');
    const result = await rawCall('execute', { code: program(id) }, {}, { path: '/mcp/code' });
    expect(result.result?.resultType).not.toBe('input_required');
    expect(result.result?.isError).toBe(true);
    expect(textOf(result.result!)).toMatch(/api\.echo_remove was not called: it may delete or overwrite data, so the person is asked first, and a program cannot stop to ask\. Make this call on its own as a tool call/);
    expect((await upstreamSaw(id)).map((r) => r.method)).toEqual(['GET']);
  });

  it('runs it as before for a client that cannot confirm; refuses it there too when confirmation is required', async () => {
    const id = fresh('code-old');
    const ran = await rawCall('execute', { code: program(id) }, {}, { path: '/mcp/code', capabilities: {} });
    expect(ran.result?.isError).toBeFalsy();
    expect((await upstreamSaw(id)).map((r) => r.method)).toEqual(['GET', 'DELETE']);
    const id2 = fresh('code-required');
    const refused = await rawCall('execute', { code: program(id2) }, {}, { path: '/mcp/code', capabilities: {}, e: baseEnv({ CONFIRM_WRITES_REQUIRED: '1' }) });
    expect(textOf(refused.result!)).toMatch(/echo_remove was not called: this server asks the person to confirm/);
    expect((await upstreamSaw(id2)).map((r) => r.method)).toEqual(['GET']);
  });
});

describe("the meta-tools' annotations follow what their slice reaches", () => {
  it('read-only on a ?readonly slice, not destructive on a slice without destructive tools, destructive where one is in reach', async () => {
    expect(await listed('/mcp/discover?readonly=1', ['call_tool', 'search_tools'])).toEqual({
      call_tool: { title: 'Call a tool', readOnlyHint: true, destructiveHint: false, openWorldHint: true },
      search_tools: { title: 'Search tools', readOnlyHint: true, destructiveHint: false, openWorldHint: false },
    });
    expect((await listed('/mcp/discover?tools=echo_get,echo_create', ['call_tool'])).call_tool).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect((await listed('/mcp/discover', ['call_tool'])).call_tool).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect((await listed('/mcp/code?readonly=1', ['execute'])).execute).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect((await listed('/mcp/code?tools=echo_get,echo_create', ['execute'])).execute).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect((await listed('/mcp/code', ['execute'])).execute).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });
});

describe('the Durable Object ledger', () => {
  it('records each confirmation once for the deployment: a replay is refused whichever isolate it reaches', async () => {
    const ledger = durableLedger(bindings.CONFIRM_LEDGER!);
    const nonce = fresh('nonce');
    const until = Date.now() + 60_000;
    expect(await ledger.consume('key:ledgertest', nonce, until)).toBe(true);
    expect(await ledger.consume('key:ledgertest', nonce, until)).toBe(false);
    // Another caller's record is its own.
    expect(await ledger.consume('key:other', nonce, until)).toBe(true);
  });

  it('with CONFIRM_LEDGER bound, the endpoint records answers there: the replay is refused', async () => {
    const e = baseEnv({ CONFIRM_LEDGER: bindings.CONFIRM_LEDGER });
    const id = fresh('ledger');
    const state = (await rawCall('echo_remove', { id }, {}, { e })).result!.requestState!;
    expect((await rawCall('echo_remove', { id }, { inputResponses: accepted, requestState: state }, { e })).result?.isError).toBeFalsy();
    expect((await rawCall('echo_remove', { id }, { inputResponses: accepted, requestState: state }, { e })).error?.code).toBe(-32602);
    expect(await upstreamSaw(id)).toHaveLength(1);
  });
});
