// Shortens a JSON value to fit a token budget (estimated, src/lib/tokens.ts) while keeping it valid JSON: the largest
// arrays are cut first, then the longest strings. Base64-looking strings are never cut in the middle (a broken
// base64 string is worse than none); they are replaced by a placeholder. Sizes are the estimated tokens of each
// part's JSON on its own, which is never less than its share of the whole.
import { estimateTokens, fitTokens, withinTokens } from '../lib/tokens.ts';

interface JsonCut {
  /** JSONPath-like location, e.g. $.items or $.result[0].children */
  path: string;
  kept: number;
  total: number;
}

interface ShrinkOutcome {
  value: unknown;
  arrayCuts: JsonCut[];
  stringsCut: number;
}

interface Measure {
  size: number;
  largestArray?: { size: number; path: string; arr: unknown[] };
  largestString?: { size: number; path: string; parent: Record<string, unknown> | unknown[]; key: string | number };
}

const BASE64_LIKE = /^[A-Za-z0-9+/_-]{200,}={0,2}$/;

/** Returns undefined when `value` already fits in `maxTokens` (compact JSON, estimated tokens). */
export function shrinkJson(value: unknown, maxTokens: number): ShrinkOutcome | undefined {
  const original = JSON.stringify(value);
  if (original === undefined || withinTokens(original, maxTokens)) return undefined;
  const root: { v: unknown } = { v: JSON.parse(original) };
  const cuts = new Map<string, JsonCut>();
  const measure = measurer();
  let stringsCut = 0;
  let target = maxTokens;
  for (let i = 0; i < 200; i++) {
    const m = measure(root.v, '$', root, 'v');
    if (m.size <= target) {
      // The parts' sum bounds the whole; checked once on the whole all the same.
      if (withinTokens(JSON.stringify(root.v), maxTokens)) break;
      target = Math.floor(target * 0.95);
      continue;
    }
    const over = m.size - target;
    const arr = m.largestArray;
    const str = m.largestString;
    if (arr && (!str || str.size * 2 < arr.size)) {
      const len = arr.arr.length;
      let keep = Math.floor(len * Math.max(0, (arr.size - over) / arr.size) * 0.95);
      if (keep >= len) keep = len - 1;
      const prev = cuts.get(arr.path);
      cuts.set(arr.path, { path: arr.path, kept: keep, total: prev?.total ?? len });
      arr.arr.length = keep;
    } else if (str) {
      const s = str.parent[str.key as never] as string;
      let replacement: string;
      if (BASE64_LIKE.test(s) || str.size - over < MIN_KEPT_TOKENS) {
        replacement = `[${s.length} characters omitted${BASE64_LIKE.test(s) ? ' (binary/base64 data)' : ''}]`;
      } else {
        const kept = fitTokens(s, str.size - over - CUT_MARK_TOKENS);
        replacement = `${kept}… [${s.length - kept.length} characters cut]`;
      }
      (str.parent as Record<string, unknown>)[str.key as string] = replacement;
      stringsCut++;
    } else {
      break;
    }
  }
  return { value: root.v, arrayCuts: [...cuts.values()], stringsCut };
}

/** A string cut to fewer tokens than this is replaced by a placeholder instead. */
const MIN_KEPT_TOKENS = 15;
/** Room for the marker after a cut string: `… [12345 characters cut]` and the quotes. */
const CUT_MARK_TOKENS = 12;
/** Strings at least this long have their estimate remembered across the passes of one shrink. */
const REMEMBERED_CHARS = 64;

/** The measure of one shrink: each value's size in tokens and its largest array and string. */
function measurer(): (v: unknown, path: string, parent: Record<string, unknown> | unknown[], key: string | number) => Measure {
  const known = new Map<string, number>();
  const tokensOf = (json: string): number => {
    if (json.length < REMEMBERED_CHARS) return estimateTokens(json);
    let t = known.get(json);
    if (t === undefined) known.set(json, (t = estimateTokens(json)));
    return t;
  };
  const measure = (v: unknown, path: string, parent: Record<string, unknown> | unknown[], key: string | number): Measure => {
    if (Array.isArray(v)) {
      let size = 2 + Math.max(0, v.length - 1);
      let best: Measure = { size: 0 };
      for (let i = 0; i < v.length; i++) {
        const m = measure(v[i], `${path}[${i}]`, v, i);
        size += m.size;
        best = pickLargest(best, m);
      }
      const self = v.length > 0 ? { size, path, arr: v } : undefined;
      return {
        size,
        ...(self && (!best.largestArray || best.largestArray.size * 2 < size) ? { largestArray: self } : best.largestArray ? { largestArray: best.largestArray } : {}),
        ...(best.largestString ? { largestString: best.largestString } : {}),
      };
    }
    if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>);
      let size = 2 + Math.max(0, entries.length - 1);
      let best: Measure = { size: 0 };
      for (const [k, x] of entries) {
        const m = measure(x, /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`, v as Record<string, unknown>, k);
        size += tokensOf(JSON.stringify(k)) + 1 + m.size;
        best = pickLargest(best, m);
      }
      return { ...best, size };
    }
    const size = tokensOf(JSON.stringify(v) ?? 'null');
    if (typeof v === 'string' && v.length > 80) return { size, largestString: { size, path, parent, key } };
    return { size };
  };
  return measure;
}

function pickLargest(a: Measure, b: Measure): Measure {
  const out: Measure = { size: 0 };
  const arr = !a.largestArray ? b.largestArray : !b.largestArray ? a.largestArray : a.largestArray.size >= b.largestArray.size ? a.largestArray : b.largestArray;
  const str = !a.largestString ? b.largestString : !b.largestString ? a.largestString : a.largestString.size >= b.largestString.size ? a.largestString : b.largestString;
  if (arr) out.largestArray = arr;
  if (str) out.largestString = str;
  return out;
}

const PAGING_PARAMS = /^(per_?page|page|page_?size|page_?token|limit|offset|cursor|after|before|starting_after|ending_before|max_?results|top|skip|first|last|size|count|next_?token|continuation_?token)$/i;

/** Input argument names that look like pagination controls, for the "how to get the rest" hint. */
export function pagingArgs(inputSchema: Record<string, unknown>): string[] {
  const props = inputSchema.properties;
  if (!props || typeof props !== 'object') return [];
  return Object.keys(props).filter((k) => PAGING_PARAMS.test(k));
}

export function truncationNote(outcome: ShrinkOutcome, budgetTokens: number, paging: string[]): string {
  const parts: string[] = [`Result shortened to fit the ~${budgetTokens}-token budget.`];
  if (outcome.arrayCuts.length) {
    parts.push(outcome.arrayCuts.map((c) => `${c.path}: kept ${c.kept} of ${c.total} items`).join('; ') + '.');
  }
  if (outcome.stringsCut) parts.push(`${outcome.stringsCut} long string value(s) were cut.`);
  if (paging.length) parts.push(`To see the rest, call again with the pagination arguments (${paging.join(', ')}), e.g. a smaller page size and the next page.`);
  else parts.push('To see the rest, narrow the request (filters, a more specific resource).');
  return parts.join(' ');
}
