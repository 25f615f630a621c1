// The isolate's one usage aggregator, configured from the Worker's env (bindings and vars).
import { UsageAggregator, type UsageStats } from './aggregator.ts';
import { readUsageConfig, type UsageVars } from './config.ts';

export interface UsageEnv extends UsageVars {
  /** The usage store (wrangler.toml [[d1_databases]] binding USAGE). */
  USAGE?: D1Database;
}

let aggregator: UsageAggregator | undefined;
let warned = false;

/**
 * The isolate's aggregator, or undefined when metering is off (USAGE_METERING=off) or there is no USAGE binding.
 * One per isolate, so calls from every request join the same batches; the binding and delay follow the latest env.
 */
export function usageFor(env: UsageEnv): UsageAggregator | undefined {
  const config = readUsageConfig(env);
  if (!config.enabled) return undefined;
  if (!env.USAGE) {
    if (!warned) console.log(JSON.stringify({ event: 'usage_disabled', message: 'USAGE binding missing: usage is not metered' }));
    warned = true;
    return undefined;
  }
  aggregator ??= new UsageAggregator();
  aggregator.db = env.USAGE;
  aggregator.flushDelayMs = config.flushDelayMs;
  return aggregator;
}

/** This isolate's metering counters (pending, written, lost), or undefined before the first metered call. */
export function isolateUsageStats(): UsageStats | undefined {
  return aggregator?.stats();
}
