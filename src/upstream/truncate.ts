// Shortens a JSON value to fit a character budget while keeping it valid JSON:
// the largest arrays are cut first, then the longest strings. Base64-looking strings are never cut
// in the middle (a broken base64 string is worse than none); they are replaced by a placeholder.

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

/** Returns undefined when `value` already fits in `maxChars` (compact JSON). */
export function shrinkJson(value: unknown, maxChars: number): ShrinkOutcome | undefined {
  const original = JSON.stringify(value);
  if (original === undefined || original.length <= maxChars) return undefined;
  const root: { v: unknown } = { v: JSON.parse(original) };
  const cuts = new Map<string, JsonCut>();
  let stringsCut = 0;
  for (let i = 0; i < 200; i++) {
    const m = measure(root.v, '$', root, 'v');
    if (m.size <= maxChars) break;
    const over = m.size - maxChars;
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
      if (BASE64_LIKE.test(s) || s.length - over < 40) {
        replacement = `[${s.length} characters omitted${BASE64_LIKE.test(s) ? ' (binary/base64 data)' : ''}]`;
      } else {
        let end = Math.max(0, s.length - over - 60);
        const c = s.charCodeAt(end - 1);
        if (c >= 0xd800 && c <= 0xdbff) end--;
        replacement = `${s.slice(0, end)}… [${s.length - end} characters cut]`;
      }
      (str.parent as Record<string, unknown>)[str.key as string] = replacement;
      stringsCut++;
    } else {
      break;
    }
  }
  return { value: root.v, arrayCuts: [...cuts.values()], stringsCut };
}

function measure(v: unknown, path: string, parent: Record<string, unknown> | unknown[], key: string | number): Measure {
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
      size += JSON.stringify(k).length + 1 + m.size;
      best = pickLargest(best, m);
    }
    return { ...best, size };
  }
  const size = JSON.stringify(v)?.length ?? 4;
  if (typeof v === 'string' && v.length > 80) return { size, largestString: { size, path, parent, key } };
  return { size };
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
