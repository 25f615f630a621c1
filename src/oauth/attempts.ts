// Per-client-IP limits on what anyone with the URL can do without a key: API-key submissions on the consent page,
// client registrations (each stored) and consent pages opened (each stores a transaction). Counted exactly in the
// rate-limit Durable Object (src/auth/rate-limit.ts) under names no key id can take (`<what>-ip:<address>`).
// A key submission is counted before the key is checked, so a blocked client learns nothing about the keys it
// sends; right keys count too (the DO can only count and refuse), which a person authorizing a few clients never
// notices.
import type { Rate } from '../auth/keys-core.ts';
import { checkRate, type RateDecision } from '../auth/rate-limit.ts';
import { log } from '../lib/log.ts';

/**
 * Where a client's address comes from (CLIENT_ADDRESS). `cloudflare`: the CF-Connecting-IP header, which Cloudflare's
 * edge sets on every request it hands a Worker, replacing any the client sent. `shared`: nowhere; every client is
 * counted in one bucket. `auto` (the default): `shared` when the request names a loopback host, which the edge never
 * routes to a Worker, so it came to a local server (`wrangler dev`, `npm start`), which passes a client's own
 * CF-Connecting-IP through; `cloudflare` otherwise.
 */
export type ClientAddress = 'cloudflare' | 'shared' | 'auto';

/** The bucket every client shares where no address can be trusted. */
export const SHARED_BUCKET = 'shared';

/** The client's address as the source trusted here reports it; IPv6 by /64, since one host can hold a whole /64. */
export function clientIp(request: Request, source: ClientAddress): string {
  if (source === 'shared' || (source === 'auto' && loopbackHost(request))) return SHARED_BUCKET;
  const raw = (request.headers.get('cf-connecting-ip') ?? '').trim();
  if (!raw) return 'unknown';
  if (!raw.includes(':')) return raw;
  const groups = expandIpv6(raw);
  return groups ? `${groups.slice(0, 4).join(':')}::/64` : raw;
}

export type AttemptDecision = { ok: true } | { ok: false; retryAfter: number } | { ok: false; unavailable: true };

/** What is counted per IP: key submissions (`consent`, as before), registrations, consent pages opened. */
export type IpBucket = 'consent' | 'register' | 'authorize';

/**
 * Counts one action from this IP. Fails closed: without the limiter, key checks and the storage these endpoints
 * write wait rather than go unbounded.
 */
export async function countFromIp(ns: DurableObjectNamespace | undefined, bucket: IpBucket, ip: string, rate: Rate): Promise<AttemptDecision> {
  if (!ns) return { ok: false, unavailable: true };
  let decision: RateDecision;
  try {
    decision = await checkRate(ns, `${bucket}-ip:${ip}`, rate);
  } catch (e) {
    log('oauth_limiter_error', { bucket, error: e instanceof Error ? e.message : 'error' });
    return { ok: false, unavailable: true };
  }
  if (!decision.ok) log('oauth_ip_limited', { bucket });
  return decision.ok ? { ok: true } : { ok: false, retryAfter: decision.resetSeconds };
}

function loopbackHost(request: Request): boolean {
  const host = (request.headers.get('host') ?? new URL(request.url).host).toLowerCase();
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d*$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(name) || name === '::1';
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
