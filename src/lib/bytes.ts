// Bytes: hex, base64, SHA-256 and constant-time comparison. One definition for the Worker, the stdio package and
// the Node scripts; Web Crypto only (crypto.subtle exists in workerd and in Node 22).

export class Base64Error extends Error {}

export function hex(bytes: ArrayBuffer | Uint8Array): string {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let s = '';
  for (let i = 0; i < b.length; i++) s += b[i]!.toString(16).padStart(2, '0');
  return s;
}

/** Lower- or upper-case hex of even length; anything else throws. */
export function fromHex(s: string): Uint8Array<ArrayBuffer> {
  if (s.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(s)) throw new Error('not a hex string');
  const out = new Uint8Array(s.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(i * 2, i * 2 + 2), 16);
  return out;
}

const encoder = new TextEncoder();
/**
 * Scratch space for utf8Length: encoding into it is the runtime's native UTF-8 pass with no allocation, several times
 * faster than a regex scan for non-ASCII. Strings up to SCRATCH_CHARS (a result within its budget) fit; longer ones
 * (base64 files) are encoded once into memory that is freed again.
 */
const SCRATCH_CHARS = 128 * 1024;
let scratch: Uint8Array | undefined;

/** UTF-8 size of a string. */
export function utf8Length(s: string): number {
  if (s.length > SCRATCH_CHARS) return encoder.encode(s).byteLength;
  // A UTF-16 code unit takes at most 3 UTF-8 bytes.
  scratch ??= new Uint8Array(SCRATCH_CHARS * 3);
  return encoder.encodeInto(s, scratch).written;
}

export async function sha256(data: string | Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  const input = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  return new Uint8Array(await crypto.subtle.digest('SHA-256', input as Uint8Array<ArrayBuffer>));
}

export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  return hex(await sha256(data));
}

/** Standard base64 with padding; chunked so large inputs do not overflow the argument limit. */
export function bytesToBase64(bytes: Uint8Array): string {
  const chunk = 0x8000;
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += chunk) parts.push(String.fromCharCode(...bytes.subarray(i, i + chunk)));
  return btoa(parts.join(''));
}

/** base64url without padding (RFC 4648 §5). */
export function bytesToBase64Url(bytes: Uint8Array): string {
  return bytesToBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Decodes standard or URL-safe base64 (whitespace, a data: URL prefix and missing padding tolerated). Throws Base64Error. */
export function base64ToBytes(input: string): Uint8Array<ArrayBuffer> {
  let s = input.replace(/\s+/g, '');
  const dataUrl = /^data:[^,]*;base64,/i.exec(s);
  if (dataUrl) s = s.slice(dataUrl[0].length);
  s = s.replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.replace(/=+$/, '').length % 4 === 1) throw new Base64Error('not valid base64');
  s = s.replace(/=+$/, '');
  while (s.length % 4 !== 0) s += '=';
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * Constant-time equality of two byte strings (time depends only on the length). Compare digests, not raw secrets,
 * so the length says nothing either. Portable: Node has no crypto.subtle.timingSafeEqual.
 */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
