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
  const pinned = wires.get('2026-07-28');
  if (pinned) await benchMetering(ctx, worker, pinned.call);
  results.note('call', `${plan.n.callIters} rounds after ${plan.n.callWarm} warm-up rounds; each round sends one request to every target in rotating order, one at a time (concurrency 1) over a keep-alive node:http socket; a sample is request start to last body byte. The MCP requests are the exact bytes the v2 client (\`@modelcontextprotocol/client\`) sent in this run, captured with a recording fetch (2025 era: \`versionNegotiation: legacy\`, stateless, no session; 2026-07-28: pinned). The floor is \`/__bench/passthrough/users/octocat\` in the same worker (scripts/bench/worker.ts): one fetch to the same upstream, body streamed back, no MCP.`);
}

/** Usage metering's cost on the call path: the same tools/call with USAGE_METERING on and off, interleaved. */
async function benchMetering(ctx: BenchContext, worker: Server, call: Req): Promise<void> {
  const { plan, results, http } = ctx;
  const targets: Record<string, Req> = { on: { ...call, path: `/__bench/usage-on${call.path}` }, off: { ...call, path: `/__bench/usage-off${call.path}` } };
  for (const [name, req] of Object.entries(targets)) {
    const r = await http.send(worker.url, req);
    expectOk(`tools/call usage ${name}`, r.status, r.body, '"structuredContent"');
  }
  ctx.log(`call: ${plan.n.callIters} interleaved rounds of usage metering on, off`);
  const samples = await interleaved(http, worker.url, targets, plan.n.callIters, plan.n.callWarm);
  const on = summarize(samples.on!);
  const off = summarize(samples.off!);
  const r50 = ratio(on.p50, off.p50);
  const r99 = ratio(on.p99, off.p99);
  (results.raw.call as Record<string, unknown>).metering = { on, off, ratioP50: r50, ratioP99: r99 };
  results.row({
    section: 'call',
    measure: `tools/call ${TOOL.ours}, 2026-07-28, usage metering on vs off`,
    result: `on p50 ${fmtMs(on.p50)} · off p50 ${fmtMs(off.p50)} · on/off p50 ${fmtRatio(r50)} (${fmtPct(r50)}), p99 ${fmtRatio(r99)}`,
    target: 'p50 on/off ≤ 1.03',
    verdict: verdict(r50, 1.03),
    reproduce: plan.reproduce('call'),
  });
  results.note('call', `Usage metering: ${plan.n.callIters} more rounds after ${plan.n.callWarm} warm-up, alternating \`/__bench/usage-on/mcp/x/all\` and \`/__bench/usage-off/mcp/x/all\` (scripts/bench/worker.ts: the same app in the same isolate with USAGE_METERING forced on or off). "On" is production's path: the call is counted in the isolate's aggregator and a flush every USAGE_FLUSH_MS (5 s) writes to the local D1 in waitUntil, so flush work lands on whichever requests overlap it.`);
}

function fmtPct(r: number): string {
  return Number.isFinite(r) ? `${r >= 1 ? '+' : ''}${((r - 1) * 100).toFixed(1)} %` : 'n/a';
}
