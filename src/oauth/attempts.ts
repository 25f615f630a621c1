// Per-client-IP limit on API-key submissions to the consent page, counted exactly in the per-key rate-limit Durable
// Object (src/auth/rate-limit.ts) under a name no key id can take. The count is taken before the key is checked,
// so a blocked client learns nothing about the keys it sends; right keys count too (the DO can only count and
// refuse), which a person authorizing a few clients never notices.
import type { Rate } from '../auth/keys-core.ts';
import { checkRate, type RateDecision } from '../auth/rate-limit.ts';
import { log } from '../lib/log.ts';

/** The client's address as Cloudflare reports it; IPv6 by /64, since one host can hold a whole /64. */
export function clientIp(request: Request): string {
  const raw = (request.headers.get('cf-connecting-ip') ?? '').trim();
  if (!raw) return 'unknown';
  if (!raw.includes(':')) return raw;
  const groups = expandIpv6(raw);
  return groups ? `${groups.slice(0, 4).join(':')}::/64` : raw;
}

export type AttemptDecision = { ok: true } | { ok: false; retryAfter: number } | { ok: false; unavailable: true };

/** Counts one key submission from this IP. Fails closed: without the limiter, consent waits rather than allow guessing. */
export async function countKeyAttempt(ns: DurableObjectNamespace | undefined, ip: string, rate: Rate): Promise<AttemptDecision> {
  if (!ns) return { ok: false, unavailable: true };
  let decision: RateDecision;
  try {
    decision = await checkRate(ns, `consent-ip:${ip}`, rate);
  } catch (e) {
    log('consent_limiter_error', { error: e instanceof Error ? e.message : 'error' });
    return { ok: false, unavailable: true };
  }
  return decision.ok ? { ok: true } : { ok: false, retryAfter: decision.resetSeconds };
}

function expandIpv6(address: string): string[] | undefined {
  const [head, tail, ...rest] = address.toLowerCase().split('::');
  if (rest.length) return undefined;
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return undefined;
  const groups = [...left, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...right];
  return groups.every((g) => /^[0-9a-f]{1,4}$/.test(g)) ? groups.map((g) => g.replace(/^0+(?=.)/, '')) : undefined;
}
