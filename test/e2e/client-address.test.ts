// Per-IP OAuth limits against a real `wrangler dev`, which passes a client's own CF-Connecting-IP through: a new
// value per request, or a Host naming a workers.dev name, must not give a client a fresh bucket (src/oauth/attempts.ts;
// the local scripts run it with CLIENT_ADDRESS=shared).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstream } from '../support/upstream-server.ts';
import { startWorker, type WranglerDev } from '../support/wrangler-dev.ts';
import { fixtureCatalogue } from '../worker/fixtures/catalogue.ts';

let upstream: Awaited<ReturnType<typeof startUpstream>>;
let worker: WranglerDev;

beforeAll(async () => {
  upstream = await startUpstream();
  worker = await startWorker({ upstream: upstream.url, catalogue: fixtureCatalogue(), vars: { OAUTH_REGISTER_RATE: '3/hour' } });
}, 240_000);

afterAll(async () => {
  await worker?.stop();
  await upstream?.close();
});

describe('client address under wrangler dev', () => {
  it('a new CF-Connecting-IP (and a workers.dev Host) per registration resets nothing: the fourth is 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const headers: Record<string, string> = { 'content-type': 'application/json', 'cf-connecting-ip': `198.51.100.${i + 1}` };
      if (i % 2) headers.host = `spoof-${i}.example.workers.dev`;
      const res = await fetch(`${worker.url}/register`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ client_name: `addr ${i}`, redirect_uris: ['http://127.0.0.1:43117/callback'], token_endpoint_auth_method: 'none' }),
      });
      statuses.push(res.status);
      if (res.status === 429) expect(((await res.json()) as { error: string }).error).toBe('rate_limited');
    }
    expect(statuses).toEqual([201, 201, 201, 429, 429, 429]);
  });
});
