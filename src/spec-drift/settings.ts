// What the drift check watches and its bounds, from the Worker's vars and the catalogue header (docs/operations.md,
// "Spec drift"). SPEC_URL empty means the URL the catalogue was built from; a catalogue built from a file has none,
// so the check is off until SPEC_URL names one. "off" turns it off either way.
import type { Env } from '../config.ts';
import { positiveInt } from '../limit-defaults.ts';

export type DriftEnv = Pick<Env, 'SPEC_URL' | 'SPEC_AUTH_HEADER' | 'SPEC_CHECK_CRON' | 'SPEC_CHECK_TIMEOUT_MS' | 'SPEC_MAX_BYTES'>;

export const DRIFT_DEFAULTS = { timeoutMs: 15_000, maxBytes: 16 * 1024 * 1024 } as const;
/** YAML above this is not parsed in the Worker: the yaml library allocates ~30x the text while parsing and takes seconds of CPU. */
export const YAML_MAX_BYTES = 4 * 1024 * 1024;

export type DriftSettings =
  | { enabled: false; reason: string }
  | {
      enabled: true;
      /** The URL fetched, exactly as configured. */
      url: string;
      /** The URL without query, fragment or credentials: what /healthz, KV and the logs show. */
      source: string;
      /** Set when SPEC_URL is not a usable URL: reported as the check's error, never fetched. */
      invalid?: string;
      authHeader?: [string, string];
      cron?: string;
      timeoutMs: number;
      maxBytes: number;
    };

const OFF = /^(off|none|false|0|no)$/i;

/** A URL safe to show: no query (it may carry a token), no fragment, no user:password. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.search = '';
    u.hash = '';
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return url.replace(/[?#].*$/, '').replace(/\/\/[^/@]*@/, '//');
  }
}

export function driftSettings(env: DriftEnv, catalogueSpec: string): DriftSettings {
  const configured = (env.SPEC_URL ?? '').trim();
  if (OFF.test(configured)) return { enabled: false, reason: 'SPEC_URL is off' };
  const url = configured || (/^https?:\/\//i.test(catalogueSpec) ? catalogueSpec : '');
  if (!url) return { enabled: false, reason: 'the catalogue was built from a file; set SPEC_URL to the live spec to check it' };
  const base = {
    enabled: true as const,
    url,
    source: displayUrl(url),
    timeoutMs: positiveInt(env.SPEC_CHECK_TIMEOUT_MS, DRIFT_DEFAULTS.timeoutMs),
    maxBytes: positiveInt(env.SPEC_MAX_BYTES, DRIFT_DEFAULTS.maxBytes),
    ...((env.SPEC_CHECK_CRON ?? '').trim() ? { cron: env.SPEC_CHECK_CRON!.trim() } : {}),
    ...(authHeader(env.SPEC_AUTH_HEADER) ?? {}),
  };
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    /* reported below */
  }
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) return { ...base, invalid: 'SPEC_URL must be an http(s) URL' };
  return base;
}

function authHeader(raw: string | undefined): { authHeader: [string, string] } | undefined {
  const v = (raw ?? '').trim();
  if (!v) return undefined;
  const m = /^([A-Za-z0-9-]+):\s*(.*)$/.exec(v);
  return { authHeader: m ? [m[1]!, m[2]!] : ['Authorization', v] };
}
