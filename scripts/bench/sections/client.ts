// The v1 strict client's listTools time (it compiles every outputSchema with Ajv) per toolset size.
import { freshSocketFetch } from '../../lib/fresh-socket-fetch.ts';
import type { BenchContext } from '../context.ts';
import { AUTH, DEFAULTS, sectionNumber, SLICE } from '../plan.ts';
import type { Server } from '../servers.ts';
import { fmtMs, fmtSpread, spread, verdict } from '../stats.ts';

/** `fetchMs`: the list section's live p50 per path, shown as the HTTP share of the client's time. */
export async function benchClient(ctx: BenchContext, worker: Server, fetchMs: Map<string, number>): Promise<void> {
  const { plan, results } = ctx;
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const raw: Record<string, unknown> = {};
  results.raw.client = raw;
  // Every listed outputSchema is the whole schema (docs/slices-profiles-discovery.md), so this is the client's cost of
  // typed outputs: targets 0.5 s at bare /mcp and 2 s for the whole catalogue.
  const cases: [string, string, number, number | undefined][] = [
    [`toolset ${SLICE}`, `/mcp/x/${SLICE}`, plan.n.clientReps.slice, 500],
    ["bare /mcp (the catalogue's default toolsets)", '/mcp', plan.n.clientReps.bare, 500],
    [`GitHub MCP default toolsets (${DEFAULTS})`, `/mcp/x/${DEFAULTS}`, plan.n.clientReps.defaults, undefined],
    ['full catalogue', '/mcp/x/all', plan.n.clientReps.all, 2000],
  ];
  for (const [label, path, reps, target] of cases) {
    if (!reps) continue;
    const times: number[] = [];
    let tools = 0;
    for (let i = 0; i < reps; i++) {
      // A fresh client each time: the v1 client's Ajv cache grows with repeated listTools calls.
      const client = new Client({ name: 'bench-v1', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${worker.url}${path}`), { requestInit: { headers: AUTH }, fetch: freshSocketFetch }));
      const t0 = performance.now();
      const res = await client.listTools();
      times.push(performance.now() - t0);
      tools = res.tools.length;
      await client.close();
    }
    const s = spread(times);
    const server = fetchMs.get(path);
    raw[path] = { tools, listToolsMs: s, rawFetchP50Ms: server };
    results.row({
      section: 'client',
      measure: `v1 client listTools, ${label} (${tools} tools)`,
      result: `${fmtSpread(s)}${server !== undefined ? ` · of which HTTP round trip ≈ ${fmtMs(server)} (p50, section ${sectionNumber('list')})` : ''}`,
      target: target !== undefined ? `≤ ${target} ms` : undefined,
      verdict: target !== undefined ? verdict(s.median, target, `${target} ms`) : undefined,
      reproduce: plan.reproduce('client'),
    });
    ctx.log(`client ${path}: ${fmtSpread(s)}`);
  }
  results.note('client', `Time of \`client.listTools()\` in \`@modelcontextprotocol/sdk\` 1.32.2 (Client + StreamableHTTPClientTransport, protocol 2025-era), run in the bench process against the worker; connect (initialize) is not timed. A fresh client per repeat. The listTools time includes the HTTP round trip and the client's Ajv compilation of every tool's outputSchema (listed schemas carry no \`$id\`, so identical ones are compiled again); the HTTP share is the p50 of the same request measured in section ${sectionNumber('list')} where available.`);
}
