// Compaction: removes from a JSON result what a model never needs, without changing anything it keeps.
// Dropped: null values, empty strings, empty arrays and objects (after their own compaction), hypermedia
// (links.ts) and fields matching the catalogue's `drop` patterns. Only object properties are removed: array
// elements are never removed or reordered, so positions and item counts stay true. Fields matching `keep`
// patterns and fields a projection names are never removed. Output schemas have no `required` (generator rule), so
// a value that validated before compaction still validates after it.
import { isHypermedia, type LinkRules } from './links.ts';
import type { PathMatcher } from './field-pattern.ts';
import type { FieldTree } from './projection.ts';

export interface CompactRules extends LinkRules {
  keep: PathMatcher;
  drop: PathMatcher;
  /** Whether keep/drop patterns exist (otherwise key paths are not tracked). */
  patterns: boolean;
}

const EMPTY = Symbol('empty');

/** `protect`: fields named by a projection at this level (true = that field and everything under it is kept as a key). */
export function compactJson(value: unknown, rules: CompactRules, protect?: FieldTree): unknown {
  const out = walk(value, rules, [], undefined, protect);
  return out === EMPTY ? emptyLike(value) : out;
}

function walk(v: unknown, rules: CompactRules, path: string[], parentKey: string | undefined, protect: FieldTree | undefined): unknown {
  if (Array.isArray(v)) {
    // Elements stay, even null or empty ones: removing one would shift every position after it.
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      const c = x !== null && typeof x === 'object' ? walk(x, rules, path, parentKey, protect) : x;
      out[i] = c === EMPTY ? x : c;
    }
    return out.length ? out : EMPTY;
  }
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const key in v as Record<string, unknown>) {
    const x = (v as Record<string, unknown>)[key];
    if (rules.patterns) path.push(key);
    const named = protect?.[key];
    const kept = named !== undefined || (rules.patterns && rules.keep(path));
    let c: unknown = x;
    if (!kept && ((rules.patterns && rules.drop(path)) || x === null || x === '' || (typeof x === 'string' && isHypermedia(key, parentKey, x, rules)))) c = EMPTY;
    else if (x !== null && typeof x === 'object') {
      c = walk(x, rules, path, key, named === true ? undefined : named);
      if (c === EMPTY && kept) c = emptyLike(x);
    }
    if (rules.patterns) path.pop();
    if (c === EMPTY) continue;
    out[key] = c;
    n++;
  }
  return n ? out : EMPTY;
}

function emptyLike(v: unknown): unknown {
  return Array.isArray(v) ? [] : v !== null && typeof v === 'object' ? {} : v;
}
