// Throughput vs the peer: the same tools/call under autocannon load against our worker (workerd run directly, and
// behind wrangler dev as a second row) and against the server openapi-mcp-generator generates from the same spec, on
// the same upstream; CPU per request of each process from /proc.
import { join } from 'node:path';
import { repoRoot } from '../../lib/proc.ts';
import type { BenchContext } from '../context.ts';
import type { HttpClient, Req } from '../http.ts';
import { GITHUB_SPEC } from '../../lib/prism.ts';
import { loadRun, type Load } from '../load.ts';
import { CONNECTIONS, TOOL } from '../plan.ts';
import { PEER_GENERATOR, PEER_SDK, startPeer, type Peer, type Server } from '../servers.ts';
import { fmtInt, fmtMs, fmtRatio, median, ratio, verdictAtLeast } from '../stats.ts';
import { expectOk, type Wire } from '../wire.ts';
import { processCpuMs, type DirectWorker } from '../workerd.ts';

/** The target (issue 27): requests per second at c=10 at least this many times the Node peer's. */
const PEER_RATIO = 3;

async function peerSession(http: HttpClient, peer: Peer): Promise<Req> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await http.send(peer.url, { method: 'POST', path: '/mcp', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }) });
  const session = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof session !== 'string') throw new Error(`peer initialize failed: HTTP ${init.status} ${init.body.toString('utf8').slice(0, 300)}`);
  const version = /"protocolVersion":"([^"]+)"/.exec(init.body.toString('utf8'))?.[1] ?? '2025-06-18';
  const h = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': version };
  await http.send(peer.url, { method: 'POST', path: '/mcp', headers: h, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  const call: Req = { method: 'POST', path: '/mcp', headers: h, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: TOOL.peer, arguments: TOOL.args } }) };
  const r = await http.send(peer.url, call);
  expectOk('peer tools/call', r.status, r.body, 'octocat');
  if (r.body.includes('"isError":true')) throw new Error(`peer tools/call returned an error: ${r.body.toString('utf8').slice(0, 300)}`);
  return call;
}

export async function benchThroughput(ctx: BenchContext, servers: { dev: Server; direct: DirectWorker }, upstream: Server, wire2025: Wire): Promise<void> {
  const { plan, results, http } = ctx;
  const n = plan.n;
  ctx.log('throughput: setting up the peer (openapi-mcp-generator)');
  const peer = await startPeer(join(repoRoot, GITHUB_SPEC), upstream.url, ctx.log);
  try {
    const peerCall = await peerSession(http, peer);
    const ours = wire2025.call;
    for (const s of [servers.direct, servers.dev]) {
      const a = await http.send(s.url, ours);
      expectOk('tools/call', a.status, a.body, '"structuredContent"');
    }
    // Each run also reads the CPU its server process used (workerd direct and the peer are one process each).
    const measured = async (url: string, req: Req, pid?: number): Promise<Load & { cpuMs?: number }> => {
      const c0 = pid ? await processCpuMs(pid) : 0;
      const r = await loadRun(url, req, n.tpDuration);
      return pid ? { ...r, cpuMs: ((await processCpuMs(pid)) - c0) / Math.max(1, r.total) } : r;
    };
    const peerPid = peer.child.proc.pid;
    // Warm all three (JIT, first-call compilation), then measure one after the other, alternating order per round.
    await loadRun(servers.direct.url, ours, n.tpWarm);
    await loadRun(servers.dev.url, ours, n.tpWarm);
    await loadRun(peer.url, peerCall, n.tpWarm);
    const runs: Record<'direct' | 'dev' | 'peer' | 'floor' | 'minimal', Array<Load & { cpuMs?: number }>> = { direct: [], dev: [], peer: [], floor: [], minimal: [] };
    // The bench-only minimal MCP handler (scripts/bench/worker.ts) on the same bytes: what any Worker MCP server reaches.
    const minimal: Req = { ...ours, path: `/__bench/minimal-mcp${ours.path}` };
    const floor: Req = { method: 'GET', path: `/__bench/passthrough${TOOL.upstreamPath}`, headers: { accept: 'application/json' } };
    for (let round = 0; round < n.tpRounds; round++) {
      const order = round % 2 === 0 ? (['direct', 'peer', 'dev'] as const) : (['peer', 'direct', 'dev'] as const);
      for (const who of order) {
        ctx.log(`throughput round ${round + 1}/${n.tpRounds}: ${who}, ${n.tpDuration} s at ${CONNECTIONS} connections`);
        if (who === 'direct') runs.direct.push(await measured(servers.direct.url, ours, servers.direct.pid));
        else if (who === 'dev') runs.dev.push(await measured(servers.dev.url, ours));
        else runs.peer.push(await measured(peer.url, peerCall, peerPid));
      }
      // Context only: the same harness with no MCP at all (the passthrough floor of the call section), workerd direct.
      if (n.tpFloor) {
        ctx.log(`throughput round ${round + 1}/${n.tpRounds}: floor (passthrough, workerd direct), ${n.tpDuration} s`);
        runs.floor.push(await measured(servers.direct.url, floor, servers.direct.pid));
        ctx.log(`throughput round ${round + 1}/${n.tpRounds}: minimal MCP handler (workerd direct), ${n.tpDuration} s`);
        runs.minimal.push(await measured(servers.direct.url, minimal, servers.direct.pid));
      }
    }
    const med = (rs: Array<Load & { cpuMs?: number }>, k: 'rps' | 'p50' | 'p99' | 'cpuMs') => median(rs.map((r) => r[k] ?? NaN));
    const bad = [...runs.direct, ...runs.dev, ...runs.peer].reduce((sum, r) => sum + r.non2xx + r.errors, 0);
    results.raw.throughput = { connections: CONNECTIONS, seconds: n.tpDuration, rounds: n.tpRounds, ...runs, peerVersions: peer.versions, peerSetupMs: peer.setupMs };
    const rr = (rs: Load[]) => (rs.length > 1 ? ` (rounds: ${rs.map((r) => Math.round(r.rps)).join(', ')})` : '');
    const cpu = (rs: Array<Load & { cpuMs?: number }>) => (rs.some((r) => r.cpuMs !== undefined) ? ` · CPU ${fmtMs(med(rs, 'cpuMs'))} per request` : '');
    const reproduce = plan.reproduce('throughput');
    const row = (measure: string, rs: Array<Load & { cpuMs?: number }>) => results.row({ section: 'throughput', measure, result: `${fmtInt(med(rs, 'rps'))} req/s · p99 ${fmtMs(med(rs, 'p99'))}${cpu(rs)}${rr(rs)}`, reproduce });
    row(`ours, workerd direct: tools/call ${TOOL.ours} (2025 era), c=${CONNECTIONS}`, runs.direct);
    row(`ours, wrangler dev: the same, c=${CONNECTIONS}`, runs.dev);
    row(`peer: openapi-mcp-generator 4.0.1 on Node, tools/call ${TOOL.peer}, c=${CONNECTIONS}`, runs.peer);
    if (runs.floor.length) row(`context: floor passthrough, workerd direct, c=${CONNECTIONS}`, runs.floor);
    if (runs.minimal.length) row(`context: minimal MCP handler (bench-only lower bound), workerd direct, c=${CONNECTIONS}`, runs.minimal);
    const direct = ratio(med(runs.direct, 'rps'), med(runs.peer, 'rps'));
    const dev = ratio(med(runs.dev, 'rps'), med(runs.peer, 'rps'));
    results.row({
      section: 'throughput',
      measure: 'ours / peer',
      result: `workerd direct: req/s ${fmtRatio(direct)}, CPU per request ${fmtRatio(ratio(med(runs.direct, 'cpuMs'), med(runs.peer, 'cpuMs')))} · wrangler dev: req/s ${fmtRatio(dev)}${bad ? ` · ${bad} non-2xx/errors` : ''}`,
      target: `req/s ≥ ${PEER_RATIO}× (workerd direct)`,
      verdict: verdictAtLeast(direct, PEER_RATIO, `${PEER_RATIO}×`),
      reproduce,
    });
    if (runs.minimal.length) {
      results.row({ section: 'throughput', measure: 'minimal MCP handler / peer (the ceiling for any Worker MCP server here)', result: `req/s ${fmtRatio(ratio(med(runs.minimal, 'rps'), med(runs.peer, 'rps')))}, CPU per request ${fmtRatio(ratio(med(runs.minimal, 'cpuMs'), med(runs.peer, 'cpuMs')))} · ours / minimal: req/s ${fmtRatio(ratio(med(runs.direct, 'rps'), med(runs.minimal, 'rps')))}`, reproduce });
    }
    results.target({ section: 'throughput', measure: 'throughput at c=10 vs the Node peer (workerd direct)', result: `${fmtRatio(direct)} req/s (wrangler dev: ${fmtRatio(dev)})`, target: `≥ ${PEER_RATIO}×`, verdict: verdictAtLeast(direct, PEER_RATIO, `${PEER_RATIO}×`) });
    results.note('throughput', `autocannon 9.0.0 (programmatic, in the bench process), ${CONNECTIONS} connections, ${n.tpDuration} s per run after a ${n.tpWarm} s warm-up of each; ${n.tpRounds} round(s), order alternating per round, medians reported. Ours is measured twice, served by workerd directly (the primary row: no proxy in front, as in production where the Worker runs without wrangler) and through \`wrangler dev\` (whose local proxy costs more than the Worker at this scale). CPU per request: the server process's utime+stime from /proc/<pid>/stat around the run ÷ requests served (workerd direct and the peer are one process each; wrangler dev is several). Same tool (GitHub GET /users/{username}, username=octocat), same loopback upstream; each request carries a fresh JSON-RPC id (set per request by autocannon's setupRequest). Full runs add two context runs per round on workerd direct: the passthrough floor and the bench-only minimal MCP handler (\`/__bench/minimal-mcp/\`, the call section's lower bound) on the same bytes. Ours: the exact 2025-era tools/call bytes the v2 client sent (stateless). Peer: the server \`${PEER_GENERATOR}\` generates from the same GitHub spec (\`-t streamable-http\`), transpiled with esbuild, run on the same Node ${process.versions.node} with its generated dependencies, except \`@modelcontextprotocol/sdk\` pinned to ${PEER_SDK} (the generated \`^1.10.0\` resolves to a release whose Node transport crashes the generated server with "ReadableStream is locked" on the first request after initialize; 1.24.3 is the newest that works, see scripts/bench/servers.ts); one initialize'd session, then tools/call with its mcp-session-id (it answers as SSE). Its per-request log goes to a file. Generated code lives in a temp dir and is never committed; installs are cached in node_modules/.cache/mcp-bench-peer.`);
  } finally {
    await peer.stop();
  }
}
