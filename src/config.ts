// Worker configuration: the one Env type (wrangler vars, secrets and bindings) and the Config derived from it.
// It imports only the limit defaults, so every folder can depend on it.
import { LIMIT_DEFAULTS } from './limit-defaults.ts';

export interface Env {
  UPSTREAM_URL?: string;
  CREDENTIAL_MODE?: string;
  API_KEY?: string;
  ALLOWED_HOSTS?: string;
  DEFAULT_TOOLSETS?: string;
  UPSTREAM_TIMEOUT_MS?: string;
  MAX_RESPONSE_BYTES?: string;
  MAX_RESULT_TOKENS?: string;
  /** Key records (src/auth); absent = only API_KEY is accepted. */
  KEYS?: KVNamespace;
  /** Per-key rate limits: the KeyRateLimiter Durable Object (src/auth/rate-limit.ts types its stubs). */
  KEY_RATE_LIMITER?: DurableObjectNamespace;
  /** Seconds a key record is reused per isolate before KV is read again (default 30). */
  KEY_CACHE_TTL_SECONDS?: string;
  /** gateway mode: the operator's upstream secret. */
  UPSTREAM_TOKEN?: string;
  /** gateway/customer modes: header carrying the upstream credential (default authorization, sent as "Bearer <value>"). */
  UPSTREAM_AUTH_HEADER?: string;
  /** customer mode: base64 of 32 bytes; decrypts the upstream credential stored with each key. */
  CREDENTIAL_ENCRYPTION_KEY?: string;
  /** Holds the runtime schema drop list (src/catalogue/schema-drops.ts); KEYS is used when absent. */
  CONFIG?: KVNamespace;
  /** Seconds an isolate reuses the schema drop list before reading it again (default 60). */
  SCHEMA_DROPS_TTL_SECONDS?: string;
  /** Bearer for /admin routes; unset disables them. */
  ADMIN_TOKEN?: string;
  /** Usage store (src/usage, docs/usage.md); absent = no metering. */
  USAGE?: D1Database;
  /** Static assets: the shards of a catalogue too large for one module (src/catalogue/asset-shards.ts). */
  ASSETS?: Fetcher;
}

export type CredentialMode = 'key' | 'passthrough' | 'gateway' | 'customer';
const MODES: readonly CredentialMode[] = ['key', 'passthrough', 'gateway', 'customer'];


export interface Config {
  upstreamUrl: string;
  credentialMode: CredentialMode;
  apiKey: string | undefined;
  keyCacheTtlMs: number;
  /** Lower-case header name for the upstream credential in gateway/customer modes. */
  upstreamAuthHeader: string;
  allowedHosts: string[];
  /** Toolsets served at bare /mcp; undefined = the whole catalogue. */
  defaultToolsets: string[] | undefined;
  timeoutMs: number;
  maxResponseBytes: number;
  maxResultTokens: number;
}

export function readConfig(env: Env, defaultUpstream: string, catalogueDefaultToolsets?: string[]): Config {
  const mode = (env.CREDENTIAL_MODE ?? 'key').trim() || 'key';
  if (!(MODES as readonly string[]).includes(mode)) {
    throw new Error(`CREDENTIAL_MODE must be one of ${MODES.join(', ')}; got "${mode}"`);
  }
  return {
    upstreamUrl: (env.UPSTREAM_URL ?? '').trim() || defaultUpstream,
    credentialMode: mode as CredentialMode,
    apiKey: env.API_KEY || undefined,
    keyCacheTtlMs: positiveInt(env.KEY_CACHE_TTL_SECONDS, 30) * 1000,
    upstreamAuthHeader: (env.UPSTREAM_AUTH_HEADER ?? '').trim().toLowerCase() || 'authorization',
    allowedHosts: list(env.ALLOWED_HOSTS)?.map((h) => h.toLowerCase()) ?? [],
    defaultToolsets: list(env.DEFAULT_TOOLSETS) ?? catalogueDefaultToolsets,
    timeoutMs: positiveInt(env.UPSTREAM_TIMEOUT_MS, LIMIT_DEFAULTS.timeoutMs),
    maxResponseBytes: positiveInt(env.MAX_RESPONSE_BYTES, LIMIT_DEFAULTS.maxResponseBytes),
    maxResultTokens: positiveInt(env.MAX_RESULT_TOKENS, LIMIT_DEFAULTS.maxResultTokens),
  };
}

function positiveInt(raw: string | undefined, fallback: number): number {
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

function list(raw: string | undefined): string[] | undefined {
  const items = (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return items.length ? items : undefined;
}
