// Client side: listTools of the same list by the v1 strict client (which compiles every outputSchema with Ajv) and
// the v2 client (which compiles one on its first call), side by side in one run, per list size. The trade-off behind
// the listed outputSchemas' bound is measured in-process by client-bound.ts.
import type { BenchContext } from '../context.ts';
import { DEFAULTS, SLICE } from '../plan.ts';
import type { Server } from '../servers.ts';
import { fmtMs, fmtRatio, fmtSpread, median, ratio, spread, verdict } from '../stats.ts';
import { timedClients } from '../timed-clients.ts';
import { benchClientBound } from './client-bound.ts';

/** v1 listTools over v2 listTools of the same list, at bare /mcp (issue 40): the v1 client's extra cost is bounded. */
const BARE_RATIO = 3;

export async function benchClient(ctx: BenchContext, worker: Server): Promise<void> {
  const { plan, results } = ctx;
  const { v1, v2 } = await timedClients();
  const raw: Record<string, unknown> = {};
  results.raw.client = raw;
  const cases: [string, string, number, number | undefined][] = [
    [`toolset ${SLICE}`, `/mcp/x/${SLICE}`, plan.n.clientReps.slice, undefined],
    ["bare /mcp (the catalogue's default toolsets)", '/mcp', plan.n.clientReps.bare, BARE_RATIO],
    [`GitHub MCP default toolsets (${DEFAULTS})`, `/mcp/x/${DEFAULTS}`, plan.n.clientReps.defaults, undefined],
    ['full catalogue', '/mcp/x/all', plan.n.clientReps.all, undefined],
  ];
  for (const [label, path, reps, target] of cases) {
    if (!reps) continue;
    const url = new URL(`${worker.url}${path}`);
    const a: number[] = [];
    const b: number[] = [];
    const cpu: [number[], number[]] = [[], []];
    const perRep: number[] = [];
    let tools = 0;
    for (let i = 0; i < reps; i++) {
      // Interleaved, the order alternating per repeat, so load on the shared machine falls on both alike.
      const [first, second] = i % 2 ? [v2, v1] : [v1, v2];
      const x = await first(url);
      const y = await second(url);
      const [one, two] = i % 2 ? [y, x] : [x, y];
      if (one.tools !== two.tools) throw new Error(`${path}: v1 listed ${one.tools} tools, v2 ${two.tools}`);
      tools = one.tools;
      a.push(one.ms);
      b.push(two.ms);
      cpu[0].push(one.cpuMs);
      cpu[1].push(two.cpuMs);
      perRep.push(one.ms / two.ms);
    }
    const s1 = spread(a);
    const s2 = spread(b);
    const r = ratio(s1.median, s2.median);
    const [cpu1, cpu2] = cpu.map(median) as [number, number];
    raw[path] = { tools, v1ListToolsMs: s1, v2ListToolsMs: s2, ratio: r, perRepRatioMedian: median(perRep), v1CpuMs: cpu1, v2CpuMs: cpu2 };
    const result = `v1 ${fmtSpread(s1)} · v2 ${fmtSpread(s2)} · v1/v2 ${fmtRatio(r)} (median of per-repeat ratios ${fmtRatio(median(perRep))}) · client CPU (medians) v1 ${fmtMs(cpu1)}, v2 ${fmtMs(cpu2)}`;
    results.row({
      section: 'client',
      measure: `v1 vs v2 client listTools, ${label} (${tools} tools)`,
      result,
      target: target !== undefined ? `v1/v2 ≤ ${target}×` : undefined,
      verdict: target !== undefined ? verdict(r, target, `${target}×`) : undefined,
      reproduce: plan.reproduce('client'),
    });
    if (target !== undefined) {
      results.target({ section: 'client', measure: `v1 client listTools vs v2, ${label}`, result: `${fmtRatio(r)} (v1 ${Math.round(s1.median)} ms, v2 ${Math.round(s2.median)} ms)`, target: `≤ ${target}×`, verdict: verdict(r, target, `${target}×`) });
    }
    ctx.log(`client ${path}: ${result}`);
  }
  results.note('client', `\`client.listTools()\` of \`@modelcontextprotocol/sdk\` 1.32.2 (v1: Client + StreamableHTTPClientTransport, 2025 era) and of \`@modelcontextprotocol/client\` 2.4.0 (v2, its default version negotiation) against the same endpoint of workerd run directly (no proxy in front, as in production), in the bench process; the two interleaved, the order alternating per repeat, a fresh client each time, connect not timed; median (min, max) of each and the ratio of the medians. Both pay the same HTTP round trip and JSON parse; the v1 client also compiles every listed outputSchema with Ajv (draft-07, allErrors, ajv-formats), while the v2 client compiles one only when that tool is first called. Client CPU: the bench process's user and system time during each listTools (the worker is a process of its own).`);
  await benchClientBound(ctx);
}
