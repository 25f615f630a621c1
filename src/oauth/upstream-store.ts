// The upstream tokens of an account a user connected on the consent page, sealed in OAUTH_KV (docs/oauth.md,
// "Per-user OAuth to the upstream"):
//   upstream-pending:<sha256(handle)>   while the consent is open: sealed under a key derived from the consent handle,
//                                        which only the browser's form holds (600 s, the consent's own lifetime)
//   upstream-tokens:<userId>:<grantId>  once granted: sealed under the grant's own random key, which only the grant's
//                                        props hold (the library encrypts them for token holders), so storage alone,
//                                        even with every deployment secret, opens neither
// Revoking the grant deletes the record: every path the library takes deletes `grant:<userId>:<grantId>` through
// `withGrantCleanup`'s OAUTH_KV, which deletes the record with it; the keys CLI deletes both. A grant that merely
// expires leaves its record to its own TTL, unreadable: its key went with the grant.
import type { Env } from '../config.ts';
import { base64ToBytes, bytesToBase64Url, sha256Hex } from '../lib/bytes.ts';

/** One scheme's tokens. `useUntil`: ms since the epoch after which the access token is refreshed before use. */
export interface StoredToken {
  access: string;
  refresh?: string;
  useUntil: number;
}

/** Tokens by scheme name. */
export type TokenSet = Record<string, StoredToken>;

export const TOKENS_PREFIX = 'upstream-tokens:';
const PENDING_PREFIX = 'upstream-pending:';
const PENDING_TTL_SECONDS = 600;
const GRANT_KEY = /^grant:([^:]+):([^:]+)$/;

export const tokensKey = (userId: string, grantId: string) => `${TOKENS_PREFIX}${userId}:${grantId}`;

/** A new grant's sealing key: 32 random bytes, base64url, kept only in the grant's props. */
export function newGrantSeal(): string {
  return bytesToBase64Url(crypto.getRandomValues(new Uint8Array(32)));
}

export async function writeGrantTokens(kv: KVNamespace, userId: string, grantId: string, seal: string, tokens: TokenSet, ttlSeconds: number): Promise<void> {
  const name = tokensKey(userId, grantId);
  await kv.put(name, await sealJson(await importKey(base64ToBytes(seal)), tokens, name), { expirationTtl: ttlSeconds });
}

/** The grant's tokens, or undefined when there are none (never connected, deleted, expired, or not this grant's). */
export async function readGrantTokens(kv: KVNamespace, userId: string, grantId: string, seal: string): Promise<TokenSet | undefined> {
  const name = tokensKey(userId, grantId);
  const stored = await kv.get(name);
  return stored ? openJson(await importKey(base64ToBytes(seal)), stored, name) : undefined;
}

export function deleteGrantTokens(kv: KVNamespace, userId: string, grantId: string): Promise<void> {
  return kv.delete(tokensKey(userId, grantId));
}

export async function savePending(kv: KVNamespace, handle: string, tokens: TokenSet): Promise<void> {
  const name = PENDING_PREFIX + (await sha256Hex(handle));
  await kv.put(name, await sealJson(await handleKey(handle), tokens, name), { expirationTtl: PENDING_TTL_SECONDS });
}

/** What this consent has connected so far ({} when nothing). */
export async function loadPending(kv: KVNamespace, handle: string): Promise<TokenSet> {
  if (!handle) return {};
  const name = PENDING_PREFIX + (await sha256Hex(handle));
  const stored = await kv.get(name);
  return (stored ? await openJson(await handleKey(handle), stored, name) : undefined) ?? {};
}

export async function dropPending(kv: KVNamespace, handle: string): Promise<void> {
  if (handle) await kv.delete(PENDING_PREFIX + (await sha256Hex(handle)));
}

const cleaned = new WeakMap<Env, Env>();

/**
 * `env` with an OAUTH_KV whose deletion of a grant record also deletes that grant's upstream tokens: handed to the
 * library wherever it may revoke a grant (revokeGrant, RFC 7009 revocation, a new grant replacing an old one, a
 * refused code or refresh), so no revocation path leaves a connected account's tokens behind.
 */
export function withGrantCleanup(env: Env): Env {
  const kv = env.OAUTH_KV;
  if (!kv) return env;
  let out = cleaned.get(env);
  if (!out) {
    const proxy = new Proxy(kv, {
      get(target, prop) {
        if (prop === 'delete') {
          return async (key: string) => {
            await target.delete(key);
            const grant = GRANT_KEY.exec(key);
            if (grant) await target.delete(tokensKey(grant[1]!, grant[2]!));
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    cleaned.set(env, (out = { ...env, OAUTH_KV: proxy }));
  }
  return out;
}

// AES-256-GCM with the record's name as additional data: a sealed value opens only under its own name.
async function sealJson(key: CryptoKey, value: TokenSet, name: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: new TextEncoder().encode(name) }, key, new TextEncoder().encode(JSON.stringify(value)));
  return `${bytesToBase64Url(iv)}.${bytesToBase64Url(new Uint8Array(sealed))}`;
}

async function openJson(key: CryptoKey, stored: string, name: string): Promise<TokenSet | undefined> {
  try {
    const [iv, sealed] = stored.split('.');
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: base64ToBytes(iv!), additionalData: new TextEncoder().encode(name) }, key, base64ToBytes(sealed!));
    const value: unknown = JSON.parse(new TextDecoder().decode(plain));
    return isTokenSet(value) ? value : undefined;
  } catch {
    // Another key (a grant's record under a forged name) or a damaged value: as if there were none.
    return undefined;
  }
}

function isTokenSet(x: unknown): x is TokenSet {
  if (!x || typeof x !== 'object' || Array.isArray(x)) return false;
  return Object.values(x).every((t: Partial<StoredToken>) => t && typeof t.access === 'string' && typeof t.useUntil === 'number' && (t.refresh === undefined || typeof t.refresh === 'string'));
}

function importKey(raw: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']);
}

/** The pending record's key: only the holder of the consent handle (the page's form) can derive it. */
async function handleKey(handle: string): Promise<CryptoKey> {
  return importKey(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`upstream-pending-key:${handle}`))));
}

/**
 * How long a grant's tokens are kept: the grant's own longest lifetime (its refresh lifetime, or its idle one if
 * longer) and the 10 minutes its code may wait, renewed at every refresh of the upstream token.
 */
export function tokensTtl(settings: { refreshTokenTtl: number; refreshIdleTtl: number | undefined }): number {
  return Math.max(settings.refreshTokenTtl, settings.refreshIdleTtl ?? 0) + 600;
}
