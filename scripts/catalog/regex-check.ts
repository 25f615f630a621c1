// Whether a pattern compiles as a u-flag RegExp, as Ajv and @cfworker/json-schema compile `pattern` (memoised: specs
// repeat the same few patterns across thousands of properties), and the pattern's u-flag form when it has one.
const regexCache = new Map<string, boolean>();

export function compilesWithU(p: string): boolean {
  let ok = regexCache.get(p);
  if (ok === undefined) {
    try {
      new RegExp(p, 'u');
      ok = true;
    } catch {
      ok = false;
    }
    regexCache.set(p, ok);
  }
  return ok;
}

function compiles(p: string): boolean {
  try {
    new RegExp(p);
    return true;
  } catch {
    return false;
  }
}

/** Characters the u flag lets a backslash escape outside a class (inside one, `-` as well). */
const SYNTAX = new Set('^$\\.*+?()[]{}|/');

/**
 * The pattern as a u-flag RegExp, or undefined when it has none. Specs escape punctuation that needs no escape
 * (`[\w\~]`, `\_`, `\@`, `\-` outside a class): without the u flag that is the character itself, with it a syntax
 * error, so such a pattern is kept with those backslashes removed, meaning the same. Anything else that fails
 * (`(?i)`, lookbehind syntax of other engines) has no u form.
 */
export function uPattern(p: string): string | undefined {
  if (compilesWithU(p)) return p;
  if (!compiles(p)) return undefined;
  let out = '';
  let inClass = false;
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '\\' && i + 1 < p.length) {
      const next = p[i + 1]!;
      const needless = !/[A-Za-z0-9]/.test(next) && !SYNTAX.has(next) && !(inClass && next === '-');
      out += needless ? next : c + next;
      i++;
      continue;
    }
    if (c === '[' && !inClass) inClass = true;
    else if (c === ']' && inClass) inClass = false;
    out += c;
  }
  return out !== p && compilesWithU(out) ? out : undefined;
}
