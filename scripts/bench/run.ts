// npm run bench [-- --quick] [--json <file>] [--only call,list,startup,client,throughput,build,large,results,modes,codemode,graph,memory] [--out <md>] [--baseline <git ref>]
//
// Speed, size and cost side by side against the floor and a peer. Prints one table and writes
// docs/benchmarks.md. Every figure that matters is a ratio measured in the same run, or a median of
// repeats with min/max: the machine is shared and noisy. Exit code 0 unless a section crashed;
// figures that miss their targets never fail the run.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../lib/proc.ts';
import type { BenchContext } from './context.ts';
import { HttpClient } from './http.ts';
import { mergeMarkdown } from './merge.ts';
import { KEY, makePlan, SECTIONS, sectionNumber, SLICE, type Plan, type Section } from './plan.ts';
import { machine, markdown, targetsTable, textTable } from './report.ts';
import { BenchResults } from './results.ts';
import { benchBuild } from './sections/build.ts';
import { benchCall } from './sections/call.ts';
import { benchClient } from './sections/client.ts';
import { benchCodeMode, type Baseline } from './sections/codemode.ts';
import { baselineTree, type BaselineTree } from './baseline.ts';
import { benchGraph } from './sections/graph.ts';
import { benchLarge } from './sections/large.ts';
import { benchList } from './sections/list.ts';
import { benchMemory } from './sections/memory.ts';
import { benchModes } from './sections/modes.ts';
import { benchResults } from './sections/results.ts';
import { benchStartup } from './sections/startup.ts';
import { benchThroughput } from './sections/throughput.ts';
import { bundleBenchWorker, startBenchWorker, startUpstreamProcess, type Server } from './servers.ts';
import { captureWire, eraName, type Wire } from './wire.ts';
import { startWorkerdDirect, type DirectWorker } from './workerd.ts';

const SERVER_SECTIONS: Section[] = ['call', 'list', 'client', 'throughput', 'large', 'modes', 'codemode'];

/** Runs one section; a crash is recorded as that section's error and the run goes on. */
async function guard(ctx: BenchContext, s: Section, fn: () => Promise<void>): Promise<void> {
  if (!ctx.plan.want(s)) return;
  const ts = performance.now();
  try {
    await fn();
    ctx.log(`${s} done in ${((performance.now() - ts) / 1000).toFixed(1)} s`);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    ctx.log(`${s} FAILED: ${msg}`);
    ctx.results.error(s, msg);
  }
}

/**
 * Every section but the builds: one bench upstream, the bench worker bundled once and served both by `wrangler dev`
 * and by workerd run directly (with an inspector port, for the call profile), shared by the sections that need them.
 */
async function runWorkerSections(ctx: BenchContext): Promise<void> {
  let upstream: Server | undefined;
  let dev: Server | undefined;
  let baselineDev: Server | undefined;
  let baselineTree_: BaselineTree | undefined;
  let direct: DirectWorker | undefined;
  const wanted = [...SERVER_SECTIONS, 'startup', 'graph', 'memory'] as Section[];
  try {
    upstream = await startUpstreamProcess();
    const up = upstream;
    ctx.log(`upstream ${up.url}; bundling the bench worker`);
    const bundle = await bundleBenchWorker();
    const vars = { UPSTREAM_URL: up.url, API_KEY: KEY, CREDENTIAL_MODE: 'key' };
    if (SERVER_SECTIONS.some((s) => ctx.plan.want(s))) {
      dev = await startBenchWorker(bundle, vars);
      direct = await startWorkerdDirect(bundle.outdir, vars, { inspector: true });
      ctx.log(`wrangler dev ${dev.url} ready in ${dev.startMs} ms; workerd direct ${direct.url} ready in ${direct.startMs} ms`);
      const wires = new Map<string, Wire>();
      for (const mode of ['legacy', { pin: '2026-07-28' }] as const) wires.set(eraName(mode), await captureWire(dev.url, mode));
      const servers = { dev, direct };
      let baselineServer: Baseline | undefined;
      if (ctx.baseline && ctx.plan.want('codemode')) {
        const tree = (baselineTree_ = await baselineTree(ctx.baseline));
        ctx.log(`baseline ${tree.ref} (${tree.commit}): bundling its bench worker`);
        baselineDev = await startBenchWorker(await bundleBenchWorker(undefined, tree.root), vars);
        baselineServer = { server: baselineDev, label: tree.commit.startsWith(tree.ref) || tree.ref.startsWith(tree.commit) ? tree.commit : `${tree.ref} (${tree.commit})` };
      }
      const w = dev;
      const d = direct;
      await guard(ctx, 'call', () => benchCall(ctx, servers, wires));
      await guard(ctx, 'list', () => benchList(ctx, w, wires.get('2026-07-28')!, '2026-07-28'));
      await guard(ctx, 'client', () => benchClient(ctx, d));
      await guard(ctx, 'throughput', () => benchThroughput(ctx, servers, up, wires.get('2025 era')!));
      await guard(ctx, 'modes', () => benchModes(ctx, w));
      await guard(ctx, 'codemode', () => benchCodeMode(ctx, w, { pin: '2026-07-28' }, baselineServer));
      // Last: its 9 MB bodies churn the worker's heap, which must not colour the figures above.
      await guard(ctx, 'large', () => benchLarge(ctx, w, { pin: '2026-07-28' }));
      await direct.stop();
      await dev.stop();
      direct = dev = undefined;
    }
    await guard(ctx, 'startup', () => benchStartup(ctx, bundle, up.url));
    await guard(ctx, 'graph', () => benchGraph(ctx, up));
    await guard(ctx, 'memory', () => benchMemory(ctx, up));
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    ctx.log(`servers FAILED: ${msg}`);
    for (const s of wanted) if (ctx.plan.want(s) && !ctx.results.reported(s)) ctx.results.error(s, msg);
  } finally {
    ctx.http.close();
    await direct?.stop();
    await dev?.stop();
    await baselineDev?.stop();
    await baselineTree_?.cleanup();
    await upstream?.stop();
  }
}

function reducedBy(plan: Plan): string[] {
  if (!plan.quick) return [];
  const n = plan.n;
  return [`--quick: ${n.callIters} call rounds, ${n.listIters.all}/${n.listIters.slice} list rounds, v1 and v2 clients ${n.clientReps.slice}×${SLICE}, ${n.clientReps.bare}× bare /mcp and each output bound, ${n.clientReps.all}× full (default-toolsets case skipped), throughput ${n.tpDuration} s × 1 round without the floor context run, ${n.startupReps} startup repeats, ${n.heapReps} heap measurement, ${n.cpuSeconds} s CPU-per-request runs, ${n.buildReps} build per spec, ${n.largeIters} large-result rounds, ${n.codeIters} code-mode rounds, no Graph section (\`--only graph\` runs it), ${n.memorySlices} slices and GitHub only in the memory section`];
}

async function main(argv: string[]): Promise<number> {
  const { values: args } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      json: { type: 'string' },
      only: { type: 'string' },
      out: { type: 'string', default: 'docs/benchmarks.md' },
      baseline: { type: 'string' },
    },
    strict: true,
  });
  const plan = makePlan(Boolean(args.quick), args.only);
  const ctx: BenchContext = { plan, results: new BenchResults(), http: new HttpClient(), log: (line) => process.stderr.write(`[bench] ${line}\n`), ...(args.baseline ? { baseline: args.baseline } : {}) };
  const t0 = performance.now();
  const m = machine();
  ctx.log(`mode ${plan.mode}; sections ${[...plan.only].join(', ')}; ${m.cpu}; node ${m.node}`);

  await runWorkerSections(ctx);
  await guard(ctx, 'build', () => benchBuild(ctx));
  await guard(ctx, 'results', () => benchResults(ctx));

  const order = SECTIONS.map((s) => s.id as Section);
  ctx.results.rows.sort((a, b) => order.indexOf(a.section) - order.indexOf(b.section));
  const totalS = (performance.now() - t0) / 1000;
  process.stdout.write(`\nBenchmarks (${plan.mode}, ${m.date}, ${m.cpu}, node ${m.node}, ${totalS.toFixed(0)} s)\n\n${targetsTable(ctx.results)}\n\n${textTable(ctx.results)}\n\n`);
  const outFile = resolve(repoRoot, args.out!);
  let text = markdown(ctx.results, plan, m, reducedBy(plan), totalS);
  // --only on an existing report refreshes those sections and keeps the others (scripts/bench/merge.ts).
  if (args.only && existsSync(outFile)) {
    const rerun = [...plan.only].map(sectionNumber);
    const command = `${plan.reproduce([...plan.only].join(',') as Section)}${ctx.baseline ? ` --baseline ${ctx.baseline}` : ''}`;
    const stamp = `${rerun.length === 1 ? 'Section' : 'Sections'} ${rerun.join(',')} rerun on ${m.date} with \`${command}\` (commit ${m.commit}, load ${m.load}); every other figure is from the run above.`;
    text = mergeMarkdown(await readFile(outFile, 'utf8'), text, rerun, stamp);
  }
  await writeFile(outFile, text);
  process.stdout.write(`wrote ${relative(repoRoot, outFile)}\n`);
  if (args.json) {
    const { rows, errors, raw } = ctx.results;
    await writeFile(args.json, JSON.stringify({ mode: plan.mode, machine: m, rows, errors, raw, seconds: totalS }, null, 2) + '\n');
    process.stdout.write(`wrote ${args.json}\n`);
  }
  return ctx.results.errors.length ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`bench crashed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
