// Throughput vs the peer: the same tools/call under autocannon load against our worker and against the server
// openapi-mcp-generator generates from the same spec, on the same upstream.
import { join } from 'node:path';
import { repoRoot } from '../../lib/proc.ts';
import type { BenchContext } from '../context.ts';
import type { HttpClient, Req } from '../http.ts';
import { GITHUB_SPEC } from '../../lib/prism.ts';
import { CONNECTIONS, TOOL } from '../plan.ts';
import { PEER_GENERATOR, PEER_SDK, startPeer, type Peer, type Server } from '../servers.ts';
import { fmtInt, fmtMs, fmtRatio, median, ratio } from '../stats.ts';
import { expectOk, type Wire } from '../wire.ts';

interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
}

async function load(url: string, req: Req, seconds: number): Promise<Load> {
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

export async function benchThroughput(ctx: BenchContext, worker: Server, upstream: Server, wire2025: Wire): Promise<void> {
  const { plan, results, http } = ctx;
  const n = plan.n;
  ctx.log('throughput: setting up the peer (openapi-mcp-generator)');
  const peer = await startPeer(join(repoRoot, GITHUB_SPEC), upstream.url, ctx.log);
  try {
    const peerCall = await peerSession(http, peer);
    const ours = wire2025.call;
    const a = await http.send(worker.url, ours);
    expectOk('tools/call', a.status, a.body, '"structuredContent"');
    // Warm both (JIT, first-call compilation), then measure one after the other, alternating order per round.
    await load(worker.url, ours, n.tpWarm);
    await load(peer.url, peerCall, n.tpWarm);
    const oursRuns: Load[] = [];
    const peerRuns: Load[] = [];
    const floorRuns: Load[] = [];
    const floor: Req = { method: 'GET', path: `/__bench/passthrough${TOOL.upstreamPath}`, headers: { accept: 'application/json' } };
    for (let round = 0; round < n.tpRounds; round++) {
      const order = round % 2 === 0 ? (['ours', 'peer'] as const) : (['peer', 'ours'] as const);
      for (const who of order) {
        ctx.log(`throughput round ${round + 1}/${n.tpRounds}: ${who}, ${n.tpDuration} s at ${CONNECTIONS} connections`);
        if (who === 'ours') oursRuns.push(await load(worker.url, ours, n.tpDuration));
        else peerRuns.push(await load(peer.url, peerCall, n.tpDuration));
      }
      // Context only: the same harness with no MCP at all (the passthrough floor of the call section).
      if (n.tpFloor) {
        ctx.log(`throughput round ${round + 1}/${n.tpRounds}: floor (passthrough), ${n.tpDuration} s`);
        floorRuns.push(await load(worker.url, floor, n.tpDuration));
      }
    }
    const med = (runs: Load[], k: keyof Load) => median(runs.map((r) => r[k]));
    const o = { rps: med(oursRuns, 'rps'), p99: med(oursRuns, 'p99'), p50: med(oursRuns, 'p50') };
    const p = { rps: med(peerRuns, 'rps'), p99: med(peerRuns, 'p99'), p50: med(peerRuns, 'p50') };
    const bad = [...oursRuns, ...peerRuns].reduce((sum, r) => sum + r.non2xx + r.errors, 0);
    results.raw.throughput = { connections: CONNECTIONS, seconds: n.tpDuration, rounds: n.tpRounds, ours: oursRuns, peer: peerRuns, floor: floorRuns, peerVersions: peer.versions, peerSetupMs: peer.setupMs };
    const rr = (runs: Load[]) => (runs.length > 1 ? ` (rounds: ${runs.map((r) => Math.round(r.rps)).join(', ')})` : '');
    const reproduce = plan.reproduce('throughput');
    results.row({ section: 'throughput', measure: `ours: tools/call ${TOOL.ours} (2025 era), c=${CONNECTIONS}`, result: `${fmtInt(o.rps)} req/s · p99 ${fmtMs(o.p99)}${rr(oursRuns)}`, reproduce });
    results.row({ section: 'throughput', measure: `peer: openapi-mcp-generator 4.0.1, tools/call ${TOOL.peer}, c=${CONNECTIONS}`, result: `${fmtInt(p.rps)} req/s · p99 ${fmtMs(p.p99)}${rr(peerRuns)}`, reproduce });
    if (floorRuns.length) {
      const f = { rps: med(floorRuns, 'rps'), p99: med(floorRuns, 'p99') };
      results.row({ section: 'throughput', measure: `context: floor passthrough in the same wrangler dev, c=${CONNECTIONS}`, result: `${fmtInt(f.rps)} req/s · p99 ${fmtMs(f.p99)}${rr(floorRuns)}`, reproduce });
    }
    results.row({
      section: 'throughput',
      measure: 'ours / peer',
      result: `req/s ${fmtRatio(ratio(o.rps, p.rps))} · p99 ${fmtRatio(ratio(o.p99, p.p99))}${bad ? ` · ${bad} non-2xx/errors` : ''}`,
      reproduce,
    });
    results.note('throughput', `autocannon 9.0.0 (programmatic, in the bench process), ${CONNECTIONS} connections, ${n.tpDuration} s per run after a ${n.tpWarm} s warm-up of each; ${n.tpRounds} round(s), order alternating per round, medians reported. Same tool (GitHub GET /users/{username}, username=octocat), same loopback upstream; each request carries a fresh JSON-RPC id (set per request by autocannon's setupRequest). Ours: the exact 2025-era tools/call bytes the v2 client sent (stateless, JSON response). Peer: the server \`${PEER_GENERATOR}\` generates from the same GitHub spec (\`-t streamable-http\`), transpiled with esbuild, run on the same Node ${process.versions.node} with its generated dependencies, except \`@modelcontextprotocol/sdk\` pinned to ${PEER_SDK} (the generated \`^1.10.0\` resolves to a release whose Node transport crashes the generated server with \"ReadableStream is locked\" on the first request after initialize; 1.24.3 is the newest that works, see scripts/bench/servers.ts); one initialize'd session, then tools/call with its mcp-session-id (it answers as SSE). Its per-request log goes to a file. Generated code lives in a temp dir and is never committed; installs are cached in node_modules/.cache/mcp-bench-peer.`);
  } finally {
    await peer.stop();
  }
}
