// The isolate's one usage aggregator, and the per-request meter the call path and the pipeline record through.
import { logOnce } from '../lib/log.ts';
import { UsageAggregator, type UsageStats } from './aggregator.ts';
import { readUsageConfig, type UsageConfig, type UsageVars } from './config.ts';
import type { UsageEvent } from './rows.ts';

export interface UsageEnv extends UsageVars {
  /** The usage store (wrangler.toml [[d1_databases]] binding USAGE). */
  USAGE?: D1Database;
}

/** Records one metered request. Never throws, never waits, never touches the store. */
export type UsageMeter = (e: UsageEvent) => void;

let aggregator: UsageAggregator | undefined;

/**
 * The isolate's aggregator, or undefined when metering is off (USAGE_METERING=off) or there is no USAGE binding.
 * One per isolate, so calls from every request join the same batches; the binding and delay follow the latest env.
 * `config` is the Config's `usage` when the caller has it (read once per env), else read from the vars.
 */
export function usageFor(env: UsageEnv, config: UsageConfig = readUsageConfig(env)): UsageAggregator | undefined {
  if (!config.enabled) return undefined;
  if (!env.USAGE) {
    logOnce('USAGE', 'binding_missing', { binding: 'USAGE', effect: 'usage is not metered' });
    return undefined;
  }
  aggregator ??= new UsageAggregator();
  aggregator.db = env.USAGE;
  aggregator.flushDelayMs = config.flushDelayMs;
  return aggregator;
}

/** One request's meter: events go to the isolate's aggregator, whose flush runs in this request's waitUntil. */
export function meterFor(env: UsageEnv, config: UsageConfig, waitUntil?: (p: Promise<unknown>) => void): UsageMeter | undefined {
  const agg = usageFor(env, config);
  return agg && ((e) => agg.track(e, waitUntil));
}

/** This isolate's metering counters (pending, written, lost), or undefined before the first metered call. */
export function isolateUsageStats(): UsageStats | undefined {
  return aggregator?.stats();
}
