// Usage settings from wrangler vars (docs/usage.md). Runtime-neutral: the CLI reads the same vars from wrangler.toml.

export interface UsageVars {
  USAGE_METERING?: string;
  USAGE_RETENTION_DAYS?: string;
  USAGE_HOURLY_RETENTION_DAYS?: string;
  USAGE_FLUSH_MS?: string;
}

export interface Retention {
  /** Days of daily rows kept. */
  dailyDays: number;
  /** Days of hourly rows kept. */
  hourlyDays: number;
}

export interface UsageConfig {
  /** USAGE_METERING: false when "off". */
  enabled: boolean;
  flushDelayMs: number;
  retention: Retention;
}

export const DEFAULT_RETENTION: Readonly<Retention> = { dailyDays: 90, hourlyDays: 14 };
export const DEFAULT_FLUSH_MS = 5000;

export function readUsageConfig(vars: UsageVars): UsageConfig {
  const metering = (vars.USAGE_METERING ?? '').trim().toLowerCase();
  return {
    enabled: !['off', 'false', '0', 'no'].includes(metering),
    flushDelayMs: Math.min(20_000, count(vars.USAGE_FLUSH_MS, DEFAULT_FLUSH_MS, true)),
    retention: retentionOf(vars),
  };
}

export function retentionOf(vars: UsageVars): Retention {
  return {
    dailyDays: count(vars.USAGE_RETENTION_DAYS, DEFAULT_RETENTION.dailyDays),
    hourlyDays: count(vars.USAGE_HOURLY_RETENTION_DAYS, DEFAULT_RETENTION.hourlyDays),
  };
}

function count(raw: string | undefined, fallback: number, zeroOk = false): number {
  const s = (raw ?? '').trim();
  const n = Number(s);
  return s && Number.isInteger(n) && (n > 0 || (zeroOk && n === 0)) ? n : fallback;
}
