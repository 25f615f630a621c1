// Removes credentials from tool results. An upstream may echo request headers back (debug endpoints,
// httpbin-style APIs, error pages quoting the request); in gateway mode that would hand the operator's
// service secret to every customer. Exact occurrences of the caller's secrets are replaced before the
// result leaves the Worker.
const MIN_SECRET_LENGTH = 8;
const REDACTED = '[redacted]';

/** A secret as it appears inside a JSON string, and inside a JSON string that is itself JSON text (a text block). */
function escapedForms(secret: string): string[] {
  const once = JSON.stringify(secret).slice(1, -1);
  const twice = JSON.stringify(once).slice(1, -1);
  return once === secret ? [secret] : [secret, once, twice];
}

/**
 * A secret as a URL carries it: percent-encoded as encodeURIComponent does, and as the request's query encodes it
 * (src/upstream/encoding.ts, encodeStrict). An upstream that echoes its request URL (an error page, a debug endpoint)
 * shows a query key so; plain ASCII JSON, so one form serves both places. Empty when encoding changes nothing.
 */
function urlForms(secret: string): string[] {
  const plain = encodeURIComponent(secret);
  const strict = plain.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return [...new Set([plain, strict])].filter((f) => f !== secret);
}

/**
 * Whether a serialised result may hold one of the secrets: checked on the JSON as it will be sent (a string search
 * per secret), so only a result that does is walked by redactSecrets.
 */
export function mentionsSecret(json: string, secrets: readonly string[] | undefined): boolean {
  if (!secrets) return false;
  for (const s of secrets) if (s.length >= MIN_SECRET_LENGTH && [...escapedForms(s), ...urlForms(s)].some((f) => json.includes(f))) return true;
  return false;
}

export function redactSecrets<T>(value: T, secrets: readonly string[] | undefined): T {
  // A secret with a quote or backslash is also replaced as it appears JSON-escaped (in a text block holding JSON).
  const list = (secrets ?? []).filter((s) => s.length >= MIN_SECRET_LENGTH).flatMap((s) => [...escapedForms(s).slice(0, 2), ...urlForms(s)]);
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
