// "Did you mean …?" for names a caller mistyped: toolsets, tools, flags, variables.
// Hand-written rather than a dependency: twenty lines, and it ships in the Worker bundle.

/** Names longer than this get no guess. */
const MAX_GUESSED_CHARS = 128;

/** Levenshtein distance (insert, delete, substitute; each costs 1). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * The valid names closest to `name` (case-insensitive), best first, at most `max`: those at the smallest edit distance,
 * if it is within a third of the name's length (at least 2 edits), so a guess is offered only when it is plausibly what
 * was meant; failing that, valid names that contain the typed one (`repos` → `repos_core`).
 */
export function nearestNames(name: string, valid: readonly string[], max = 3): string[] {
  // Nobody mistypes a name this long; its edit distances to every valid name would cost quadratic time for nothing.
  if (name.length > MAX_GUESSED_CHARS) return [];
  const typed = name.toLowerCase();
  const limit = Math.max(2, Math.floor(typed.length / 3));
  let best = limit + 1;
  let near: string[] = [];
  const containing: string[] = [];
  for (const v of valid) {
    const lower = v.toLowerCase();
    // Length alone bounds the distance: skip the quadratic work for names that cannot be close.
    const d = Math.abs(lower.length - typed.length) > limit ? Infinity : editDistance(typed, lower);
    if (d < best) [best, near] = [d, [v]];
    else if (d === best) near.push(v);
    if (typed.length >= 3 && lower.includes(typed)) containing.push(v);
  }
  return (near.length ? near : containing).sort((a, b) => a.localeCompare(b)).slice(0, max);
}

/** " Did you mean a or b?" or "" when nothing is close. */
export function didYouMean(name: string, valid: readonly string[]): string {
  const near = nearestNames(name, valid);
  if (!near.length) return '';
  return ` Did you mean ${near.length === 1 ? near[0] : `${near.slice(0, -1).join(', ')} or ${near.at(-1)}`}?`;
}
