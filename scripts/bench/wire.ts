// Wire capture: the exact requests the real v2 client sends, replayed byte for byte in the latency loops; and the
// interleaved loop that replays them.
import type { HttpClient, Req } from './http.ts';
import { AUTH, TOOL } from './plan.ts';

export interface Wire {
  call: Req;
  list: Req;
}

export type Era = 'legacy' | { pin: string };

export const eraName = (m: Era) => (m === 'legacy' ? '2025 era' : m.pin);

type V2Client = InstanceType<(typeof import('@modelcontextprotocol/client'))['Client']>;

/** The requests a real v2 client sends to `path` while `use` drives it, recorded by a wrapping fetch. */
async function recordRequests(base: string, mode: Era, use: (client: V2Client) => Promise<void>, path = '/mcp/x/all'): Promise<Req[]> {
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const seen: Req[] = [];
  const recording = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const headers: Record<string, string> = {};
    new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).forEach((v, k) => (headers[k] = v));
    if (typeof init?.body === 'string') seen.push({ method: init.method ?? 'GET', path: url.pathname + url.search, headers, body: init.body });
    return fetch(input, init);
  };
  const client = new Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${path}`), { fetch: recording, requestInit: { headers: AUTH } }));
  try {
    await use(client);
  } finally {
    await client.close();
  }
  return seen;
}

function lastRequest(seen: Req[], method: string): Req {
  const r = [...seen].reverse().find((q) => (JSON.parse(q.body!) as { method?: string }).method === method);
  if (!r) throw new Error(`no ${method} request captured`);
  return r;
}

/**
 * The exact tools/call request the v2 client sends for one tool on `path` (default /mcp/x/all). The call must
 * succeed and, unless `structured` is false (code mode's tools have no outputSchema), answer structuredContent.
 */
export async function captureToolCall(base: string, mode: Era, name: string, args: Record<string, unknown>, opts: { path?: string; structured?: boolean } = {}): Promise<Req> {
  const seen = await recordRequests(
    base,
    mode,
    async (client) => {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError || (opts.structured !== false && !result.structuredContent)) throw new Error(`tools/call ${name} did not succeed: ${JSON.stringify(result).slice(0, 500)}`);
    },
    opts.path,
  );
  return lastRequest(seen, 'tools/call');
}

export async function captureWire(base: string, mode: Era): Promise<Wire> {
  const seen = await recordRequests(base, mode, async (client) => {
    const result = await client.callTool({ name: TOOL.ours, arguments: TOOL.args });
    if (result.isError || !result.structuredContent) throw new Error(`tools/call ${TOOL.ours} did not succeed: ${JSON.stringify(result).slice(0, 500)}`);
    await client.listTools();
  });
  return { call: lastRequest(seen, 'tools/call'), list: lastRequest(seen, 'tools/list') };
}

export function expectOk(what: string, status: number, body: Buffer, mustContain?: string): void {
  if (status !== 200) throw new Error(`${what}: HTTP ${status}: ${body.toString('utf8').slice(0, 300)}`);
  if (mustContain && !body.includes(mustContain)) throw new Error(`${what}: response lacks ${mustContain}: ${body.toString('utf8').slice(0, 300)}`);
}

/** Runs the targets interleaved (rotating order each round) so drift and noise hit all of them alike. */
export async function interleaved(http: HttpClient, base: string, targets: Record<string, Req>, iters: number, warm: number): Promise<Record<string, number[]>> {
  const names = Object.keys(targets);
  const out: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < warm + iters; i++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(i + j) % names.length]!;
      const { ms, res } = await http.timed(base, targets[name]!);
      if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
      if (i >= warm) out[name]!.push(ms);
    }
  }
  return out;
}
