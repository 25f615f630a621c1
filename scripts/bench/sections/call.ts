// tools/call overhead vs the floor: the same upstream call through MCP and through a bare passthrough route, against
// workerd run directly and against wrangler dev; then CPU per request (workerd direct, from /proc) and where it goes
// (a V8 profile of the isolate under load).
import { Cdp, selfTimeShares } from '../cdp.ts';
import type { BenchContext } from '../context.ts';
import type { Req } from '../http.ts';
import { CONNECTIONS, TOOL } from '../plan.ts';
import type { Server } from '../servers.ts';
import { fmtMs, fmtRatio, ratio, summarize, verdict } from '../stats.ts';
import { loadRun } from '../load.ts';
import { expectOk, interleaved, type Wire } from '../wire.ts';
import { processCpuMs, type DirectWorker } from '../workerd.ts';

const floorReq: Req = { method: 'GET', path: `/__bench/passthrough${TOOL.upstreamPath}`, headers: { accept: 'application/json' } };

/** `target`: the row the 1.15× target applies to (workerd direct); the wrangler dev rows are context. */
async function latencyRows(ctx: BenchContext, label: string, worker: Server, wires: Map<string, Wire>, target: boolean): Promise<Record<string, number>> {
  const { plan, results, http } = ctx;
  const f = await http.send(worker.url, floorReq);
  expectOk(`floor (${label})`, f.status, f.body, '"login"');
  const targets: Record<string, Req> = { floor: floorReq };
  for (const [era, w] of wires) {
    const r = await http.send(worker.url, w.call);
    expectOk(`tools/call ${era} (${label})`, r.status, r.body, '"structuredContent"');
    targets[era] = w.call;
  }
  ctx.log(`call (${label}): ${plan.n.callIters} interleaved rounds of ${Object.keys(targets).join(', ')}`);
  const samples = await interleaved(http, worker.url, targets, plan.n.callIters, plan.n.callWarm);
  const floorS = summarize(samples.floor!);
  const raw: Record<string, unknown> = { floor: floorS };
  (results.raw.call as Record<string, unknown>)[label] = raw;
  results.row({ section: 'call', measure: `${label}: floor, passthrough GET /users/octocat`, result: `p50 ${fmtMs(floorS.p50)} · p99 ${fmtMs(floorS.p99)}`, reproduce: plan.reproduce('call') });
  const ratios: Record<string, number> = {};
  for (const era of wires.keys()) {
    const s = summarize(samples[era]!);
    const r50 = ratio(s.p50, floorS.p50);
    ratios[era] = r50;
    raw[era] = { ...s, ratioP50: r50, ratioP99: ratio(s.p99, floorS.p99) };
    results.row({
      section: 'call',
      measure: `${label}: tools/call ${TOOL.ours}, ${era}`,
      result: `p50 ${fmtMs(s.p50)} · p99 ${fmtMs(s.p99)} · ratio p50 ${fmtRatio(r50)}, p99 ${fmtRatio(ratio(s.p99, floorS.p99))} · +${fmtMs(s.p50 - floorS.p50)} at p50`,
      ...(target ? { target: 'p50 ratio ≤ 1.15', verdict: verdict(r50, 1.15) } : {}),
      reproduce: plan.reproduce('call'),
    });
  }
  return ratios;
}

/** CPU per request of the floor and of tools/call in the directly run workerd, and a profile of the call under load. */
async function cpuRows(ctx: BenchContext, direct: DirectWorker, call: Req): Promise<void> {
  const { plan, results } = ctx;
  const seconds = plan.n.cpuSeconds;
  const perRequest = async (req: Req): Promise<number> => {
    const c0 = await processCpuMs(direct.pid);
    const run = await loadRun(direct.url, req, seconds);
    return ((await processCpuMs(direct.pid)) - c0) / Math.max(1, run.total);
  };
  ctx.log(`call: CPU per request in workerd direct, ${seconds} s each at c=${CONNECTIONS}`);
  const floorCpu: number[] = [];
  const callCpu: number[] = [];
  for (let round = 0; round < 2; round++) {
    floorCpu.push(await perRequest(floorReq));
    callCpu.push(await perRequest(call));
  }
  const floor = Math.min(...floorCpu);
  const mcp = Math.min(...callCpu);
  const floorP50 = ((results.raw.call as Record<string, { floor?: { p50: number } }>)['workerd direct']?.floor?.p50) ?? NaN;
  if (Number.isFinite(floorP50)) {
    results.note('call', `What the 1.15× target asks: at c=1 a call's p50 is about the floor's plus the MCP work, so 1.15× leaves ${fmtMs(0.15 * floorP50)} for that work next to a ${fmtMs(floorP50)} floor (one fetch to a loopback upstream). The MCP work measured here is ${fmtMs(mcp - floor)} of CPU per call: routing and the pipeline (host check, the bearer's SHA-256, slice, body), the JSON-RPC message, argument validation, building the upstream request, parsing, checking and shortening the JSON answer, redaction, the tool_call log line and writing the result; the profile below shows no single part above a few percent apart from the runtime's own fetch, Response and console.log.`);
  }
  (results.raw.call as Record<string, unknown>).cpuPerRequestMs = { floor: floorCpu, call: callCpu };
  results.row({
    section: 'call',
    measure: `workerd direct: CPU per request (process user+system ÷ requests, c=${CONNECTIONS})`,
    result: `floor ${fmtMs(floor)} · tools/call (2025 era) ${fmtMs(mcp)} · MCP overhead ${fmtMs(mcp - floor)} (best of 2 runs each)`,
    reproduce: plan.reproduce('call'),
  });
  // The inspector is attached only now: an attached client makes every console.log (one per call) cost more.
  if (!direct.inspector) return;
  const cdp = await Cdp.connect(direct.inspector);
  let profile;
  try {
    profile = await cdp.profile(async () => {
      await loadRun(direct.url, call, seconds);
    });
  } finally {
    cdp.close();
  }
  const top = selfTimeShares(profile, 12);
  (results.raw.call as Record<string, unknown>).profileTop = top;
  results.note('call', `Where a tools/call's CPU goes (workerd direct, V8 sampling profile of the isolate over ${seconds} s at c=${CONNECTIONS}, share of non-idle self time; "(native)" is runtime code such as fetch, Response and promise jobs; \`log\` includes console.log, which costs more with the profiling inspector attached): ${top.map((t) => `${t.fn} ${(t.share * 100).toFixed(1)}%`).join(', ')}.`);
}

export async function benchCall(ctx: BenchContext, servers: { dev: Server; direct: DirectWorker }, wires: Map<string, Wire>): Promise<void> {
  const { plan, results } = ctx;
  results.raw.call = {};
  const direct = await latencyRows(ctx, 'workerd direct', servers.direct, wires, true);
  await latencyRows(ctx, 'wrangler dev', servers.dev, wires, false);
  await cpuRows(ctx, servers.direct, wires.get('2025 era')!.call);
  // Metering's cost is measured where it is on: wrangler dev, with its local D1 (workerd direct has no D1).
  const pinned = wires.get('2026-07-28');
  if (pinned) await benchMetering(ctx, servers.dev, pinned.call);
  const worst = Math.max(...Object.values(direct));
  results.target({
    section: 'call',
    measure: 'tools/call p50 vs floor (workerd direct)',
    result: Object.entries(direct).map(([era, r]) => `${era} ${fmtRatio(r)}`).join(' · '),
    target: '≤ 1.15×',
    verdict: verdict(worst, 1.15),
  });
  results.note('call', `${plan.n.callIters} rounds after ${plan.n.callWarm} warm-up rounds, per server; each round sends one request to every target in rotating order, one at a time (concurrency 1) over a keep-alive node:http socket; a sample is request start to last body byte. The MCP requests are the exact bytes the v2 client (\`@modelcontextprotocol/client\`) sent in this run, captured with a recording fetch (2025 era: \`versionNegotiation: legacy\`, stateless, no session; 2026-07-28: pinned). The floor is \`/__bench/passthrough/users/octocat\` in the same worker (scripts/bench/worker.ts): one fetch to the same upstream, body streamed back, no MCP. CPU per request: utime+stime of the workerd process from /proc/<pid>/stat around an autocannon run of ${plan.n.cpuSeconds} s at c=${CONNECTIONS} on the same bytes, divided by the requests served; the bench and the upstream run in other processes.`);
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
