// Exact answers from the loopback upstream (test/support/upstream-server.ts) through a real `wrangler dev`
// serving a small catalogue: what reaches the upstream in passthrough mode and in key mode.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstream } from '../support/upstream-server.ts';
import { startWorker, type WranglerDev } from '../support/wrangler-dev.ts';
import { fixtureCatalogue } from '../worker/fixtures/catalogue.ts';
import { connectV1, connectV2, textOf } from './helpers.ts';

let upstream: { url: string; close(): Promise<void> } | undefined;
let passthrough: WranglerDev | undefined;
let keyed: WranglerDev | undefined;

beforeAll(async () => {
  upstream = await startUpstream();
  [passthrough, keyed] = await Promise.all([
    startWorker({ upstream: upstream.url, catalogue: fixtureCatalogue(), credentialMode: 'passthrough' }),
    startWorker({ upstream: upstream.url, catalogue: fixtureCatalogue(), credentialMode: 'key' }),
  ]);
});

afterAll(async () => {
  await Promise.all([passthrough?.stop(), keyed?.stop()]);
  await upstream?.close();
});

type Echo = { method: string; url: string; headers: Record<string, string | undefined> };

describe('credentials through wrangler dev', () => {
  it('passthrough: the caller’s bearer token reaches the upstream unchanged (v1 client)', async () => {
    const token = 'ghp_e2eCallerToken0123456789abcdefABCDEF';
    const client = await connectV1(passthrough!.endpoint, { Authorization: `Bearer ${token}` });
    try {
      await client.listTools();
      const result = await client.callTool({ name: 'echo_get', arguments: { id: 'abc', limit: 5 } });
      expect(result.isError, textOf(result)).toBeFalsy();
      const echo = result.structuredContent as Echo;
      expect(echo).toMatchObject({ method: 'GET', url: '/echo/abc?limit=5' });
      // The worker redacts the token in what it shows the model; the upstream's own record has it verbatim.
      expect(JSON.stringify(result)).not.toContain(token);
      const seen = (await (await fetch(`${upstream!.url}/__last?path=/echo/abc`)).json()) as Echo;
      expect(seen.headers.authorization).toBe(`Bearer ${token}`);
    } finally {
      await client.close();
    }
  });

  it('passthrough: a request without a bearer is refused with 401', async () => {
    const res = await fetch(passthrough!.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(res.status).toBe(401);
  });

  it('key mode: the API key is checked and never forwarded upstream (v2 client, 2026-07-28)', async () => {
    const client = await connectV2(keyed!.endpoint, keyed!.auth);
    try {
      const result = await client.callTool({ name: 'echo_get', arguments: { id: 'k' } });
      expect(result.isError, textOf(result)).toBeFalsy();
      const echo = result.structuredContent as Echo;
      expect(echo.url).toBe('/echo/k');
      const seen = (await (await fetch(`${upstream!.url}/__last?path=/echo/k`)).json()) as Echo;
      expect(seen.url).toBe('/echo/k');
      expect(JSON.stringify(seen.headers)).not.toContain(keyed!.apiKey);
    } finally {
      await client.close();
    }
  });
});
