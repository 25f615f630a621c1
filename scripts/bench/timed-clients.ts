// listTools timed in the two SDK clients a strict server-side agent uses: the v1 client (@modelcontextprotocol/sdk),
// which compiles every listed outputSchema with Ajv, and the v2 client (@modelcontextprotocol/client).
import { freshSocketFetch } from '../lib/fresh-socket-fetch.ts';
import { AUTH } from './plan.ts';

/** Wall time of listTools, and the CPU time this process spent meanwhile (less swayed by other load on the machine). */
export type Timed = (url: URL) => Promise<{ ms: number; cpuMs: number; tools: number }>;

async function timed(list: () => Promise<{ tools: unknown[] }>): Promise<{ ms: number; cpuMs: number; tools: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const res = await list();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { ms, cpuMs: (c.user + c.system) / 1000, tools: res.tools.length };
}

/** listTools of a fresh v1 and a fresh v2 client, timed (connect not timed). */
export async function timedClients(): Promise<{ v1: Timed; v2: Timed }> {
  const V1 = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport: V1Transport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const V2 = await import('@modelcontextprotocol/client');
  const options = { requestInit: { headers: AUTH }, fetch: freshSocketFetch };
  // A fresh client each time: the v1 client's Ajv cache grows with repeated listTools calls, and the v2 client
  // caches the list. Connecting (initialize, or the v2 client's discovery) is not timed.
  return {
    v1: async (url) => {
      const client = new V1.Client({ name: 'bench-v1', version: '1.0.0' });
      await client.connect(new V1Transport(url, options));
      const out = await timed(() => client.listTools());
      await client.close();
      return out;
    },
    v2: async (url) => {
      const client = new V2.Client({ name: 'bench-v2', version: '1.0.0' });
      await client.connect(new V2.StreamableHTTPClientTransport(url, options));
      const out = await timed(() => client.listTools());
      await client.close();
      return out;
    },
  };
}
