// One autocannon run (programmatic, in the bench process) at CONNECTIONS concurrent connections.
import type { Req } from './http.ts';
import { CONNECTIONS } from './plan.ts';

export interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
}

export async function loadRun(url: string, req: Req, seconds: number): Promise<Load> {
  const { default: autocannon } = await import('autocannon');
  // Every request gets its own JSON-RPC id: the peer is stateful, and concurrent requests that reuse an id
  // within one session collide in its transport (one of them never gets an answer).
  const template = JSON.parse(req.body ?? '{}') as Record<string, unknown>;
  let id = 1000;
  const r = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [{ method: req.method, path: req.path, headers: req.headers, body: req.body, ...(req.body ? { setupRequest: (q: object) => ({ ...q, body: JSON.stringify({ ...template, id: ++id }) }) } : {}) }],
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts, total: r.requests.total };
}
