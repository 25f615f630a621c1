// Removes credentials from tool results. An upstream may echo request headers back (debug endpoints,
// httpbin-style APIs, error pages quoting the request); in gateway mode that would hand the operator's
// service secret to every customer. Exact occurrences of the caller's secrets are replaced before the
// result leaves the Worker.
const MIN_SECRET_LENGTH = 8;
const REDACTED = '[redacted]';

export function redactSecrets<T>(value: T, secrets: readonly string[] | undefined): T {
  const list = (secrets ?? []).filter((s) => s.length >= MIN_SECRET_LENGTH);
  if (!list.length) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      let out = v;
      for (const s of list) if (out.includes(s)) out = out.split(s).join(REDACTED);
      return out;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) o[walk(k) as string] = walk(x);
      return o;
    }
    return v;
  };
  return walk(value) as T;
}
