// Low-level encoders for request building: strict percent-encoding and primitive-to-string.

/**
 * encodeURIComponent plus the five characters it leaves alone (!'()*), so a value can never
 * introduce a delimiter or a character some server treats as special.
 */
export function encodeStrict(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** For allowReserved query values: keep RFC 3986 reserved characters that are harmless inside a query value. */
export function encodeAllowReserved(value: string): string {
  // & = # + would split or reinterpret the query, so they stay encoded.
  return encodeStrict(value).replace(/%(2F|3A|40|21|24|27|28|29|2A|2C|3B|3F|5B|5D)/g, (m) => decodeURIComponent(m));
}

/** Query keys: strict encoding, but brackets stay readable (deepObject / Rails / Stripe style). */
export function encodeQueryKey(key: string): string {
  return encodeStrict(key).replace(/%5B/g, '[').replace(/%5D/g, ']');
}

/** String form of a primitive for a URL or header. Objects fall back to compact JSON. */
export function primitiveToString(v: unknown): string {
  if (v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
