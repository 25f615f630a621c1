// Confirmation before destructive calls, the MCP 2026-07-28 way (src/tools/confirm.ts, docs/confirmation.md), inside
// workerd against the loopback upstream, which records every request: a question first and nothing upstream; the
// accepted retry calls the upstream exactly once; a declined, tampered, foreign, expired or replayed retry never does;
// clients that cannot ask keep today's behaviour unless the deployment requires confirmation.
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/bytes.ts';
import { boundCall, sealState } from '../../src/tools/confirm-state.ts';
import { accepted, baseEnv, env, fetcher, fresh, KEY, modernClient, ORIGIN, rawCall, SECRET, textOf, upstreamSaw, upstreamUrl } from './fixtures/confirm-harness.ts';

describe('a 2026-07-28 client that can elicit', () => {
  it('the first call answers input_required with one elicitation naming the action and its target, and the upstream sees nothing', async () => {
    const id = fresh('first');
    const first = await rawCall('echo_remove', { id });
    expect(first.error).toBeUndefined();
    expect(first.result).toMatchObject({ resultType: 'input_required', requestState: expect.stringMatching(/^c1\.[A-Za-z0-9_-]+$/) });
    expect(Object.keys(first.result!.inputRequests!)).toEqual(['confirm']);
    expect(first.result!.inputRequests!.confirm).toEqual({
      method: 'elicitation/create',
      params: { mode: 'form', message: `Delete through echo route ${id}?`, requestedSchema: { type: 'object', properties: {} } },
    });
    // The state is sealed: neither the tool nor the arguments can be read out of it.
    expect(first.result!.requestState).not.toContain(id);
    expect(await upstreamSaw(id)).toEqual([]);
  });

  it('with the v2 SDK client: the person is asked once, and the accepted retry calls the upstream exactly once', async () => {
    const id = fresh('accept');
    const { client, asked } = await modernClient({ answer: 'accept' });
    const result = await client.callTool({ name: 'echo_remove', arguments: { id } });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toMatchObject({ method: 'DELETE', url: `/echo/${id}` });
    expect(asked).toEqual([`Delete through echo route ${id}?`]);
    expect((await upstreamSaw(id)).map((r) => r.method)).toEqual(['DELETE']);
    await client.close();
  });

  for (const answer of ['decline', 'cancel'] as const) {
    it(`${answer}d: a plain result that says nothing was done, and the upstream never sees the call`, async () => {
      const id = fresh(answer);
      const { client, asked } = await modernClient({ answer });
      const result = await client.callTool({ name: 'echo_remove', arguments: { id } });
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toBe(`Not done: the person declined "Delete through echo route ${id}?" echo_remove was not called, and nothing was changed.`);
      expect(asked).toHaveLength(1);
      expect(await upstreamSaw(id)).toEqual([]);
      await client.close();
    });
  }

  it('a declined call of a tool with an outputSchema is an isError result, so strict clients accept it without structuredContent', async () => {
    const id = fresh('decline-typed');
    const { client } = await modernClient({ answer: 'decline' });
    const result = await client.callTool({ name: 'echo_update', arguments: { id, note: 'x' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Not done: the person declined "Update echo .*"/);
    expect(await upstreamSaw(id)).toEqual([]);
    await client.close();
  });

  it('a tampered requestState is refused with -32602, and the upstream never sees the call', async () => {
    const id = fresh('tamper');
    const first = await rawCall('echo_remove', { id });
    const state = first.result!.requestState!;
    const flipped = state.slice(0, -6) + (state.at(-6) === 'A' ? 'B' : 'A') + state.slice(-5);
    for (const bad of [flipped, `${state}-TAMPERED`, 'c1.', 'not-a-state', 'c1.' + 'A'.repeat(600)]) {
      const retry = await rawCall('echo_remove', { id }, { inputResponses: accepted, requestState: bad });
      expect(retry.result, bad.slice(0, 40)).toBeUndefined();
      expect(retry.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^Invalid requestState: .* Call the tool again without requestState/) });
    }
    expect(await upstreamSaw(id)).toEqual([]);
  });

  it('a state is bound to its call: other arguments, another tool or another key cannot use it', async () => {
    const id = fresh('bound');
    const state = (await rawCall('echo_remove', { id })).result!.requestState!;
    const other = fresh('other');
    expect((await rawCall('echo_remove', { id: other }, { inputResponses: accepted, requestState: state })).error?.code).toBe(-32602);
    expect((await rawCall('echo_update', { id }, { inputResponses: accepted, requestState: state })).error?.code).toBe(-32602);
    // The same deployment secret, another key: the state names its caller.
    const otherKey = 'mcp_test_confirmotherkey0000000000000000000';
    const foreign = await rawCall('echo_remove', { id }, { inputResponses: accepted, requestState: state }, { e: baseEnv({ API_KEY: otherKey }), key: otherKey });
    expect(foreign.error?.code).toBe(-32602);
    expect(await upstreamSaw(id)).toEqual([]);
    expect(await upstreamSaw(other)).toEqual([]);
  });

  it("another deployment's state is refused though it shares SESSION_SECRET and the key: it confirmed a call to another API", async () => {
    // A staging deployment in front of a sandbox, say: its person confirmed deleting something there, not here.
    const id = fresh('deployment');
    const staging = baseEnv({ UPSTREAM_URL: `${upstreamUrl}/staging` });
    const state = (await rawCall('echo_remove', { id }, {}, { e: staging })).result!.requestState!;
    expect((await rawCall('echo_remove', { id }, { inputResponses: accepted, requestState: state })).error?.code).toBe(-32602);
    expect(await upstreamSaw(id)).toEqual([]);
  });

  it('an expired state (older than 10 minutes) is refused, and the upstream never sees the call', async () => {
    const id = fresh('expired');
    const binding = `key:${(await sha256Hex(KEY)).slice(0, 8)}`;
    const old = await sealState(SECRET, await boundCall('echo_remove', { id }, binding, upstreamUrl), Date.now() - 11 * 60 * 1000);
    const fine = await sealState(SECRET, await boundCall('echo_remove', { id }, binding, upstreamUrl), Date.now() - 9 * 60 * 1000);
    const retry = await rawCall('echo_remove', { id }, { inputResponses: accepted, requestState: old });
    expect(retry.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^Expired requestState: a confirmation holds for 10 minutes/) });
    expect(await upstreamSaw(id)).toEqual([]);
    // The same state minted 9 minutes ago still holds (the binding above is the real one).
    expect((await rawCall('echo_remove', { id }, { inputResponses: accepted, requestState: fine })).result?.isError).toBeFalsy();
    expect(await upstreamSaw(id)).toHaveLength(1);
  });

  it('a replayed state is refused: the accepted retry runs once, the same retry again never reaches the upstream', async () => {
    const id = fresh('replay');
    const state = (await rawCall('echo_remove', { id })).result!.requestState!;
    const once = await rawCall('echo_remove', { id }, { inputResponses: accepted, requestState: state });
    expect(once.result?.isError).toBeFalsy();
    const again = await rawCall('echo_remove', { id }, { inputResponses: accepted, requestState: state });
    expect(again.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^requestState already used/) });
    // A declined answer uses up its state too: one state, one answer.
    const id2 = fresh('replay-declined');
    const state2 = (await rawCall('echo_remove', { id: id2 })).result!.requestState!;
    expect(textOf((await rawCall('echo_remove', { id: id2 }, { inputResponses: { confirm: { action: 'decline' } }, requestState: state2 })).result!)).toMatch(/^Not done/);
    expect((await rawCall('echo_remove', { id: id2 }, { inputResponses: accepted, requestState: state2 })).error?.code).toBe(-32602);
    expect((await upstreamSaw(id)).map((r) => r.method)).toEqual(['DELETE']);
    expect(await upstreamSaw(id2)).toEqual([]);
  });

  it('a retry that does not answer the question (no answer, another key, no state) is asked again, never run', async () => {
    const id = fresh('unanswered');
    const state = (await rawCall('echo_remove', { id })).result!.requestState!;
    for (const extra of [{ requestState: state }, { inputResponses: { other: { action: 'accept' } }, requestState: state }, { inputResponses: accepted }]) {
      const again = await rawCall('echo_remove', { id }, extra);
      expect(again.result?.resultType).toBe('input_required');
    }
    expect(await upstreamSaw(id)).toEqual([]);
  });

  it('reads and non-destructive writes are not asked about (CONFIRM_WRITES=destructive); "all" asks for every write, "off" for none', async () => {
    const id = fresh('policy');
    expect((await rawCall('echo_get', { id })).result?.resultType).toBe('complete');
    expect((await rawCall('echo_create', { id, note: 'n' })).result?.resultType).toBe('complete');
    expect((await upstreamSaw(id)).map((r) => r.method)).toEqual(['GET', 'POST']);
    const all = baseEnv({ CONFIRM_WRITES: 'all' });
    expect((await rawCall('echo_create', { id, note: 'n' }, {}, { e: all })).result?.resultType).toBe('input_required');
    expect((await rawCall('echo_get', { id }, {}, { e: all })).result?.resultType).toBe('complete');
    const off = baseEnv({ CONFIRM_WRITES: 'off' });
    expect((await rawCall('echo_remove', { id }, {}, { e: off })).result?.resultType).toBe('complete');
    expect((await upstreamSaw(id)).map((r) => r.method)).toEqual(['GET', 'POST', 'GET', 'DELETE']);
  });
});

describe('clients that cannot confirm', () => {
  const v1 = async (e = env) => {
    const client = new ClientV1({ name: 'confirm-v1', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(`${ORIGIN}/mcp`), { fetch: fetcher(e), requestInit: { headers: { authorization: `Bearer ${KEY}` } } }));
    return client;
  };

  it('2025-era clients (v1 SDK) and 2026-07-28 clients without elicitation keep today\'s behaviour: the call runs', async () => {
    const a = fresh('v1');
    const client = await v1();
    expect((await client.callTool({ name: 'echo_remove', arguments: { id: a } })).isError).toBeFalsy();
    await client.close();
    const b = fresh('v2-no-elicit');
    const { client: modern } = await modernClient();
    expect((await modern.callTool({ name: 'echo_remove', arguments: { id: b } })).isError).toBeFalsy();
    await modern.close();
    const c = fresh('raw-no-elicit');
    expect((await rawCall('echo_remove', { id: c }, {}, { capabilities: { sampling: {} } })).result?.resultType).toBe('complete');
    for (const id of [a, b, c]) expect((await upstreamSaw(id)).map((r) => r.method)).toEqual(['DELETE']);
  });

  it('with CONFIRM_WRITES_REQUIRED=1 the destructive call is refused, saying why and what to do; reads still run', async () => {
    const required = baseEnv({ CONFIRM_WRITES_REQUIRED: '1' });
    const id = fresh('required');
    const client = await v1(required);
    const refused = (await client.callTool({ name: 'echo_remove', arguments: { id } })) as { isError?: boolean; content: Array<{ text: string }> };
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toMatch(/^echo_remove was not called: this server asks the person to confirm calls that may delete or overwrite data, and this client cannot ask \(confirmation needs MCP protocol 2026-07-28 with the elicitation capability\)\. Nothing was changed\./);
    // The fast path (a plain 2025 call) refuses the same way as the SDK's path.
    const again = (await client.callTool({ name: 'echo_remove', arguments: { id } })) as { isError?: boolean };
    expect(again.isError).toBe(true);
    expect((await client.callTool({ name: 'echo_get', arguments: { id } })).isError).toBeFalsy();
    await client.close();
    const modern = await rawCall('echo_remove', { id }, {}, { e: required, capabilities: {} });
    expect(modern.result).toMatchObject({ isError: true });
    // A client that can confirm is asked, not refused.
    expect((await rawCall('echo_remove', { id }, {}, { e: required })).result?.resultType).toBe('input_required');
    expect((await upstreamSaw(id)).map((r) => r.method)).toEqual(['GET']);
  });
});
