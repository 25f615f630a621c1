// The bench's outputs: the machine it ran on, the printed table and docs/benchmarks.md.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../lib/proc.ts';
import { SECTIONS, sectionNumber, sectionTitle, type Plan } from './plan.ts';
import type { BenchResults } from './results.ts';

export function machine(): Record<string, string> {
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
    workerd: workerdVersion(),
    commit: `${git(['rev-parse', '--short', 'HEAD'])}${git(['status', '--porcelain', '--', 'src', 'catalog', 'wrangler.toml']) ? ' (with uncommitted changes in src/catalog)' : ''}`,
  };
}

/** The headline targets, side by side, in the order of TARGET_ORDER. */
export function targetsTable(results: BenchResults): string {
  const head = ['Measure', 'Result', 'Target', 'Verdict'];
  const body = results.targets.map((t) => [t.measure, t.result, t.target, t.verdict]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...body.map(line)].join('\n');
}

/** The workerd build wrangler runs (wrangler pins its own, newer than the top-level workerd package). */
function workerdVersion(): string {
  try {
    const fromWrangler = createRequire(createRequire(join(repoRoot, 'package.json')).resolve('wrangler/package.json'));
    return (fromWrangler('workerd/package.json') as { version: string }).version;
  } catch {
    return '?';
  }
}

export function textTable(results: BenchResults): string {
  const head = ['#', 'Measure', 'Result', 'Target', 'Verdict'];
  const body = results.rows.map((r) => [String(sectionNumber(r.section)), r.measure, r.result, r.target ?? '', r.verdict ?? '']);
  for (const e of results.errors) body.push([String(sectionNumber(e.section)), `${e.section}: ERROR`, e.error.split('\n')[0]!.slice(0, 160), '', 'not measured']);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...body.map(line)].join('\n');
}

export function markdown(results: BenchResults, plan: Plan, m: Record<string, string>, reduced: string[], totalS: number): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const out: string[] = [];
  out.push('# Benchmarks', '');
  out.push(`Written by \`npm run bench${plan.quick ? ' -- --quick' : ''}\` (scripts/bench/run.ts) on ${m.date}; mode **${plan.mode}**, ${totalS.toFixed(0)} s in all. Do not edit by hand: rerun the bench.`, '');
  out.push('The machine is shared and noisy, so each figure that matters is a ratio of two things measured in the same run (interleaved), or a median of repeats with min and max. Absolute milliseconds are this machine\'s, on a loaded 2-core box, not Cloudflare\'s.', '');
  out.push('## Machine', '');
  for (const [k, v] of Object.entries(m)) out.push(`- **${k}**: ${v}`);
  out.push('');
  if (reduced.length) out.push(`Reduced in this run: ${reduced.join('; ')}.`, '');
  if (results.targets.length) {
    out.push('## Targets', '', 'The headline figures of this run next to their targets; each row links to its section below.', '');
    out.push('| Measure | Result | Target | Verdict |', '|---|---|---|---|');
    for (const t of results.targets) out.push(`| ${esc(t.measure)} (§${sectionNumber(t.section)}) | ${esc(t.result)} | ${esc(t.target)} | ${esc(t.verdict)} |`);
    out.push('');
  }
  out.push('## Results', '');
  out.push('| # | Measure | Result | Target | Verdict | Reproduce |', '|---|---|---|---|---|---|');
  for (const r of results.rows) out.push(`| ${sectionNumber(r.section)} | ${esc(r.measure)} | ${esc(r.result)} | ${esc(r.target ?? '')} | ${esc(r.verdict ?? '')} | \`${esc(r.reproduce)}\` |`);
  for (const e of results.errors) out.push(`| ${sectionNumber(e.section)} | ${e.section}: ERROR | ${esc(e.error.split('\n')[0]!.slice(0, 300))} | | not measured | \`${plan.reproduce(e.section)}\` |`);
  out.push('');
  const missed = results.rows.filter((r) => r.verdict?.startsWith('MISSED'));
  if (missed.length) out.push(`**Missed targets in this run:** ${missed.map((r) => `${r.measure} (${r.verdict!.replace(/^MISSED /, '')})`).join('; ')}.`, '');
  out.push('## How each figure is measured', '');
  out.push(`Runtime figures come from scripts/bench/worker.ts (the production entry over the committed GitHub catalogue, plus bench-only routes: a passthrough floor, a pre-serialised tools/list, and the app with usage metering forced on or off; production code has none of them), bundled once and served two ways at the same time: by \`wrangler dev --local\` (workerd ${m.workerd} behind wrangler's local proxy; usage metering on, as in production, into a local D1 with its migrations applied) and by the same workerd build run directly on the bundle (scripts/bench/workerd.ts; no proxy, one process, so its CPU can be read from /proc; no D1, so no metering). Rows say which. Vars: \`CREDENTIAL_MODE=key\`, a bench \`API_KEY\`, \`UPSTREAM_URL\` = the bench upstream. The upstream (scripts/bench/upstream.ts) is a separate Node process on loopback answering GET /users/{username} with GitHub's documented example user (1.2 KB), so the tool's outputSchema check runs on a real, valid body, GET /search/issues with the large list of section ${sectionNumber('large')}, and the issues, pull requests and repositories of section ${sectionNumber('modes')}'s tasks (scripts/lib/github-fake.ts, built from the same documented examples).`, '');
  for (const { id } of SECTIONS) {
    const notes = results.notes.get(id);
    if (!notes?.length) continue;
    out.push(`### ${sectionTitle(id)}`, '', ...notes.flatMap((n, i) => (i ? ['', n] : [n])), '', `Reproduce: \`${plan.reproduce(id)}\`.`, '');
  }
  out.push('## Options', '', `\`npm run bench -- [--quick] [--only ${SECTIONS.map((s) => s.id).join(',')}] [--json <file>] [--out <md file>] [--baseline <git ref>]\`. \`--quick\` (used by CI) cuts iterations and repeats (see each section) and finishes in under 2 minutes; it never fails on figures, only when a section cannot run. \`--baseline\` serves that commit's bench worker beside this tree's (scripts/bench/baseline.ts) and adds rows comparing the two in the same rounds (section 10: a tools/call and a 5-call execute).`, '');
  return out.join('\n');
}
