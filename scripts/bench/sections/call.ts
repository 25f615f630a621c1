// tools/call overhead vs the floor: the same upstream call through MCP and through a bare passthrough route.
import type { BenchContext } from '../context.ts';
import type { Req } from '../http.ts';
import { TOOL } from '../plan.ts';
import type { Server } from '../servers.ts';
import { fmtMs, fmtRatio, ratio, summarize, verdict } from '../stats.ts';
import { expectOk, interleaved, type Wire } from '../wire.ts';

export async function benchCall(ctx: BenchContext, worker: Server, wires: Map<string, Wire>): Promise<void> {
  const { plan, results, http } = ctx;
  const floor: Req = { method: 'GET', path: `/__bench/passthrough${TOOL.upstreamPath}`, headers: { accept: 'application/json' } };
  const f = await http.send(worker.url, floor);
  expectOk('floor', f.status, f.body, '"login"');
  const targets: Record<string, Req> = { floor };
  for (const [era, w] of wires) {
    const r = await http.send(worker.url, w.call);
    expectOk(`tools/call ${era}`, r.status, r.body, '"structuredContent"');
    targets[era] = w.call;
  }
  ctx.log(`call: ${plan.n.callIters} interleaved rounds of ${Object.keys(targets).join(', ')}`);
  const samples = await interleaved(http, worker.url, targets, plan.n.callIters, plan.n.callWarm);
  const floorS = summarize(samples.floor!);
  const raw: Record<string, unknown> = { floor: floorS };
  results.raw.call = raw;
  results.row({ section: 'call', measure: 'floor: passthrough GET /users/octocat', result: `p50 ${fmtMs(floorS.p50)} · p99 ${fmtMs(floorS.p99)}`, reproduce: plan.reproduce('call') });
  for (const era of wires.keys()) {
    const s = summarize(samples[era]!);
    const r50 = ratio(s.p50, floorS.p50);
    const r99 = ratio(s.p99, floorS.p99);
    raw[era] = { ...s, ratioP50: r50, ratioP99: r99 };
    results.row({
      section: 'call',
      measure: `tools/call ${TOOL.ours}, ${era}`,
      result: `p50 ${fmtMs(s.p50)} · p99 ${fmtMs(s.p99)} · ratio p50 ${fmtRatio(r50)}, p99 ${fmtRatio(r99)}`,
      target: 'p50 ratio ≤ 1.15',
      verdict: verdict(r50, 1.15),
      reproduce: plan.reproduce('call'),
    });
  }
  results.note('call', `${plan.n.callIters} rounds after ${plan.n.callWarm} warm-up rounds; each round sends one request to every target in rotating order, one at a time (concurrency 1) over a keep-alive node:http socket; a sample is request start to last body byte. The MCP requests are the exact bytes the v2 client (\`@modelcontextprotocol/client\`) sent in this run, captured with a recording fetch (2025 era: \`versionNegotiation: legacy\`, stateless, no session; 2026-07-28: pinned). The floor is \`/__bench/passthrough/users/octocat\` in the same worker (scripts/bench/worker.ts): one fetch to the same upstream, body streamed back, no MCP.`);
}
