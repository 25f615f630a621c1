// JSON-RPC batches count per message (src/protocol/batch.ts): against the key's rate limit, as separate requests
// would, with the 429's words per refused message, and never more than BATCH_CONCURRENCY of them at the upstream at
// once. The loopback upstream's /pace/<id> route answers after 40 ms and counts <id>'s requests in flight.
import { describe, expect, it } from 'vitest';
import { BATCH_CONCURRENCY } from '../../src/protocol/batch.ts';
import { baseEnv, captureLogs, initialize, makeKey, OPERATOR_KEY, post, unique, upstreamUrl } from './fixtures/auth-harness.ts';

captureLogs();

interface Answer {
  id: number;
  result?: { isError?: boolean; content?: Array<{ text?: string }> };
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

const calls = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'echo_get', arguments: { id: `${tag}-${i}` } } }));

async function answers(res: Response): Promise<Answer[]> {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return [...(await res.text()).matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as Answer);
}

const pacedEnv = (tag: string) => baseEnv({ UPSTREAM_URL: `${upstreamUrl}/pace/${tag}` });
const paced = async (tag: string) => (await (await fetch(`${upstreamUrl}/__paced?id=${tag}`)).json()) as { max: number; total: number };

describe('a batch is charged per message', () => {
  it('a 5/min key gets 5 successes from a batch of 100; the other 95 get the 429 words as a JSON-RPC error, and nothing reaches the upstream for them', async () => {
    const tag = `b100-${unique()}`;
    const { key } = await makeKey({ rate: { limit: 5, period: 'minute' } });
    const got = await answers(await post(key, calls(100, tag), pacedEnv(tag)));
    expect(got.map((a) => a.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    const ok = got.filter((a) => a.result && !a.result.isError);
    const refused = got.filter((a) => a.error);
    expect(ok).toHaveLength(5);
    expect(refused).toHaveLength(95);
    for (const r of refused) {
      expect(r.error!.code).toBe(-32000);
      expect(r.error!.message).toMatch(/^This key allows 5 requests per minute\. Retry after \d+ s\.$/);
      expect(r.error!.data).toMatchObject({ status: 429, error: 'rate_limited', limit: 5 });
      expect(r.error!.data!.retry_after).toBeGreaterThanOrEqual(55);
    }
    expect((await paced(tag)).total).toBe(5);
    // The window is the key's, shared with single requests: the next POST is the plain 429.
    const after = await post(key, initialize);
    expect(after.status).toBe(429);
    expect(((await after.json()) as { error_description: string }).error_description).toBe(refused[0]!.error!.message);
  });

  it('the messages a window still allows run, in order, and single requests after them see what is left', async () => {
    const tag = `b3-${unique()}`;
    const { key } = await makeKey({ rate: { limit: 4, period: 'minute' } });
    expect((await post(key, initialize)).status).toBe(200);
    const got = await answers(await post(key, calls(5, tag), pacedEnv(tag)));
    // 1 used, so 3 of 5 run: the first three.
    expect(got.filter((a) => a.result).map((a) => a.id).sort()).toEqual([1, 2, 3]);
    expect(got.filter((a) => a.error).map((a) => a.id).sort()).toEqual([4, 5]);
    expect((await post(key, initialize)).status).toBe(429);
  });

  it('notifications count too, and a batch of notifications alone is answered 202', async () => {
    const { key } = await makeKey({ rate: { limit: 3, period: 'minute' } });
    const note = { jsonrpc: '2.0', method: 'notifications/initialized' };
    expect((await post(key, [note, note])).status).toBe(202);
    const got = await answers(await post(key, [{ jsonrpc: '2.0', id: 7, method: 'tools/list' }, note, { jsonrpc: '2.0', id: 8, method: 'tools/list' }]));
    // 2 used by the notifications; the third message of the window is the first tools/list, the rest is refused.
    expect(got.find((a) => a.id === 7)?.result).toBeDefined();
    expect(got.find((a) => a.id === 8)?.error?.data).toMatchObject({ error: 'rate_limited' });
  });
});

describe('a batch runs a few messages at a time', () => {
  it(`100 tools/call in one POST never have more than ${BATCH_CONCURRENCY} upstream requests in flight, and all succeed`, async () => {
    const tag = `bc-${unique()}`;
    const got = await answers(await post(OPERATOR_KEY, calls(100, tag), pacedEnv(tag)));
    expect(got.filter((a) => a.result && !a.result.isError)).toHaveLength(100);
    const seen = await paced(tag);
    expect(seen.total).toBe(100);
    expect(seen.max).toBeLessThanOrEqual(BATCH_CONCURRENCY);
    expect(seen.max).toBeGreaterThan(1);
  });

  it('a request-level refusal (no text/event-stream in Accept) is still one answer for the whole batch', async () => {
    const res = await post(OPERATOR_KEY, calls(3, 'accept'), baseEnv(), undefined, { accept: 'application/json' });
    expect(res.status).toBe(406);
  });

  it('an invalid message or an initialize in a batch is refused whole by the SDK, as before', async () => {
    for (const body of [[...calls(2, 'inv'), { id: 3 }], [initialize, ...calls(1, 'init')]]) {
      const res = await post(OPERATOR_KEY, body);
      expect(res.status).toBe(400);
    }
  });
});
