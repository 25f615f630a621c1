// Field patterns of the compaction rules (catalog/overrides.json `results.keep` / `results.drop`): dot-separated
// segments, each a key or a glob with `*`. A pattern matches a field when its segments equal the last segments of
// the field's key path (array positions are not segments): `node_id` matches every node_id, `owner.avatar_url`
// only the one under `owner`, `*_url` every key ending in _url.

export type PathMatcher = (path: readonly string[]) => boolean;

const NEVER: PathMatcher = () => false;

/** Why `pattern` is not a usable field pattern, or undefined when it is. */
export function patternProblem(pattern: unknown): string | undefined {
  if (typeof pattern !== 'string' || !pattern.trim()) return 'must be a non-empty string';
  if (pattern.split('.').some((s) => !s)) return 'has an empty segment (use dots only between names)';
  if (/\s/.test(pattern)) return 'must not contain spaces';
  return undefined;
}

function segmentTest(segment: string): (key: string) => boolean {
  if (!segment.includes('*')) return (key) => key === segment;
  const re = new RegExp(`^${segment.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return (key) => re.test(key);
}

/** One matcher for a list of patterns (already checked with patternProblem). */
export function compilePatterns(patterns: readonly string[] | undefined): PathMatcher {
  if (!patterns?.length) return NEVER;
  const compiled = patterns.map((p) => p.split('.').map(segmentTest));
  return (path) => {
    for (const segs of compiled) {
      if (segs.length > path.length) continue;
      let ok = true;
      for (let i = 1; i <= segs.length && ok; i++) ok = segs[segs.length - i]!(path[path.length - i]!);
      if (ok) return true;
    }
    return false;
  };
}
