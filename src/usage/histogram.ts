// Fixed log-scale latency histogram: mergeable by adding bucket counts, so rows written by any number of isolates
// and flushes sum to the same histogram, and p50/p95 are read from the sum.
//
// Bucket 0 holds [0, 1) ms. Bucket i in 1…63 holds [2^((i-1)/4), 2^(i/4)) ms: four buckets per doubling, up to
// 2^(63/4) ms ≈ 55.1 s. Bucket 64 holds everything slower. A percentile is the nearest-rank sample's bucket,
// reported as the bucket's geometric middle (and never above the largest latency seen), so for 1 ms ≤ v < 55.1 s
// the reported value is within 2^(1/8) - 1 ≈ 9.05 % of the true one; below 1 ms it is 0.5 ms (±0.5 ms); in the
// overflow bucket it is the largest latency seen, an upper bound.

export const BUCKETS = 65;
const PER_DOUBLING = 4;
const LAST = BUCKETS - 1;
/** Lower edge of the overflow bucket, ms. */
export const OVERFLOW_MS = 2 ** ((LAST - 1) / PER_DOUBLING);
/** Largest relative error of a percentile between 1 ms and OVERFLOW_MS. */
export const RELATIVE_ERROR = 2 ** (1 / (2 * PER_DOUBLING)) - 1;

/** The bucket a latency in ms falls into. Non-numbers and negatives count as 0 ms. */
export function bucketOf(ms: number): number {
  if (!(ms >= 1)) return 0;
  const i = 1 + Math.floor(PER_DOUBLING * Math.log2(ms));
  return i < LAST ? i : LAST;
}

/** [lower, upper) of bucket i, ms. */
export function bucketBounds(i: number): [number, number] {
  if (i <= 0) return [0, 1];
  if (i >= LAST) return [OVERFLOW_MS, Infinity];
  return [2 ** ((i - 1) / PER_DOUBLING), 2 ** (i / PER_DOUBLING)];
}

/**
 * The q-quantile (0 < q ≤ 1) of a histogram, nearest rank, or undefined when it is empty.
 * `maxMs` is the largest latency the histogram holds; estimates never exceed it.
 */
export function quantile(counts: ArrayLike<number>, q: number, maxMs: number): number | undefined {
  let total = 0;
  for (let i = 0; i < counts.length; i++) total += counts[i]!;
  if (total <= 0) return undefined;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i]!;
    if (seen >= rank) return Math.min(representative(i, maxMs), maxMs > 0 ? maxMs : Infinity);
  }
  return undefined;
}

function representative(i: number, maxMs: number): number {
  if (i <= 0) return 0.5;
  if (i >= LAST) return Math.max(OVERFLOW_MS, maxMs);
  return 2 ** ((2 * i - 1) / (2 * PER_DOUBLING));
}
