// Startup CPU and bundle size: the deploy bundle as `npm run build` makes it, and `wrangler check startup` on it
// against a one-line worker as the baseline.
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { binDir, repoRoot } from '../../lib/proc.ts';
import type { BenchContext } from '../context.ts';
import { runCapture } from '../exec.ts';
import { fmtBytes, fmtInt, fmtMs, fmtSpread, median, parseCheckStartup, spread, verdict } from '../stats.ts';

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

export async function benchStartup(ctx: BenchContext): Promise<void> {
  const { plan, results } = ctx;
  const reps = plan.n.startupReps;
  const dir = await mkdtemp(join(tmpdir(), 'mcp-bench-startup-'));
  // Deploy bundle, exactly as `npm run build` makes it.
  ctx.log('startup: building the deploy bundle (wrangler deploy --dry-run)');
  const outdir = join(dir, 'dist');
  const b = await runCapture(join(binDir, 'wrangler'), ['deploy', '--dry-run', '--outdir', outdir]);
  if (b.code !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${b.out.slice(-1500)}`);
  const mainJs = readFileSync(join(outdir, 'index.js'));
  const rawBytes = mainJs.length;
  const gz = gzipSync(mainJs, { level: 9 }).length;
  results.row({ section: 'startup', measure: 'deploy bundle (dist/index.js, catalogue inlined)', result: `${fmtBytes(rawBytes)} raw · ${fmtBytes(gz)} gzip (${fmtInt(gz)} B)`, target: '≤ 1 MB gzip', verdict: verdict(gz / 1e6, 1, '1 MB'), reproduce: 'npm run build && gzip -9 -c dist/index.js | wc -c' });
  // Startup CPU: wrangler check startup on the same bundle, repeated; an empty worker as the baseline.
  const bundleFile = join(dir, 'worker.bundle');
  const bb = await runCapture(join(binDir, 'wrangler'), ['deploy', '--dry-run', '--outfile', bundleFile]);
  if (bb.code !== 0) throw new Error(`wrangler deploy --dry-run --outfile failed:\n${bb.out.slice(-1500)}`);
  ctx.log(`startup: wrangler check startup ×${reps} (full GitHub catalogue) and ×${reps} (empty worker)`);
  const ours = await checkStartup(['--worker', bundleFile], repoRoot, reps, dir, 'ours');
  const emptyDir = join(dir, 'empty');
  await mkdir(emptyDir);
  await writeFile(join(emptyDir, 'index.js'), "export default { fetch() { return new Response('ok'); } };\n");
  const toml = readFileSync(join(repoRoot, 'wrangler.toml'), 'utf8');
  const compat = /compatibility_date\s*=\s*"([^"]+)"/.exec(toml)?.[1] ?? '2026-10-01';
  await writeFile(join(emptyDir, 'wrangler.json'), JSON.stringify({ name: 'empty', main: 'index.js', compatibility_date: compat, compatibility_flags: ['nodejs_compat'] }));
  const empty = await checkStartup([], emptyDir, reps, dir, 'empty');
  const so = spread(ours.active);
  const se = spread(empty.active);
  const net = so.median - se.median;
  const top = topSelf(ours.profile, 6);
  results.raw.startup = { bundleBytes: rawBytes, gzipBytes: gz, wranglerBundle: ours.bundle, activeMs: ours.active, gcMs: ours.gc, emptyActiveMs: empty.active, netMedianMs: net, topSelf: top };
  results.row({ section: 'startup', measure: 'startup CPU, full GitHub catalogue (wrangler check startup, "Active")', result: `${fmtSpread(so)} · GC ${fmtMs(median(ours.gc))}`, target: '≤ 40 ms', verdict: verdict(so.median, 40, '40 ms'), reproduce: 'npx wrangler check startup' });
  results.row({ section: 'startup', measure: 'startup CPU, empty worker baseline · ours minus baseline', result: `${se.max === 0 ? 'no profiler sample (< 1 ms)' : fmtSpread(se)} · net ${fmtMs(net)}`, reproduce: plan.reproduce('startup') });
  results.note('startup', `Bundle: \`wrangler deploy --dry-run --outdir\` (what \`npm run build\` does); raw is dist/index.js (the catalogue is a Text module inlined into it; the source map is not uploaded), gzip is zlib level 9 of that file${ours.bundle ? ` (wrangler's own figure: ${ours.bundle.kib.toFixed(0)} KiB / gzip ${ours.bundle.gzipKiB.toFixed(0)} KiB)` : ''}. Startup CPU: \`wrangler check startup --worker <bundle>\` ${reps} times on the bundle from \`wrangler deploy --dry-run --outfile\`; it runs the module's global scope in local workerd under the V8 profiler and prints "Active" (sampled non-idle time, GC included); median (min, max). Baseline: the same on a one-line worker with the same compatibility date and flags. Top self time in the last profile: ${top.map((t) => `${t.fn} ${t.ms.toFixed(1)} ms`).join(', ')}. Locally measured CPU on this machine, not Cloudflare's.`);
}
