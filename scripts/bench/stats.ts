// Pure helpers for the bench: percentiles, medians, summaries and number formatting.

/** Nearest-rank percentile (p in [0, 100]) of the values; NaN for an empty list. Does not mutate. */
export function percentile(values: readonly number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  if (p <= 0) return sorted[0]!;
  if (p >= 100) return sorted[sorted.length - 1]!;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.max(0, rank - 1)]!;
}

/** Median: the mean of the two middle values for an even count. NaN for an empty list. */
export function median(values: readonly number[]): number {
  if (!values.length) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

interface Spread {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function spread(values: readonly number[]): Spread {
  return { median: median(values), min: values.length ? Math.min(...values) : NaN, max: values.length ? Math.max(...values) : NaN, n: values.length };
}

interface LatencySummary {
  n: number;
  p50: number;
  p99: number;
  mean: number;
}

export function summarize(samples: readonly number[]): LatencySummary {
  const mean = samples.length ? samples.reduce((a, b) => a + b, 0) / samples.length : NaN;
  return { n: samples.length, p50: percentile(samples, 50), p99: percentile(samples, 99), mean };
}

/** a / b, NaN when either is missing or b is 0. */
export function ratio(a: number, b: number): number {
  return Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : NaN;
}

/** Milliseconds with sensible precision: 0.412 ms, 12.3 ms, 1,234 ms. */
export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  if (ms < 1) return `${ms.toFixed(3)} ms`;
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  return `${Math.round(ms).toLocaleString('en-US')} ms`;
}

export function fmtRatio(r: number): string {
  return Number.isFinite(r) ? `${r.toFixed(2)}×` : 'n/a';
}

export function fmtBytes(n: number): string {
  if (!Number.isFinite(n)) return 'n/a';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(2)} MiB`;
}

export function fmtInt(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a';
}

/** "12.3 ms (min 11.0, max 15.2, n=3)". */
export function fmtSpread(s: Spread, fmt: (n: number) => string = fmtMs): string {
  if (!s.n) return 'n/a';
  if (s.n === 1) return `${fmt(s.median)} (n=1)`;
  return `${fmt(s.median)} (min ${fmt(s.min)}, max ${fmt(s.max)}, n=${s.n})`;
}

/** Verdict against a target where lower is better: "✅ ≤ 1.15" or "❌ > 1.15"; "—" when unmeasured. */
export function verdict(value: number, target: number, label = String(target)): string {
  if (!Number.isFinite(value)) return '—';
  return value <= target ? `met (≤ ${label})` : `MISSED (> ${label})`;
}

/** The same for a floor: the value must reach the target. */
export function verdictAtLeast(value: number, target: number, label = String(target)): string {
  if (!Number.isFinite(value)) return '—';
  return value >= target ? `met (≥ ${label})` : `MISSED (< ${label})`;
}

/**
 * Parses `wrangler check startup` output: "Active: 115.5 ms (including 20.1 ms garbage collection)"
 * and "Bundle: 5997.38 KiB / gzip: 593.09 KiB".
 */
export function parseCheckStartup(text: string): { activeMs?: number; gcMs?: number; bundleKiB?: number; gzipKiB?: number } {
  const out: { activeMs?: number; gcMs?: number; bundleKiB?: number; gzipKiB?: number } = {};
  const active = /Active:\s*([\d.]+)\s*ms(?:\s*\(including\s*([\d.]+)\s*ms garbage collection\))?/.exec(text);
  if (active) {
    out.activeMs = Number(active[1]);
    if (active[2]) out.gcMs = Number(active[2]);
  }
  const bundle = /Bundle:\s*([\d.]+)\s*KiB\s*\/\s*gzip:\s*([\d.]+)\s*KiB/.exec(text);
  if (bundle) {
    out.bundleKiB = Number(bundle[1]);
    out.gzipKiB = Number(bundle[2]);
  }
  return out;
}

/** Peak RSS in KiB from `/usr/bin/time -v` output ("Maximum resident set size (kbytes): 123456"). */
export function parseTimeV(text: string): { maxRssKiB?: number; wallS?: number; userS?: number; sysS?: number } {
  const out: { maxRssKiB?: number; wallS?: number; userS?: number; sysS?: number } = {};
  const rss = /Maximum resident set size \(kbytes\):\s*(\d+)/.exec(text);
  if (rss) out.maxRssKiB = Number(rss[1]);
  const user = /User time \(seconds\):\s*([\d.]+)/.exec(text);
  if (user) out.userS = Number(user[1]);
  const sys = /System time \(seconds\):\s*([\d.]+)/.exec(text);
  if (sys) out.sysS = Number(sys[1]);
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\):\s*(?:(\d+):)?(\d+):([\d.]+)/.exec(text);
  if (wall) out.wallS = Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]);
  return out;
}
