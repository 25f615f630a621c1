// Per-key rate limits, counted exactly in one Durable Object per key (named by the key's public id).
//
// Why a Durable Object rather than the [[ratelimits]] binding: the binding's limit and period are fixed in
// wrangler.toml (period 10 or 60 s) and it counts per Cloudflare location, approximately. Keys carry arbitrary
// "n per second|minute|hour" limits, and a customer's quota should be the same wherever they connect from.
//
// Window: fixed, starting at the first request after the previous window ended (not aligned to the clock), so
// `limit` requests are allowed in any window and the (limit+1)-th is refused until the window ends.
import { DurableObject } from 'cloudflare:workers';
import { log, logOnce } from '../lib/log.ts';
import { periodMs, type Rate } from './keys-core.ts';

export interface RateDecision {
  ok: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (at least 1). */
  resetSeconds: number;
}

interface Window {
  start: number;
  count: number;
  periodMs: number;
}

export class KeyRateLimiter extends DurableObject {
  private window: Window | undefined;
  private loaded = false;

  async hit(limit: number, period: number): Promise<RateDecision> {
    const { granted, ...rest } = await this.hitMany(limit, period, 1);
    return { ok: granted === 1, ...rest };
  }

  /** Counts up to `count` requests at once (a JSON-RPC batch's messages): how many of them the window still allows. */
  async hitMany(limit: number, period: number, count: number): Promise<Omit<RateDecision, 'ok'> & { granted: number }> {
    if (!this.loaded) {
      // Long windows survive eviction; short ones are cheaper kept in memory (an evicted idle DO has outlived them).
      this.window = (await this.ctx.storage.get<Window>('w')) ?? undefined;
      this.loaded = true;
    }
    const now = Date.now();
    let w = this.window;
    if (!w || w.periodMs !== period || now >= w.start + w.periodMs) w = this.window = { start: now, count: 0, periodMs: period };
    const resetSeconds = Math.max(1, Math.ceil((w.start + w.periodMs - now) / 1000));
    const granted = Math.max(0, Math.min(count, limit - w.count));
    if (granted === 0) return { granted, limit, remaining: 0, resetSeconds };
    w.count += granted;
    if (period > 60_000) await this.ctx.storage.put('w', w);
    return { granted, limit, remaining: limit - w.count, resetSeconds };
  }
}

/** Counts one request against the key's limit. `ns` is the KEY_RATE_LIMITER binding, which serves KeyRateLimiter. */
export async function checkRate(ns: DurableObjectNamespace, keyId: string, rate: Rate): Promise<RateDecision> {
  const stub = ns.get(ns.idFromName(keyId)) as DurableObjectStub<KeyRateLimiter>;
  return stub.hit(rate.limit, periodMs(rate.period));
}

/**
 * Counts one request against a key's limit, failing open: with no binding, or when the limiter cannot be reached
 * (logged for the operator), the request is let through and the answer is undefined.
 */
export async function countRequest(ns: DurableObjectNamespace | undefined, keyId: string, rate: Rate): Promise<RateDecision | undefined> {
  if (!ns) {
    logOnce('KEY_RATE_LIMITER', 'binding_missing', { binding: 'KEY_RATE_LIMITER', effect: 'per-key rate limits are not enforced' });
    return undefined;
  }
  let decision: RateDecision | undefined;
  try {
    decision = await checkRate(ns, keyId, rate);
  } catch (e) {
    // Fail open: a limiter outage should not take every customer down.
    log('rate_limit_error', { key: keyId, error: e instanceof Error ? e.message : 'error' });
    return undefined;
  }
  if (!decision.ok) log('rate_limited', { key: keyId });
  return decision;
}

/** What a batch's further messages got: how many of `count` may run, and the window's state for the refusal. */
export type BatchDecision = Omit<RateDecision, 'ok'> & { granted: number };

/**
 * Counts `count` more requests (the messages of a JSON-RPC batch beyond the one its HTTP request was charged) against
 * a key's limit in one round trip, failing open like `countRequest`.
 */
export async function countMessages(ns: DurableObjectNamespace | undefined, keyId: string, rate: Rate, count: number): Promise<BatchDecision | undefined> {
  if (!ns || count <= 0) return undefined;
  let decision: BatchDecision;
  try {
    const stub = ns.get(ns.idFromName(keyId)) as DurableObjectStub<KeyRateLimiter>;
    decision = await stub.hitMany(rate.limit, periodMs(rate.period), count);
  } catch (e) {
    log('rate_limit_error', { key: keyId, error: e instanceof Error ? e.message : 'error' });
    return undefined;
  }
  if (decision.granted < count) log('rate_limited', { key: keyId, refused: count - decision.granted });
  return decision;
}

/** The words a refusal over the limit says, for the HTTP 429 and for a batch message alike. */
export function rateLimitText(limit: number, period: string, resetSeconds: number): string {
  return `This key allows ${limit} requests per ${period}. Retry after ${resetSeconds} s.`;
}
