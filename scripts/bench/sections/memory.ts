// Memory under hostile input: 3,000 distinct `?tools=` slices (60 random tools each, one valid key) against one
// isolate, for GitHub and for Microsoft Graph: the isolate's live heap after a full GC, read over workerd's
// inspector as section 3 reads the startup heap, and the workerd process's RSS growth. The server must answer
// every request, and a common slice's tools/list after the flood. (docs/architecture.md, "Per-isolate caches".)
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../lib/proc.ts';
import { WORKERS_HEAP_V8_FLAGS } from '../../lib/wrangler.ts';
import { loadCatalogue } from '../../../src/catalogue/loaded-catalogue.ts';
import { Cdp } from '../cdp.ts';
import type { BenchContext } from '../context.ts';
import { runCapture } from '../exec.ts';
import { GRAPH_SPEC, KEY } from '../plan.ts';
import { bundleBenchWorker, NODE, type Server } from '../servers.ts';
import { flood, LEGACY_HEADERS, rssBytes, sliceLists } from '../slice-flood.ts';
import { fmtBytes, fmtInt, verdict } from '../stats.ts';
import { startWorkerdDirect } from '../workerd.ts';
import { benchWranglerGrowth } from './memory-wrangler.ts';

/** The issue's bounds: heap after the flood, and RSS growth over it. */
const HEAP_BOUND_MB = 48;
const RSS_GROWTH_BOUND_MB = 64;
const PER_SLICE = 60;
const CONCURRENCY = 4;

interface Flooded {
  /** Used heap after the warm-up, without a GC. */
  heapBefore: number;
  /** Undefined when the worker died during the flood. */
  heapAfter?: number;
  /** Set when the heap after the flood was too big to snapshot in time: the live heap before any GC, instead. */
  heapAfterUncollected?: boolean;
  rssBefore: number;
  /** RSS after each chunk of slices. */
  rss: Array<{ slices: number; bytes: number }>;
  sent: number;
  failed: number;
  failures: string[];
  seconds: number;
  /** The warm-up and closing request's path, and how many tools it listed after the flood. */
  listed?: { path: string; tools: number };
  /** Slices sent when workerd was found gone. */
  diedAfter?: number;
}

/** Slices per chunk: RSS is read between chunks, so a worker that dies is seen dying. */
const CHUNK = 500;

async function floodOne(ctx: BenchContext, label: string, catalogueDir: string, upstream: Server, slices: number): Promise<Flooded> {
  const loaded = loadCatalogue(readFileSync(join(catalogueDir, 'catalog.txt'), 'utf8'));
  const names = loaded.names();
  // Bare /mcp when it serves default toolsets; else (Graph: bare /mcp would list 11,422 tools) one toolset.
  const path = loaded.catalogue.defaultToolsets ? '/mcp' : `/mcp/x/${loaded.toolsetsOf(0)[0]}`;
  const bundle = await bundleBenchWorker(catalogueDir);
  // The heap settings npm start gives workerd (a Workers-sized isolate), so RSS is what npm start would show.
  const worker = await startWorkerdDirect(bundle.outdir, { UPSTREAM_URL: upstream.url, API_KEY: KEY, CREDENTIAL_MODE: 'key' }, { inspector: true, v8Flags: WORKERS_HEAP_V8_FLAGS });
  const auth = { authorization: `Bearer ${KEY}` };
  const list = () => fetch(worker.url + path, { method: 'POST', headers: { ...LEGACY_HEADERS, ...auth }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
  const rssNow = () => (worker.child.proc.exitCode === null && worker.child.proc.signalCode === null ? rssBytes(worker.pid) : undefined);
  try {
    const cdp = await Cdp.connect(worker.inspector!);
    try {
      // Warm: the app, the SDK and a common slice are loaded before the baseline. No heap snapshot before the flood:
      // taking one costs workerd tens of MB of RSS, which would then count as (or hide) growth.
      await (await list()).text();
      const rssBefore = rssBytes(worker.pid);
      const heapBefore = (await cdp.send<{ usedSize: number }>('Runtime.getHeapUsage')).usedSize;
      const f: Flooded = { heapBefore, rssBefore, rss: [], sent: 0, failed: 0, failures: [], seconds: 0 };
      ctx.log(`memory: ${label}: ${slices} distinct slices of ${PER_SLICE} tools (of ${names.length}), ${CONCURRENCY} at a time`);
      for (let done = 0; done < slices; done += CHUNK) {
        const out = await flood(worker.url, sliceLists(names, Math.min(CHUNK, slices - done), PER_SLICE, 30 + done, auth), CONCURRENCY);
        f.sent += out.sent;
        f.failed += out.failed;
        f.failures.push(...out.failures.slice(0, 5 - f.failures.length));
        f.seconds += out.ms / 1000;
        const bytes = rssNow();
        if (bytes === undefined) {
          f.diedAfter = f.sent;
          return f;
        }
        f.rss.push({ slices: f.sent, bytes });
        ctx.log(`memory: ${label}: ${f.sent} slices, ${f.failed} failed, RSS ${fmtBytes(bytes)}`);
      }
      const { heap, uncollected } = await heapOrUsage(cdp);
      f.heapAfter = heap;
      if (uncollected) f.heapAfterUncollected = true;
      const res = await list();
      const body = await res.text();
      f.listed = { path, tools: res.ok ? (body.match(/"inputSchema"/g) ?? []).length : -1 };
      return f;
    } finally {
      cdp.close();
    }
  } finally {
    await worker.stop();
  }
}

/** One verdict for the heap and the RSS bounds, starting with MISSED when either is (the report's missed-targets line reads that). */
function both(heap: string, rss: string): string {
  const missed = [['heap', heap], ['RSS', rss]].filter(([, v]) => v!.startsWith('MISSED')).map(([what, v]) => `${what} ${v!.replace(/^MISSED \((.*)\)$/, '$1')}`);
  return `${missed.length ? `MISSED (${missed.join(', ')}); ` : ''}heap ${heap}; RSS ${rss}`;
}

/** The heap after a full GC; a heap of gigabytes cannot be snapshot in time, so then the used heap as it is. */
async function heapOrUsage(cdp: Cdp): Promise<{ heap: number; uncollected: boolean }> {
  const used = (await cdp.send<{ usedSize: number }>('Runtime.getHeapUsage')).usedSize;
  if (used > 1e9) return { heap: used, uncollected: true };
  return { heap: await cdp.heapAfterGc(), uncollected: false };
}

export async function benchMemory(ctx: BenchContext, upstream: Server): Promise<void> {
  const { plan, results } = ctx;
  const raw: Record<string, unknown> = {};
  results.raw.memory = raw;
  const slices = plan.n.memorySlices;
  const cases: Array<{ label: string; dir: () => Promise<string> }> = [{ label: 'GitHub', dir: async () => join(repoRoot, 'catalog') }];
  if (plan.n.memoryGraph) {
    cases.push({
      label: 'Microsoft Graph',
      dir: async () => {
        const out = await mkdtemp(join(tmpdir(), 'mcp-bench-memory-graph-'));
        ctx.log('memory: building the Graph catalogue');
        const r = await runCapture(NODE, ['scripts/catalog/cli.ts', '--spec', GRAPH_SPEC, '--out', out, '--quiet']);
        if (r.code !== 0) throw new Error(`Graph catalogue build failed (exit ${r.code}):\n${r.out.slice(-1500)}`);
        return out;
      },
    });
  }
  for (const c of cases) {
    const f = await floodOne(ctx, c.label, await c.dir(), upstream, slices);
    raw[c.label] = f;
    const last = f.rss.at(-1)?.bytes;
    const growth = last === undefined ? NaN : last - f.rssBefore;
    const answered = f.diedAfter === undefined && f.failed === 0 && (f.listed?.tools ?? 0) > 0;
    const rss = last === undefined ? 'no RSS read' : `workerd RSS ${growth >= 0 ? '+' : '−'}${fmtBytes(Math.abs(growth))} (${fmtBytes(f.rssBefore)} → ${fmtBytes(last)})`;
    const heap = f.heapAfter === undefined ? 'no heap after' : `${fmtBytes(f.heapAfter)} after${f.heapAfterUncollected ? ' (used heap without a GC: too big to snapshot)' : ''}`;
    const outcome = f.diedAfter !== undefined ? `workerd DIED after ${fmtInt(f.diedAfter)} slices` : `${fmtInt(f.sent - f.failed)}/${fmtInt(f.sent)} answered in ${f.seconds.toFixed(0)} s; then ${f.listed!.path} lists ${f.listed!.tools} tools`;
    results.row({
      section: 'memory',
      measure: `isolate heap after ${fmtInt(slices)} distinct ?tools= slices (${PER_SLICE} random tools each), ${c.label}`,
      result: `${heap} (${fmtBytes(f.heapBefore)} in use before, no GC) · ${rss} · ${outcome}${f.failures[0] ? ` (first failure: ${f.failures[0].slice(0, 120)})` : ''}`,
      target: `heap ≤ ${HEAP_BOUND_MB} MB, RSS growth ≤ ${RSS_GROWTH_BOUND_MB} MB, every request answered`,
      verdict: answered ? both(verdict(f.heapAfter! / 1e6, HEAP_BOUND_MB, `${HEAP_BOUND_MB} MB`), verdict(growth / 1e6, RSS_GROWTH_BOUND_MB, `+${RSS_GROWTH_BOUND_MB} MB`)) : 'MISSED (requests failed)',
      reproduce: plan.reproduce('memory'),
    });
  }
  // The same flood against npm start's own stack, beside an empty worker under it.
  const github = loadCatalogue(readFileSync(join(repoRoot, 'catalog', 'catalog.txt'), 'utf8'));
  await benchWranglerGrowth(ctx, upstream, github.names(), slices);
  results.note(
    'memory',
    `One fresh workerd run directly on the bench bundle (the production entry) with its inspector, per catalogue, with the V8 heap settings \`npm start\` gives it (\`${WORKERS_HEAP_V8_FLAGS.join(' ')}\`: a Workers-sized isolate, scripts/lib/wrangler.ts). After one warm tools/list of a common slice (bare /mcp for GitHub; for Graph, which has no default toolsets, the first toolset), /proc gives workerd's RSS and Runtime.getHeapUsage the heap in use; then ${fmtInt(slices)} tools/list requests (2025-06-18, the tools/list fast path's form), ${CONCURRENCY} at a time, each on a different \`/mcp?tools=\` slice of ${PER_SLICE} tools drawn at random (seeded) from the whole catalogue; RSS is read after every 500; then a heap snapshot (which collects garbage first) and Runtime.getHeapUsage give the live heap, and the common slice's tools/list is asked once more. No snapshot is taken before the flood: one costs workerd tens of MB of RSS. The bounds are the issue's: a Workers isolate has 128 MB, so one caller must not be able to grow it without bound. ${plan.n.memoryGraph ? '' : 'In --quick runs only GitHub is flooded (Graph\'s build takes tens of seconds).'}`,
  );
}
