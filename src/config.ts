// Worker configuration: the one Env type (wrangler vars, secrets and bindings) and the Config derived from it.
// It imports only the limit defaults and the usage settings (both free of imports), so every folder can depend on it.
import { LIMIT_DEFAULTS, positiveInt, readCodeLimits, type CodeLimits } from './limit-defaults.ts';
import { readUsageConfig, type UsageConfig } from './usage/config.ts';

export interface Env {
  UPSTREAM_URL?: string;
  CREDENTIAL_MODE?: string;
  API_KEY?: string;
  ALLOWED_HOSTS?: string;
  DEFAULT_TOOLSETS?: string;
  UPSTREAM_TIMEOUT_MS?: string;
  MAX_RESPONSE_BYTES?: string;
  MAX_CALLS_PER_KEY?: string;
  MAX_RESULT_TOKENS?: string;
  /** "off" sends JSON results uncompacted (docs/results.md); projection and pages that fit still apply. Default on. */
  COMPACT_RESULTS?: string;
  /** Key records (src/auth); absent = only API_KEY is accepted. */
  KEYS?: KVNamespace;
  /** Per-key rate limits: the KeyRateLimiter Durable Object (src/auth/rate-limit.ts types its stubs). */
  KEY_RATE_LIMITER?: DurableObjectNamespace;
  /** Seconds a key record is reused per isolate before KV is read again (default 30). */
  KEY_CACHE_TTL_SECONDS?: string;
  /** gateway mode: the operator's upstream secret. */
  UPSTREAM_TOKEN?: string;
  /**
   * gateway/customer modes: the header that carries the one upstream credential on every call (UPSTREAM_TOKEN, a key's
   * single stored credential), whatever the spec's schemes say. Unset: as the operation's scheme says, or
   * "Authorization: Bearer <value>" for a spec without schemes (docs/upstream-auth.md).
   */
  UPSTREAM_AUTH_HEADER?: string;
  /** Secret: credentials by security scheme name, a JSON object {"scheme": "value"} (docs/upstream-auth.md). */
  UPSTREAM_CREDENTIALS?: string;
  /** `spec` (default): credentials as the spec's security says; `ignore`: the upstream takes none (a local mock). */
  UPSTREAM_SECURITY?: string;
  /** customer mode: base64 of 32 bytes; decrypts the upstream credential stored with each key. */
  CREDENTIAL_ENCRYPTION_KEY?: string;
  /** Holds the runtime schema drop list (src/schema-health/drops.ts); KEYS is used when absent. */
  CONFIG?: KVNamespace;
  /** Seconds an isolate reuses the schema drop list before reading it again (default 60). */
  SCHEMA_DROPS_TTL_SECONDS?: string;
  /** Counts output-schema mismatches for the whole deployment (src/schema-health/mismatch-counter.ts); absent = per isolate. */
  SCHEMA_MISMATCH_COUNTER?: DurableObjectNamespace;
  /** Mismatches within the window that drop a tool's outputSchema by themselves (default 5, at least 2); "0" or "off" disables. */
  SCHEMA_AUTODROP_THRESHOLD?: string;
  /** The window of SCHEMA_AUTODROP_THRESHOLD, in seconds (default 600). */
  SCHEMA_AUTODROP_WINDOW_SECONDS?: string;
  /** Bearer for /admin routes; unset disables them. */
  ADMIN_TOKEN?: string;
  /** Usage store (src/usage, docs/usage.md); absent = no metering. */
  USAGE?: D1Database;
  /**
   * Signs the Mcp-Session-Id that carries a 2025-era client's profile (src/profiles/session-id.ts; unset: a public
   * local key), and, through a key derived from it, seals confirmation states (src/tools/confirm-state.ts; unset: a
   * random key per isolate).
   */
  SESSION_SECRET?: string;
  /** Which tools ask the person first, for clients that can (docs/confirmation.md): destructive (default), all (every write), off. */
  CONFIRM_WRITES?: string;
  /** "1": a call that needs confirmation from a client that cannot give it is refused, not run (default 0). */
  CONFIRM_WRITES_REQUIRED?: string;
  /** Records each used confirmation, so a replayed one is refused across isolates (src/tools/confirm-ledger-object.ts); absent: per isolate. */
  CONFIRM_LEDGER?: DurableObjectNamespace;
  /** Code mode's sandboxes ([[worker_loaders]]); absent = /mcp/code and ?mode=code answer 501 (docs/code-mode.md). */
  LOADER?: WorkerLoader;
  /** Code mode, per execute: wall time in ms (default 30000). */
  CODE_TIMEOUT_MS?: string;
  /** Code mode, per execute: CPU ms (default 1000); the Dynamic Worker's limits.cpuMs, estimated locally. */
  CODE_CPU_MS?: string;
  /** Code mode, per execute: api calls (default 50). */
  CODE_MAX_CALLS?: string;
  /** Code mode, per execute: loop iterations plus function calls (default 5000000), the guard against endless code. */
  CODE_MAX_STEPS?: string;
  /** Code mode, per execute: MB of bulk allocations (default 64), the guard against memory bombs. */
  CODE_MEMORY_MB?: string;
  /** Code mode, per execute: tokens of console output kept (default 5000; at most half the result budget). */
  CODE_MAX_LOG_TOKENS?: string;
  /** Code mode: the largest program accepted, in characters (default 100000). */
  CODE_MAX_CODE_CHARS?: string;
  /** Code mode, per api call: characters of JSON arguments (default 1048576), refused before they reach the host. */
  CODE_MAX_ARG_BYTES?: string;
  /** Code mode, per execute: characters of JSON arguments of the api calls in flight at once (default 4194304). */
  CODE_MAX_INFLIGHT_ARG_BYTES?: string;
  /** Code mode, per execute: api calls in flight at once (default 6); the sandbox queues the rest. */
  CODE_MAX_PARALLEL_CALLS?: string;
  /** Code mode: executes of one key running at once in an isolate (default 2); more are refused with a retry time. */
  CODE_MAX_EXECUTES_PER_KEY?: string;
  /** Code mode: executes running at once in an isolate, all keys together (default 8). */
  CODE_MAX_EXECUTES?: string;
  /** OAuth front door (src/oauth, docs/oauth.md): `on` (default when OAUTH_KV is bound) or `off` (bearer keys only). */
  OAUTH?: string;
  /** Grants, tokens, registered clients and consent transactions (@cloudflare/workers-oauth-provider). */
  OAUTH_KV?: KVNamespace;
  /** Seconds an access token lives (default 3600, at least 60). */
  OAUTH_ACCESS_TOKEN_TTL?: string;
  /** Seconds a grant (its refresh token) lives after the code exchange (default 30 days, at least 60). */
  OAUTH_REFRESH_TOKEN_TTL?: string;
  /** Optional sliding lifetime: a grant unused for this many seconds expires (at least 60). */
  OAUTH_REFRESH_IDLE_TTL?: string;
  /** Key submissions per client IP on the consent page, `<n>/<sec|min|hour>` (default 10/min). */
  OAUTH_KEY_ATTEMPTS?: string;
  /** Client registrations (POST /register) per client IP, `<n>/<sec|min|hour>` (default 60/hour). */
  OAUTH_REGISTER_RATE?: string;
  /** Consent pages opened (GET /authorize) per client IP, `<n>/<sec|min|hour>` (default 60/hour). */
  OAUTH_AUTHORIZE_RATE?: string;
  /**
   * Where per-IP limits read a client's address: `cloudflare` (CF-Connecting-IP), `shared` (one bucket for all), or
   * `auto` (default: shared for a loopback Host, i.e. a local server; CF-Connecting-IP otherwise). src/oauth/attempts.ts.
   */
  CLIENT_ADDRESS?: string;
  /** Seconds in which a retried refresh gets the same answer instead of ending the grant (default 30; 0: never). */
  OAUTH_REFRESH_RETRY_SECONDS?: string;
  /**
   * What the consent page takes to authorize (docs/oauth.md, "Per-user OAuth to the upstream"): `key` (default: an API
   * key, with the upstream account connected beside it when offered) or `key-or-account` (a connected account alone
   * is enough too).
   */
  OAUTH_SIGN_IN?: string;
  /** Scopes asked of the upstream when a user connects their account, per scheme: {"scheme": "scope1 scope2"} (default: the spec's). */
  UPSTREAM_OAUTH_SCOPES?: string;
  /** Browser origins allowed to call /mcp and the OAuth endpoints, comma separated (src/pipeline/cors.ts). */
  ALLOWED_ORIGINS?: string;
  /** "off" records no usage; /admin/usage and the CLI still read the store (default on). */
  USAGE_METERING?: string;
  /** Days of daily usage rows kept (default 90). */
  USAGE_RETENTION_DAYS?: string;
  /** Days of hourly usage rows kept (default 14). */
  USAGE_HOURLY_RETENTION_DAYS?: string;
  /** Milliseconds an isolate gathers calls before writing them in one batch (default 5000, at most 20000). */
  USAGE_FLUSH_MS?: string;
  /** Static assets: the shards of a catalogue too large for one module (src/catalogue/asset-shards.ts). */
  ASSETS?: Fetcher;
  /** The spec the drift check watches (src/spec-drift): empty = the catalogue's source when it is a URL; "off" = none. */
  SPEC_URL?: string;
  /** Secret: header for a private SPEC_URL, "Name: value" or a bare value sent as Authorization. */
  SPEC_AUTH_HEADER?: string;
  /** Run the drift check only on this cron expression (one of [triggers] crons); empty = on every cron trigger. */
  SPEC_CHECK_CRON?: string;
  /** The drift check's deadline for the whole spec download, ms (default 15000). */
  SPEC_CHECK_TIMEOUT_MS?: string;
  /** The largest spec the drift check reads, bytes (default 16 MiB); YAML is parsed up to 4 MiB of it. */
  SPEC_MAX_BYTES?: string;
}

export type CredentialMode = 'key' | 'passthrough' | 'gateway' | 'customer';
const MODES: readonly CredentialMode[] = ['key', 'passthrough', 'gateway', 'customer'];


export interface Config {
  upstreamUrl: string;
  credentialMode: CredentialMode;
  apiKey: string | undefined;
  keyCacheTtlMs: number;
  /** Lower-case header name for the one upstream credential (UPSTREAM_AUTH_HEADER); undefined: placed by scheme. */
  upstreamAuthHeader: string | undefined;
  /** The operator's credentials by scheme name (UPSTREAM_CREDENTIALS); never logged or shown. */
  upstreamCredentials: Readonly<Record<string, string>>;
  /** Why UPSTREAM_CREDENTIALS could not be read (said at call time, logged once); undefined when it could. */
  upstreamCredentialsError: string | undefined;
  /** `ignore`: the spec's security is not applied (a local mock needs no credential), as for a spec without schemes. */
  upstreamSecurity: 'spec' | 'ignore';
  allowedHosts: string[];
  /** Toolsets served at bare /mcp; undefined = the whole catalogue. */
  defaultToolsets: string[] | undefined;
  timeoutMs: number;
  maxResponseBytes: number;
  maxResultTokens: number;
  /** Upstream calls one key may have running at once in an isolate; more wait their turn (src/tools/call-slots.ts). */
  maxCallsPerKey: number;
  /** Key for Mcp-Session-Id signatures; undefined = the documented local key. */
  sessionSecret: string | undefined;
  /** Drop nulls, empties and hypermedia from JSON results (COMPACT_RESULTS, default on). */
  compactResults: boolean;
  /** Confirmation before calls (CONFIRM_WRITES, CONFIRM_WRITES_REQUIRED; docs/confirmation.md). */
  confirm: ConfirmSettings;
  /** Code mode's per-execute limits (CODE_* vars and MAX_RESULT_TOKENS). */
  code: CodeLimits;
  /** Usage metering and retention (src/usage/config.ts). */
  usage: UsageConfig;
}

export function readConfig(env: Env, defaultUpstream: string, catalogueDefaultToolsets?: string[]): Config {
  const mode = (env.CREDENTIAL_MODE ?? 'key').trim() || 'key';
  if (!(MODES as readonly string[]).includes(mode)) {
    throw new Error(`CREDENTIAL_MODE must be one of ${MODES.join(', ')}; got "${mode}"`);
  }
  const security = (env.UPSTREAM_SECURITY ?? '').trim().toLowerCase() || 'spec';
  if (security !== 'spec' && security !== 'ignore') throw new Error(`UPSTREAM_SECURITY must be spec or ignore; got "${security.slice(0, 40)}"`);
  const credentials = parseCredentialsJson(env.UPSTREAM_CREDENTIALS);
  return {
    upstreamUrl: (env.UPSTREAM_URL ?? '').trim() || defaultUpstream,
    credentialMode: mode as CredentialMode,
    apiKey: env.API_KEY || undefined,
    keyCacheTtlMs: positiveInt(env.KEY_CACHE_TTL_SECONDS, 30) * 1000,
    upstreamAuthHeader: (env.UPSTREAM_AUTH_HEADER ?? '').trim().toLowerCase() || undefined,
    upstreamCredentials: credentials.credentials,
    upstreamCredentialsError: credentials.error,
    upstreamSecurity: security as 'spec' | 'ignore',
    allowedHosts: list(env.ALLOWED_HOSTS)?.map((h) => h.toLowerCase()) ?? [],
    defaultToolsets: list(env.DEFAULT_TOOLSETS) ?? catalogueDefaultToolsets,
    timeoutMs: positiveInt(env.UPSTREAM_TIMEOUT_MS, LIMIT_DEFAULTS.timeoutMs),
    maxResponseBytes: positiveInt(env.MAX_RESPONSE_BYTES, LIMIT_DEFAULTS.maxResponseBytes),
    maxResultTokens: positiveInt(env.MAX_RESULT_TOKENS, LIMIT_DEFAULTS.maxResultTokens),
    maxCallsPerKey: positiveInt(env.MAX_CALLS_PER_KEY, LIMIT_DEFAULTS.maxCallsPerKey),
    sessionSecret: env.SESSION_SECRET || undefined,
    compactResults: !/^(off|false|0|no)$/i.test((env.COMPACT_RESULTS ?? '').trim()),
    confirm: readConfirmSettings(env),
    code: readCodeLimits(env),
    usage: readUsageConfig(env),
  };
}

export type ConfirmWrites = 'destructive' | 'all' | 'off';
const CONFIRM_MODES: readonly ConfirmWrites[] = ['destructive', 'all', 'off'];

export interface ConfirmSettings {
  /** Which tools ask: destructive ones, every tool that is not read-only, or none (per-tool overrides aside). */
  writes: ConfirmWrites;
  /** Refuse such a call from a client that cannot confirm, instead of running it. */
  required: boolean;
}

function readConfirmSettings(env: Env): ConfirmSettings {
  const writes = (env.CONFIRM_WRITES ?? '').trim().toLowerCase() || 'destructive';
  if (!(CONFIRM_MODES as readonly string[]).includes(writes)) throw new Error(`CONFIRM_WRITES must be one of ${CONFIRM_MODES.join(', ')}; got "${env.CONFIRM_WRITES}"`);
  return { writes: writes as ConfirmWrites, required: /^(1|on|true|yes)$/i.test((env.CONFIRM_WRITES_REQUIRED ?? '').trim()) };
}

function list(raw: string | undefined): string[] | undefined {
  const items = (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return items.length ? items : undefined;
}

/** The secret UPSTREAM_CREDENTIALS: a JSON object of scheme name -> credential string. */
export function parseCredentialsJson(text: string | undefined): { credentials: Record<string, string>; error?: string } {
  if (!text?.trim()) return { credentials: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { credentials: {}, error: 'UPSTREAM_CREDENTIALS is not valid JSON; it must be an object like {"scheme_name": "value"}' };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { credentials: {}, error: 'UPSTREAM_CREDENTIALS must be a JSON object like {"scheme_name": "value"}' };
  const credentials: Record<string, string> = Object.create(null);
  const wrong: string[] = [];
  for (const [k, v] of Object.entries(parsed)) {
    if (typeof v === 'string') credentials[k] = v;
    else wrong.push(k);
  }
  return wrong.length ? { credentials, error: `UPSTREAM_CREDENTIALS: the value of ${wrong.join(', ')} is not a string` } : { credentials };
}
