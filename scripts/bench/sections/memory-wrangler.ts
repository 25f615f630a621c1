// RSS under `wrangler dev`, the stack `npm start` runs: wrangler's own workerd in front (its entry proxy) and the
// worker's workerd behind it, both started with npm start's heap settings. Flooded three ways, so the growth that
// belongs to the stack is told apart from the worker's: distinct ?tools= slices (the memory section's flood), one
// small tools/list repeated, and the same repeated request to an empty worker under the same wrangler dev.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binDir, childEnv, freePort, spawnChild, waitForHttp, waitForLine, type Child } from '../../lib/proc.ts';
import { startWranglerDev, WORKERS_HEAP_V8_FLAGS } from '../../lib/wrangler.ts';
import type { BenchContext } from '../context.ts';
import { KEY } from '../plan.ts';
import { writeEmptyWorker, type Server } from '../servers.ts';
import { descendantsNamed, flood, LEGACY_HEADERS, rssBytes, sliceLists, type FloodRequest } from '../slice-flood.ts';
import { fmtBytes, fmtInt, verdict } from '../stats.ts';

const RSS_GROWTH_BOUND_MB = 64;
const CONCURRENCY = 4;
const HEAP_ENV = { MINIFLARE_WORKERD_V8_FLAGS: WORKERS_HEAP_V8_FLAGS.join(' ') };

/** The stack's workerd processes, the entry proxy first (it holds the public port). */
function processes(root: number, port: number): Array<{ role: string; pid: number }> {
  const role = (pid: number) => (cmdline(pid).includes(`entry=127.0.0.1:${port}`) ? "wrangler's entry proxy" : 'the worker');
  return descendantsNamed(root, 'workerd')
    .map((pid) => ({ pid, role: role(pid) }))
    .sort((a, b) => Number(b.role !== 'the worker') - Number(a.role !== 'the worker'));
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

interface Growth {
  label: string;
  perProcess: Array<{ role: string; before: number; after: number }>;
  sent: number;
  failed: number;
}

async function measure(label: string, root: number, port: number, base: string, requests: FloodRequest[]): Promise<Growth> {
  const procs = processes(root, port);
  const before = procs.map((p) => rssBytes(p.pid));
  const out = await flood(base, requests, CONCURRENCY);
  return { label, perProcess: procs.map((p, i) => ({ role: p.role, before: before[i]!, after: rssBytes(p.pid) })), sent: out.sent, failed: out.failed };
}

const total = (g: Growth) => g.perProcess.reduce((s, p) => s + p.after - p.before, 0);
const describe = (g: Growth) => `+${fmtBytes(total(g))} (${g.perProcess.map((p) => `${p.role} ${fmtBytes(p.before)} → ${fmtBytes(p.after)}`).join(', ')}) · ${fmtInt(g.sent - g.failed)}/${fmtInt(g.sent)} answered`;

/** An empty worker under the same wrangler dev and heap settings. */
async function startEmptyWorker(): Promise<{ child: Child; url: string; port: number; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-bench-empty-'));
  await writeEmptyWorker(dir);
  const port = await freePort();
  const args = ['dev', '--config', join(dir, 'wrangler.json'), '--local', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(await freePort()), '--persist-to', join(dir, 'state'), '--show-interactive-dev-session=false'];
  const child = spawnChild('wrangler dev (empty worker)', join(binDir, 'wrangler'), args, { cwd: dir, env: childEnv(HEAP_ENV) });
  const url = `http://127.0.0.1:${port}`;
  await waitForLine(child, /Ready on http/, 120_000);
  await waitForHttp(url, child, 120_000);
  return { child, url, port, dir };
}

export async function benchWranglerGrowth(ctx: BenchContext, upstream: Server, names: readonly string[], count: number): Promise<void> {
  const { plan, results } = ctx;
  const auth = { authorization: `Bearer ${KEY}` };
  const [one] = [...sliceLists(names, 1, 1, 5, auth)];
  const repeated = (r: FloodRequest) => Array.from({ length: count }, () => r);
  ctx.log(`memory: wrangler dev (npm start's stack): ${fmtInt(count)} distinct slices, ${fmtInt(count)} repeats of one small tools/list, and an empty worker`);
  const ours = await startWranglerDev({ vars: { UPSTREAM_URL: upstream.url, API_KEY: KEY, CREDENTIAL_MODE: 'key' }, workersHeap: true });
  const port = Number(new URL(ours.url).port);
  let distinct: Growth, same: Growth;
  try {
    await (await fetch(`${ours.url}/mcp`, { method: 'POST', headers: { ...LEGACY_HEADERS, ...auth }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' })).text();
    const pid = ours.child.proc.pid!;
    distinct = await measure('distinct slices', pid, port, ours.url, [...sliceLists(names, count, 60, 30, auth)]);
    same = await measure('one request repeated', pid, port, ours.url, repeated(one!));
  } finally {
    await ours.stop();
  }
  const empty = await startEmptyWorker();
  let bare: Growth;
  try {
    bare = await measure('empty worker', empty.child.proc.pid!, empty.port, empty.url, repeated({ method: 'GET', path: '/', headers: {} }));
  } finally {
    await empty.child.stop();
    await rm(empty.dir, { recursive: true, force: true });
  }
  (results.raw.memory as Record<string, unknown>).wranglerDev = { distinct, same, empty: bare };
  results.row({
    section: 'memory',
    measure: `wrangler dev (npm start's stack), GitHub: workerd RSS over ${fmtInt(count)} distinct ?tools= slices (60 tools each)`,
    result: describe(distinct),
    target: `RSS growth ≤ ${RSS_GROWTH_BOUND_MB} MB`,
    verdict: verdict(total(distinct) / 1e6, RSS_GROWTH_BOUND_MB, `+${RSS_GROWTH_BOUND_MB} MB`),
    reproduce: plan.reproduce('memory'),
  });
  results.row({
    section: 'memory',
    measure: `wrangler dev, the same stack: ${fmtInt(count)} repeats of one 1-tool tools/list · an empty worker, ${fmtInt(count)} GETs`,
    result: `ours ${describe(same)} · empty worker ${describe(bare)}`,
    reproduce: plan.reproduce('memory'),
  });
  results.note(
    'memory',
    `Under \`wrangler dev\` (scripts/lib/wrangler.ts, as \`npm start\` runs it, heap flags included), the flood goes to wrangler's entry proxy, a workerd of its own in front of the worker's workerd; /proc gives both processes' RSS before and after each flood (${CONCURRENCY} at a time). The same stack is then flooded with one small request repeated, and an empty worker (\`fetch() { return new Response('ok') }\`) under the same wrangler dev with plain GETs: what those grow by is the stack's own, whatever the worker holds.`,
  );
}
