// Low-level encoders shared by request building: strict percent-encoding and base64.

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

export class Base64Error extends Error {}

/** Decodes standard or URL-safe base64 (whitespace and missing padding tolerated). Throws Base64Error. */
export function base64ToBytes(input: string): Uint8Array {
  let s = input.replace(/\s+/g, '');
  const dataUrl = /^data:[^,]*;base64,/i.exec(s);
  if (dataUrl) s = s.slice(dataUrl[0].length);
  s = s.replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.replace(/=+$/, '').length % 4 === 1) {
    throw new Base64Error('not valid base64');
  }
  s = s.replace(/=+$/, '');
  while (s.length % 4 !== 0) s += '=';
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Standard base64 with padding; chunked so large inputs do not blow the argument limit. */
export function bytesToBase64(bytes: Uint8Array): string {
  const chunk = 0x8000;
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += chunk) {
    parts.push(String.fromCharCode(...bytes.subarray(i, i + chunk)));
  }
  return btoa(parts.join(''));
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
