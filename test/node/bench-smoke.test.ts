// The bench's pure helpers (stats, plan, results). No timing assertions: figures are never tested.
import { describe, expect, it } from 'vitest';
import { mergeMarkdown } from '../../scripts/bench/merge.ts';
import { makePlan, SECTIONS, sectionTitle } from '../../scripts/bench/plan.ts';
import { BenchResults } from '../../scripts/bench/results.ts';
import { targetsTable } from '../../scripts/bench/report.ts';
import { fmtMs, fmtRatio, median, parseCheckStartup, parseTimeV, percentile, ratio, spread, summarize, verdict, verdictAtLeast } from '../../scripts/bench/stats.ts';

describe('bench stats', () => {
  it('percentile is nearest-rank and does not mutate its input', () => {
    const xs = [5, 1, 4, 2, 3];
    expect(percentile(xs, 50)).toBe(3);
    expect(percentile(xs, 0)).toBe(1);
    expect(percentile(xs, 100)).toBe(5);
    expect(percentile(xs, 99)).toBe(5);
    expect(xs).toEqual([5, 1, 4, 2, 3]);
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile([], 50)).toBeNaN();
  });

  it('median averages the middle pair; spread and summarize', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
    expect(spread([3, 9, 1])).toEqual({ median: 3, min: 1, max: 9, n: 3 });
    expect(summarize([1, 2, 3, 4])).toMatchObject({ n: 4, p50: 2, p99: 4, mean: 2.5 });
  });

  it('ratio, formatting and verdicts', () => {
    expect(ratio(3, 2)).toBe(1.5);
    expect(ratio(1, 0)).toBeNaN();
    expect(fmtRatio(1.149)).toBe('1.15×');
    expect(fmtMs(0.4123)).toBe('0.412 ms');
    expect(fmtMs(12.34)).toBe('12.3 ms');
    expect(fmtMs(1234.4)).toBe('1,234 ms');
    expect(verdict(1.1, 1.15)).toMatch(/^met/);
    expect(verdict(1.2, 1.15)).toMatch(/^MISSED/);
    expect(verdict(NaN, 1.15)).toBe('—');
  });

  it('parses wrangler check startup and /usr/bin/time -v output', () => {
    const startup = '│ Bundle: 5997.38 KiB / gzip: 593.09 KiB\n│   Active: 115.5 ms (including 20.1 ms garbage collection)\n│   Idle: 107.2 ms';
    expect(parseCheckStartup(startup)).toEqual({ activeMs: 115.5, gcMs: 20.1, bundleKiB: 5997.38, gzipKiB: 593.09 });
    const time = '\tUser time (seconds): 6.10\n\tSystem time (seconds): 0.52\n\tElapsed (wall clock) time (h:mm:ss or m:ss): 0:07.46\n\tMaximum resident set size (kbytes): 213872\n';
    expect(parseTimeV(time)).toEqual({ userS: 6.1, sysS: 0.52, wallS: 7.46, maxRssKiB: 213872 });
    expect(parseTimeV('Elapsed (wall clock) time (h:mm:ss or m:ss): 1:02:03.5').wallS).toBe(3723.5);
  });

  it('plans sections by id: --only picks, an unknown id throws, numbers follow report order', () => {
    const all = makePlan(false);
    expect(SECTIONS.every((s) => all.want(s.id))).toBe(true);
    expect(all.mode).toBe('full');
    const some = makePlan(true, 'call, large');
    expect([...some.only]).toEqual(['call', 'large']);
    expect(some.want('list')).toBe(false);
    expect(some.reproduce('large')).toBe('npm run bench -- --quick --only large');
    expect(some.n.callIters).toBeLessThan(all.n.callIters);
    expect(() => makePlan(false, 'call,nope')).toThrow(/unknown section "nope"/);
    expect(sectionTitle('call')).toMatch(/^1\. /);
    expect(sectionTitle(SECTIONS.at(-1)!.id)).toBe(`${SECTIONS.length}. ${SECTIONS.at(-1)!.title}`);
    // The Graph section builds an 11k-operation API: full runs include it, --quick only when asked for.
    expect(all.want('graph')).toBe(true);
    expect(makePlan(true).want('graph')).toBe(false);
    expect(makePlan(true).want('call')).toBe(true);
    expect(makePlan(true, 'graph').want('graph')).toBe(true);
  });

  it('the targets table lists each headline figure once, with its verdict', () => {
    const r = new BenchResults();
    r.target({ section: 'startup', measure: 'startup CPU, GitHub', result: '4.1 ms', target: '≤ 20 ms', verdict: verdict(4.1, 20, '20 ms') });
    r.target({ section: 'throughput', measure: 'throughput vs peer', result: '0.8×', target: '≥ 1.0×', verdict: verdictAtLeast(0.8, 1, '1.0×') });
    const text = targetsTable(r);
    expect(text.split('\n')).toHaveLength(4);
    expect(text).toMatch(/startup CPU, GitHub +\| 4\.1 ms +\| ≤ 20 ms +\| met \(≤ 20 ms\)/);
    expect(text).toMatch(/MISSED \(< 1\.0×\)/);
    expect(verdictAtLeast(1.2, 1)).toMatch(/^met/);
    expect(verdictAtLeast(NaN, 1)).toBe('—');
  });

  it('results of one run are kept per instance', () => {
    const a = new BenchResults();
    const b = new BenchResults();
    a.row({ section: 'call', measure: 'm', result: 'r', reproduce: 'x' });
    a.note('call', 'first');
    a.note('call', 'second');
    b.error('list', 'boom');
    expect(a.reported('call')).toBe(true);
    expect(a.reported('list')).toBe(false);
    expect(b.reported('list')).toBe(true);
    expect(a.notes.get('call')).toEqual(['first', 'second']);
    expect(b.rows).toEqual([]);
  });

  it('--only on an existing report replaces those sections and keeps the others', () => {
    const doc = (written: string, rows: string[], missed: string, subs: string[], heads: string[] = [], tail: string[] = []) =>
      ['# Benchmarks', '', `Written by \`npm run bench\` on ${written}.`, '', 'Machine.', '', '## Targets', '', '| Measure | Result | Target | Verdict |', '|---|---|---|---|', ...heads, '', '## Results', '', '| # | Measure | Result | Target | Verdict | Reproduce |', '|---|---|---|---|---|---|', ...rows, '', ...(missed ? [missed, ''] : []), '## How each figure is measured', '', 'All figures.', '', ...subs, '## Options', '', 'opts', '', ...tail].join('\n');
    const previous = doc(
      'OLD',
      ['| 1 | call | 9 ms | ≤ 5 | MISSED (> 5) | `x` |', '| 2 | a \\| b | old | ≤ 3× | MISSED (< 3×) | `y` |'],
      '**Missed targets in this run:** call ((> 5)); a | b ((< 3×)).',
      ['### 1. Call', '', 'call notes', '', '### 2. Two', '', 'old notes', ''],
      ['| call (§1) | 9 ms | ≤ 5 | MISSED (> 5) |', '| a (§2) | old | ≤ 3× | MISSED (< 3×) |', '| z (§3) | z | | |'],
      ['## Search quality', '', 'hand-kept figures', ''],
    );
    const fresh = doc('NEW', ['| 2 | a \\| b | new | ≤ 3× | met (≥ 3×) | `y` |', '| 2 | c | more | | | `y` |'], '', ['### 2. Two', '', 'new notes', ''], ['| a (§2) | new | ≤ 3× | met (≥ 3×) |']);
    const merged = mergeMarkdown(previous, fresh, [2], 'Section 2 rerun on NOW.');
    expect(merged).toContain('Written by `npm run bench` on OLD.\n\nSection 2 rerun on NOW.\n');
    expect(merged).toContain('| 1 | call | 9 ms |');
    expect(merged).toContain('| 2 | a \\| b | new |');
    expect(merged).toContain('| 2 | c | more |');
    expect(merged).not.toContain('old notes');
    expect(merged).toContain('call notes');
    expect(merged).toContain('new notes');
    expect(merged).toContain('**Missed targets:** call ((> 5)).');
    expect(merged).not.toContain('a | b ((< 3×))');
    // The headline Targets table takes the rerun section's rows in place; sections after Options stay.
    expect(merged).toContain('| call (§1) | 9 ms | ≤ 5 | MISSED (> 5) |\n| a (§2) | new | ≤ 3× | met (≥ 3×) |\n| z (§3) | z | | |');
    expect(merged).not.toContain('| a (§2) | old');
    expect(merged).toContain('## Options\n\nopts\n\n## Search quality\n\nhand-kept figures\n');
    // A section another tool wrote after the options paragraph is kept; the options paragraph is the fresh one.
    const withEval = mergeMarkdown(previous.replace('opts\n', 'old opts\n\n## Search quality\n\neval table\n'), fresh, [2], 'Section 2 rerun on NOW.');
    expect(withEval).toContain('## Options\n\nopts\n\n## Search quality\n\neval table\n');
    expect(withEval).not.toContain('old opts');
    // Rerunning again replaces the stamp rather than stacking them.
    expect(mergeMarkdown(merged, fresh, [2], 'Section 2 rerun on LATER.').match(/Section 2 rerun/g)).toHaveLength(1);
  });
});
