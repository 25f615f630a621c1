// Whether a pattern compiles as a u-flag RegExp, as Ajv and @cfworker/json-schema compile `pattern` (memoised: specs
// repeat the same few patterns across thousands of properties).
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
