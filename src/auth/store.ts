// Key records in Workers KV, behind a small per-isolate cache.
//
// Propagation: a record read here is reused for up to KEY_CACHE_TTL_SECONDS (default 30 s; unknown keys 10 s),
// and KV itself serves reads from its edge cache for up to `cacheTtl` (30 s) plus its own global propagation
// (up to ~60 s). So a key created or revoked by the CLI is seen by every isolate within about 90 s, usually
// much sooner. Once this isolate has seen a record revoked, an older copy from KV cannot make it valid again here.
import { log } from '../lib/log.ts';
import { Lru, roughBytes } from '../lib/lru.ts';
import { isKeyRecord, RECORD_PREFIX, USED_PREFIX, type KeyRecord } from './keys-core.ts';

const NEGATIVE_TTL_MS = 10_000;
/** KV edge-cache TTL for record reads (the KV minimum is 30 s). */
const KV_CACHE_TTL_S = 30;
// Every bearer a client sends is looked up (a random one leaves a negative entry): bounded by count and bytes.
const MAX_ENTRIES = 10_000;
const MAX_BYTES = 8 * 1024 * 1024;

interface Entry {
  record: KeyRecord | null;
  until: number;
}

interface IsolateCache {
  entries: Lru<string, Entry>;
  /** hash → the last day this isolate recorded as used. */
  used: Lru<string, string>;
}

const caches = new WeakMap<KVNamespace, IsolateCache>();

function cacheFor(kv: KVNamespace): IsolateCache {
  let c = caches.get(kv);
  if (!c) caches.set(kv, (c = { entries: new Lru('key records', MAX_ENTRIES, MAX_BYTES), used: new Lru('keys used today', MAX_ENTRIES, MAX_BYTES) }));
  return c;
}

function remember(c: IsolateCache, hash: string, record: KeyRecord | null, ttlMs: number): void {
  c.entries.set(hash, { record, until: Date.now() + ttlMs }, 160 + (record ? roughBytes(record) : 0));
}

/** The record for a key hash, or null. Reads KV at most once per TTL per isolate. */
export async function lookupRecord(kv: KVNamespace, hash: string, ttlMs: number): Promise<KeyRecord | null> {
  const c = cacheFor(kv);
  const hit = c.entries.get(hash);
  if (hit && hit.until > Date.now()) return hit.record;
  let record: KeyRecord | null = null;
  const raw = await kv.get(RECORD_PREFIX + hash, { type: 'json', cacheTtl: KV_CACHE_TTL_S });
  if (isKeyRecord(raw)) record = raw;
  else if (raw !== null) log('key_record_invalid', { key: hash.slice(0, 12) });
  // Keep a revocation this isolate already knows about, even if KV answers with an older copy.
  if (hit?.record?.revokedAt && record && !record.revokedAt) record = hit.record;
  remember(c, hash, record, record ? ttlMs : NEGATIVE_TTL_MS);
  return record;
}

/** Records the day a key was last used, at most once per day per key per isolate. Never blocks the request. */
export function touchLastUsed(kv: KVNamespace, hash: string, day: string, waitUntil: (p: Promise<unknown>) => void): void {
  const c = cacheFor(kv);
  if (c.used.get(hash) === day) return;
  c.used.set(hash, day, 200);
  waitUntil(
    (async () => {
      // Other isolates may have written today already; a cached read is cheaper than a write.
      const current = await kv.get(USED_PREFIX + hash, { cacheTtl: 3600 });
      if (current !== day) await kv.put(USED_PREFIX + hash, day, { metadata: { day } });
    })().catch((e: unknown) => log('key_touch_failed', { key: hash.slice(0, 12), error: e instanceof Error ? e.name : 'error' })),
  );
}

/** Drops this isolate's cached records, so the next lookup reads KV (the auth timing test measures that path). */
export function clearKeyCache(kv: KVNamespace): void {
  caches.get(kv)?.entries.clear();
}
