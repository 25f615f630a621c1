// How much a Worker costs before it serves anything: startup CPU (`wrangler check startup`, which runs the global scope
// under the V8 profiler) and the isolate's live heap after startup and after its first request (workerd run directly,
// read over its inspector). Shared by the startup and Graph sections.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { binDir } from '../lib/proc.ts';
import { Cdp } from './cdp.ts';
import { runCapture } from './exec.ts';
import { parseCheckStartup } from './stats.ts';
import { startWorkerdDirect } from './workerd.ts';

export interface StartupRun {
  /** wrangler's "Active" per run. */
  active: number[];
  gc: number[];
  bundle?: { kib: number; gzipKiB: number };
  profile: string;
}

/** `wrangler check startup <args>` `reps` times; each run leaves its CPU profile in `profileDir`. */
export async function checkStartup(args: string[], cwd: string, reps: number, profileDir: string, tag: string): Promise<StartupRun> {
  const run: StartupRun = { active: [], gc: [], profile: '' };
  for (let i = 0; i < reps; i++) await checkStartupOnce(args, cwd, run, join(profileDir, `${tag}-${i}.cpuprofile`));
  return run;
}

/** One more `wrangler check startup` into `run` (interleaving two workers keeps drift off their ratio). */
export async function checkStartupOnce(args: string[], cwd: string, run: StartupRun, profile: string): Promise<void> {
  const r = await runCapture(join(binDir, 'wrangler'), ['check', 'startup', ...args, '--outfile', profile], cwd);
  const parsed = parseCheckStartup(r.out);
  if (r.code !== 0 || parsed.activeMs === undefined) throw new Error(`wrangler check startup failed (exit ${r.code}):\n${r.out.slice(-1500)}`);
  run.active.push(parsed.activeMs);
  run.gc.push(parsed.gcMs ?? 0);
  if (parsed.bundleKiB !== undefined) run.bundle = { kib: parsed.bundleKiB, gzipKiB: parsed.gzipKiB! };
  run.profile = profile;
}

/** Self time per function in a V8 cpuprofile, top n, in ms. */
export function topSelf(profilePath: string, n: number): { fn: string; ms: number }[] {
  const p = JSON.parse(readFileSync(profilePath, 'utf8')) as { nodes: { id: number; callFrame: { functionName: string } }[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  const self = new Map<string, number>();
  p.samples.forEach((id, i) => {
    const name = byId.get(id)!.callFrame.functionName || '(anonymous)';
    if (name === '(idle)') return;
    self.set(name, (self.get(name) ?? 0) + (p.timeDeltas[i + 1] ?? 0) / 1000);
  });
  return [...self].sort((a, b) => b[1] - a[1]).slice(0, n).map(([fn, ms]) => ({ fn, ms }));
}

/**
 * Live heap (bytes, after a full GC) of a fresh workerd serving `bundleDir`: right after startup (the global scope
 * ran, no request yet), and after one request (/healthz, which also loads the app).
 */
export async function heapAfterStartup(bundleDir: string, vars: Record<string, string>): Promise<{ startup: number; firstRequest: number }> {
  const worker = await startWorkerdDirect(bundleDir, vars, { inspector: true, noRequest: true });
  try {
    const cdp = await Cdp.connect(worker.inspector!);
    try {
      const startup = await cdp.heapAfterGc();
      const res = await fetch(`${worker.url}/healthz`);
      if (!res.ok) throw new Error(`healthz: HTTP ${res.status}`);
      await res.arrayBuffer();
      return { startup, firstRequest: await cdp.heapAfterGc() };
    } finally {
      cdp.close();
    }
  } finally {
    await worker.stop();
  }
}
