// The one path from an API key to a Caller, for a static bearer key (bearer.ts) and for an OAuth grant made from one
// (src/oauth/grant-caller.ts): find the key (the operator's API_KEY, or a KEYS record by hash, digests compared in
// constant time), refuse it when unknown, revoked or expired, then apply its rate limit and upstream credential.
import { intersect, type SliceSpec } from '../catalogue/slices.ts';
import type { Config, Env } from '../config.ts';
import { fromHex, sha256, timingSafeEqual } from '../lib/bytes.ts';
import type { AuthContext, AuthOutcome, Caller, KeyRef } from './caller.ts';
import { authJson } from './challenge.ts';
import type { KeyRecord } from './keys-core.ts';
import { countRequest, rateLimitText, type RateDecision } from './rate-limit.ts';
import { lookupRecord, touchLastUsed } from './store.ts';
import { customerUpstream, operatorUpstream } from './upstream-credential.ts';

/** `id` names a refused key that exists (revoked or expired), for the log line. */
export type KeyStatus = { ok: true; record?: KeyRecord } | { ok: false; reason: 'unknown' | 'revoked' | 'expired' | 'operator_key_changed'; id?: string };

const HASH = /^[0-9a-f]{64}$/;

/** Whether the key `ref` names still works. Reads nothing but the key record (through the per-isolate cache). */
export async function keyStatus(ref: Pick<KeyRef, 'kind' | 'hash'>, config: Config, env: Env, now = Date.now()): Promise<KeyStatus> {
  if (!HASH.test(ref.hash)) return { ok: false, reason: 'unknown' };
  const given = fromHex(ref.hash);
  if (ref.kind === 'operator') {
    // Rotating the API_KEY secret ends every grant made from the old one.
    if (!config.apiKey) return { ok: false, reason: 'operator_key_changed' };
    return timingSafeEqual(await operatorDigest(config.apiKey), given) ? { ok: true } : { ok: false, reason: 'operator_key_changed' };
  }
  if (!env.KEYS) return { ok: false, reason: 'unknown' };
  const record = await lookupRecord(env.KEYS, ref.hash, config.keyCacheTtlMs);
  // The lookup is by hash, so the key's characters never meet an early-exit comparison; the stored hash is still
  // compared in constant time as a check on the record itself.
  if (!record || !HASH.test(record.hash) || !timingSafeEqual(fromHex(record.hash), given)) return { ok: false, reason: 'unknown' };
  if (record.revokedAt) return { ok: false, reason: 'revoked', id: record.id };
  if (record.expiresAt && !(Date.parse(record.expiresAt) > now)) return { ok: false, reason: 'expired', id: record.id };
  return { ok: true, record };
}

/** Whether `digest` (SHA-256 of a presented bearer) is the operator key's, compared in constant time. */
export async function isOperatorDigest(config: Config, digest: Uint8Array): Promise<boolean> {
  return Boolean(config.apiKey) && timingSafeEqual(await operatorDigest(config.apiKey!), digest);
}

export interface CallerOptions {
  /** A narrowing of the key's own scope (an OAuth grant's consent choice). */
  narrowing?: SliceSpec;
  /** The presented bearer, redacted from tool results. */
  token: string;
}

/** The Caller for a key `keyStatus` accepted: its scope, rate limit (429 once used up) and upstream credential. */
export async function callerForKey(ref: KeyRef, status: { ok: true; record?: KeyRecord }, config: Config, ctx: AuthContext, opts: CallerOptions): Promise<AuthOutcome> {
  const env = ctx.env ?? {};
  const record = status.record;
  const narrow = (scope: SliceSpec) => (opts.narrowing ? intersect(scope, opts.narrowing) : scope);
  if (!record) {
    const upstream = operatorUpstream(config, env);
    if (!upstream.ok) return upstream;
    return { ok: true, caller: { id: `key:${ref.id}`, scope: narrow({}), upstream: upstream.upstream, secrets: [opts.token, ...upstream.secrets] }, key: { ref } };
  }
  const limited = await enforceRate(record, env);
  if (limited) return limited;
  const upstream = await customerUpstream(config, env, record);
  if (!upstream.ok) return upstream;
  touchLastUsed(env.KEYS!, record.hash, new Date().toISOString().slice(0, 10), ctx.waitUntil ?? ((p) => void p));
  const caller: Caller = { id: `key:${record.id}`, customerId: record.customer.id, scope: narrow(recordScope(record)), upstream: upstream.upstream, secrets: [opts.token, ...upstream.secrets] };
  if (record.rate) caller.rate = { key: record.id, rate: record.rate };
  return { ok: true, caller, key: { ref, record } };
}

/** What a key record allows: its toolsets, tools and read-only flag. */
export function recordScope(record: KeyRecord): SliceSpec {
  const scope: SliceSpec = {};
  if (record.toolsets?.length) scope.toolsets = record.toolsets;
  if (record.tools?.length) scope.tools = record.tools;
  if (record.readOnly) scope.readOnly = true;
  return scope;
}

/** The key's own rate limit (one Durable Object per key, src/auth/rate-limit.ts): a 429 refusal once it is used up. Fails open. */
async function enforceRate(record: KeyRecord, env: Env): Promise<AuthOutcome | undefined> {
  if (!record.rate) return undefined;
  const decision = await countRequest(env.KEY_RATE_LIMITER, record.id, record.rate);
  return decision && !decision.ok ? rateLimited(record, decision) : undefined;
}

function rateLimited(record: KeyRecord, d: RateDecision): AuthOutcome {
  const response = authJson(
    429,
    { error: 'rate_limited', error_description: rateLimitText(d.limit, record.rate!.period, d.resetSeconds), retry_after: d.resetSeconds },
    { 'retry-after': String(d.resetSeconds), 'ratelimit-limit': String(d.limit), 'ratelimit-remaining': '0', 'ratelimit-reset': String(d.resetSeconds) },
  );
  return { ok: false, response, rateLimitedKey: `key:${record.id}` };
}

// Per-isolate cache of the operator key's digest (never logged).
let operator: { secret: string; digest: Promise<Uint8Array> } | undefined;
function operatorDigest(secret: string): Promise<Uint8Array> {
  if (operator?.secret !== secret) operator = { secret, digest: sha256(secret) };
  return operator.digest;
}
