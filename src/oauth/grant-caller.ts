// The Caller for a request that carries an OAuth access token, re-derived from the grant's props on every request:
// the key record is read as for a static key (same cache, so a revoked or expired key stops every grant made from
// it within the key-revocation bound of docs/keys.md), its rate limit and upstream credential apply unchanged,
// and the scope is the key's own scope intersected with the narrowing chosen on the consent page.
import { customerUpstream, enforceRate, operatorUpstream, recordScope, refuse, type AuthContext, type AuthOutcome } from '../auth/bearer.ts';
import type { KeyRecord } from '../auth/keys-core.ts';
import { lookupRecord, touchLastUsed } from '../auth/store.ts';
import { intersect } from '../catalogue/slices.ts';
import type { Config, Env } from '../config.ts';
import { fromHex, sha256Hex, timingSafeEqual } from '../lib/bytes.ts';
import { log } from '../lib/log.ts';
import { isGrantProps, type KeyRef } from './grant.ts';

export type KeyStatus = { ok: true; record?: KeyRecord } | { ok: false; reason: 'unknown' | 'revoked' | 'expired' | 'operator_key_changed' };

const REVOKED = 'The API key behind this authorization was revoked or has expired, or the authorization was withdrawn. Authorize again with a current key.';

/** Whether the key a grant was made from still works. Reads nothing but the key record (cached like a static key's). */
export async function keyStatus(ref: KeyRef, config: Config, env: Env, now = Date.now()): Promise<KeyStatus> {
  if (ref.kind === 'operator') {
    // Rotating the API_KEY secret ends every grant made from the old one.
    if (!config.apiKey) return { ok: false, reason: 'operator_key_changed' };
    const same = timingSafeEqual(fromHex(await sha256Hex(config.apiKey)), fromHex(ref.hash));
    return same ? { ok: true } : { ok: false, reason: 'operator_key_changed' };
  }
  if (!env.KEYS) return { ok: false, reason: 'unknown' };
  const record = await lookupRecord(env.KEYS, ref.hash, config.keyCacheTtlMs);
  if (!record || record.hash !== ref.hash) return { ok: false, reason: 'unknown' };
  if (record.revokedAt) return { ok: false, reason: 'revoked' };
  if (record.expiresAt && !(Date.parse(record.expiresAt) > now)) return { ok: false, reason: 'expired' };
  return { ok: true, record };
}

/**
 * `props` as the library decrypted them for `token`. The token joins the caller's secrets, so a tool result that
 * echoes it back is redacted like a static key.
 */
export async function callerFromGrant(request: Request, props: unknown, token: string, config: Config, ctx: AuthContext = {}): Promise<AuthOutcome> {
  if (config.credentialMode === 'passthrough' || !isGrantProps(props)) {
    log('oauth_refused', { reason: 'unusable_grant' });
    return refuse(request, 'invalid_token', REVOKED);
  }
  const env = ctx.env ?? {};
  const status = await keyStatus(props.key, config, env);
  if (!status.ok) {
    log('oauth_refused', { key: props.key.id, reason: status.reason });
    return refuse(request, 'invalid_token', REVOKED);
  }
  const record = status.record;
  if (!record) {
    const upstream = operatorUpstream(config, env);
    if (!upstream.ok) return upstream;
    return { ok: true, caller: { id: `key:${props.key.id}`, scope: intersect({}, props.scope), upstreamHeaders: upstream.headers, secrets: [token, ...upstream.secrets] } };
  }

  const limited = await enforceRate(record, env);
  if (limited) return limited;
  const upstream = await customerUpstream(config, env, record);
  if (!upstream.ok) return upstream;
  touchLastUsed(env.KEYS!, record.hash, new Date().toISOString().slice(0, 10), ctx.waitUntil ?? ((p) => void p));
  return {
    ok: true,
    caller: {
      id: `key:${record.id}`,
      customerId: record.customer.id,
      scope: intersect(recordScope(record), props.scope),
      upstreamHeaders: upstream.headers,
      secrets: [token, ...upstream.secrets],
      ...(record.rate ? { rate: { key: record.id, rate: record.rate } } : {}),
    },
  };
}
