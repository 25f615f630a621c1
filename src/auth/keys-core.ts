// Key format, hashing, records, rates and credential encryption: shared by the Worker and the operator CLI
// (scripts/keys.ts). Only WebCrypto and TextEncoder here, so it runs unchanged in workerd and Node 22.
import { base64ToBytes, bytesToBase64, fromHex, sha256Hex } from '../lib/bytes.ts';

/** `mcp_live_` for production keys, `mcp_test_` for local and test keys; secret scanners can match both. */
const KEY_PREFIXES = ['mcp_live_', 'mcp_test_'] as const;
type KeyPrefix = (typeof KEY_PREFIXES)[number];
/** Random part: 40 base62 characters ≈ 238 bits. Presented keys need at least 32. */
const KEY_RANDOM_CHARS = 40;
const KEY_SHAPE = /^mcp_(live|test)_[A-Za-z0-9]{32,128}$/;
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** KV key of a record: `key:<sha256 hex of the whole key>`. */
export const RECORD_PREFIX = 'key:';
/** KV key of the last-used day: `used:<sha256 hex>`. Kept apart so the Worker never rewrites a record. */
export const USED_PREFIX = 'used:';

type RatePeriod = 'second' | 'minute' | 'hour';
export interface Rate {
  limit: number;
  period: RatePeriod;
}

interface EncryptedSecret {
  /** AES-256-GCM, 12-byte IV, additional data = the key hash (binds the ciphertext to its record). */
  alg: 'A256GCM';
  iv: string;
  ct: string;
}

export interface KeyRecord {
  v: 1;
  /** Public id (first 12 hex of the hash); safe in logs and on the CLI. */
  id: string;
  /** SHA-256 hex of the full key. */
  hash: string;
  /** Prefix plus the first 4 random characters, for people recognising their key ("mcp_live_AbCd"). ASCII: it goes in KV metadata. */
  hint: string;
  customer: { id: string; name: string };
  /** Allowed toolsets; absent = all. */
  toolsets?: string[];
  /** Allowed tools; absent = all tools of the allowed toolsets. */
  tools?: string[];
  readOnly: boolean;
  /** Absent = no per-key limit. */
  rate?: Rate;
  /** ISO timestamps. */
  createdAt: string;
  expiresAt?: string;
  revokedAt?: string;
  /** Upstream credential for CREDENTIAL_MODE=customer. */
  upstreamCredential?: EncryptedSecret;
  /** Upstream credentials by security scheme name for CREDENTIAL_MODE=customer: a JSON object, sealed as one. */
  upstreamCredentials?: EncryptedSecret;
}

/** Additional data of the sealed `upstreamCredentials`, beside the key hash: a ciphertext cannot move between the two fields. */
export const NAMED_CREDENTIALS_CONTEXT = 'upstreamCredentials';

/** Non-secret summary kept as KV metadata, so `keys list` needs one KV list call rather than a get per key. */
export interface KeyMetadata {
  id: string;
  hint: string;
  customer: string;
  customerId: string;
  createdAt: string;
  expiresAt?: string;
  revokedAt?: string;
  rate?: string;
  scope?: string;
}

export function generateKey(prefix: KeyPrefix): string {
  let out = '';
  while (out.length < KEY_RANDOM_CHARS) {
    for (const b of crypto.getRandomValues(new Uint8Array(64))) {
      // 248 = 4 * 62: rejection sampling keeps every character equally likely.
      if (b < 248 && out.length < KEY_RANDOM_CHARS) out += BASE62[b % 62];
    }
  }
  return prefix + out;
}

export function isWellFormedKey(token: string): boolean {
  return KEY_SHAPE.test(token);
}

export function keyId(hashHex: string): string {
  return hashHex.slice(0, 12);
}

function keyHint(key: string): string {
  const prefix = KEY_PREFIXES.find((p) => key.startsWith(p)) ?? '';
  return `${prefix}${key.slice(prefix.length, prefix.length + 4)}`;
}

/** Parses `<n>/<sec|min|hour>` (also s, m, h, second, minute). Throws with a message naming the accepted forms. */
export function parseRate(raw: string): Rate {
  const m = /^\s*(\d+)\s*\/\s*(s|sec|second|m|min|minute|h|hr|hour)\s*$/i.exec(raw);
  const limit = m ? Number(m[1]) : NaN;
  if (!m || !Number.isSafeInteger(limit) || limit < 1) {
    throw new Error(`rate must look like 100/min, 5000/hour or 10/sec (a positive whole number per second, minute or hour); got "${raw}"`);
  }
  const unit = m[2]!.toLowerCase();
  const period: RatePeriod = unit.startsWith('s') ? 'second' : unit.startsWith('m') ? 'minute' : 'hour';
  return { limit, period };
}

export function periodMs(period: RatePeriod): number {
  return period === 'second' ? 1000 : period === 'minute' ? 60_000 : 3_600_000;
}

export function formatRate(rate: Rate): string {
  return `${rate.limit}/${rate.period === 'second' ? 'sec' : rate.period === 'minute' ? 'min' : 'hour'}`;
}

export function metadataOf(r: KeyRecord): KeyMetadata {
  const scope = [
    r.toolsets ? `toolsets=${r.toolsets.join(',')}` : '',
    r.tools ? `tools=${r.tools.join(',')}` : '',
    r.readOnly ? 'readonly' : '',
  ].filter(Boolean).join(' ');
  const md: KeyMetadata = { id: r.id, hint: r.hint, customer: r.customer.name, customerId: r.customer.id, createdAt: r.createdAt };
  if (r.expiresAt) md.expiresAt = r.expiresAt;
  if (r.revokedAt) md.revokedAt = r.revokedAt;
  if (r.rate) md.rate = formatRate(r.rate);
  if (scope) md.scope = scope.length > 400 ? `${scope.slice(0, 400)}…` : scope;
  return md;
}

/** Picks the record names whose public id equals `idOrPrefix`, else whose id or hint starts with it (the CLI's revoke). */
export function matchKeys(entries: Array<{ name: string; metadata?: Partial<KeyMetadata> | null }>, idOrPrefix: string): string[] {
  const idOf = (e: { name: string; metadata?: Partial<KeyMetadata> | null }) => e.metadata?.id ?? e.name.slice(RECORD_PREFIX.length, RECORD_PREFIX.length + 12);
  const exact = entries.filter((e) => idOf(e) === idOrPrefix);
  if (exact.length) return exact.map((e) => e.name);
  return entries.filter((e) => idOf(e).startsWith(idOrPrefix) || e.metadata?.hint?.startsWith(idOrPrefix)).map((e) => e.name);
}

/** Checks a parsed KV value has the fields the Worker relies on; anything else is treated as no record. */
export function isKeyRecord(x: unknown): x is KeyRecord {
  if (!x || typeof x !== 'object') return false;
  const r = x as Partial<KeyRecord>;
  const strings = (a: unknown) => a === undefined || (Array.isArray(a) && a.every((s) => typeof s === 'string'));
  return (
    r.v === 1 &&
    typeof r.id === 'string' &&
    typeof r.hash === 'string' &&
    /^[0-9a-f]{64}$/.test(r.hash) &&
    typeof r.customer?.id === 'string' &&
    typeof r.customer?.name === 'string' &&
    typeof r.readOnly === 'boolean' &&
    typeof r.createdAt === 'string' &&
    strings(r.toolsets) &&
    strings(r.tools)
  );
}

// ---- Upstream credential encryption (CREDENTIAL_MODE=customer) ----

/** The Worker secret CREDENTIAL_ENCRYPTION_KEY: 32 random bytes, base64 or base64url. */
export async function importEncryptionKey(secret: string): Promise<CryptoKey> {
  const raw = base64ToBytes(secret.trim());
  if (raw.length !== 32) throw new Error('CREDENTIAL_ENCRYPTION_KEY must be 32 bytes, base64 encoded (e.g. `openssl rand -base64 32`)');
  return crypto.subtle.importKey('raw', raw, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
}

/** The additional data that binds a ciphertext to its record (the key hash) and, when given, to its field. */
function boundTo(hashHex: string, context?: string): Uint8Array<ArrayBuffer> {
  const hash = fromHex(hashHex);
  if (!context) return hash;
  const tail = new TextEncoder().encode(context);
  const out = new Uint8Array(hash.length + tail.length);
  out.set(hash);
  out.set(tail, hash.length);
  return out;
}

export async function encryptSecret(key: CryptoKey, plaintext: string, hashHex: string, context?: string): Promise<EncryptedSecret> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: boundTo(hashHex, context) }, key, new TextEncoder().encode(plaintext));
  return { alg: 'A256GCM', iv: bytesToBase64(iv), ct: bytesToBase64(new Uint8Array(ct)) };
}

export async function decryptSecret(key: CryptoKey, sealed: EncryptedSecret, hashHex: string, context?: string): Promise<string> {
  const pt = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: base64ToBytes(sealed.iv), additionalData: boundTo(hashHex, context) }, key, base64ToBytes(sealed.ct));
  return new TextDecoder().decode(pt);
}

export interface NewKeyOptions {
  prefix: KeyPrefix;
  customer: { id: string; name: string };
  toolsets?: string[];
  tools?: string[];
  readOnly?: boolean;
  rate?: Rate;
  expiresAt?: string;
  /** Plain upstream credential for CREDENTIAL_MODE=customer, sealed with `encryptionKey`. */
  upstreamCredential?: string;
  /** Plain upstream credentials by security scheme name (CREDENTIAL_MODE=customer), sealed together with `encryptionKey`. */
  upstreamCredentials?: Record<string, string>;
  encryptionKey?: CryptoKey;
  now?: Date;
}

/** Makes a new key and its record. The key itself is returned once and stored nowhere. */
export async function newKey(opts: NewKeyOptions): Promise<{ key: string; hash: string; record: KeyRecord }> {
  const key = generateKey(opts.prefix);
  const hash = await sha256Hex(key);
  const record: KeyRecord = {
    v: 1,
    id: keyId(hash),
    hash,
    hint: keyHint(key),
    customer: opts.customer,
    readOnly: Boolean(opts.readOnly),
    createdAt: (opts.now ?? new Date()).toISOString(),
  };
  if (opts.toolsets?.length) record.toolsets = opts.toolsets;
  if (opts.tools?.length) record.tools = opts.tools;
  if (opts.rate) record.rate = opts.rate;
  if (opts.expiresAt) record.expiresAt = opts.expiresAt;
  if (opts.upstreamCredential !== undefined) {
    if (!opts.encryptionKey) throw new Error('an upstream credential needs CREDENTIAL_ENCRYPTION_KEY to encrypt it');
    record.upstreamCredential = await encryptSecret(opts.encryptionKey, opts.upstreamCredential, hash);
  }
  if (opts.upstreamCredentials && Object.keys(opts.upstreamCredentials).length) {
    if (!opts.encryptionKey) throw new Error('upstream credentials need CREDENTIAL_ENCRYPTION_KEY to encrypt them');
    record.upstreamCredentials = await encryptSecret(opts.encryptionKey, JSON.stringify(opts.upstreamCredentials), hash, NAMED_CREDENTIALS_CONTEXT);
  }
  return { key, hash, record };
}
