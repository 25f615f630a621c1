// OAuth front-door settings, read once per env from wrangler vars (docs/oauth.md, docs/keys.md).
import { parseRate, type Rate } from '../auth/keys-core.ts';
import type { CredentialMode, Env } from '../config.ts';
import { logOnce } from '../lib/log.ts';
import type { ClientAddress } from './attempts.ts';

export interface OAuthSettings {
  enabled: boolean;
  accessTokenTtl: number;
  refreshTokenTtl: number;
  refreshIdleTtl: number | undefined;
  /** API-key submissions on the consent page, per client IP. */
  keyAttempts: Rate;
  /** Client registrations (POST /register), per client IP. */
  registerRate: Rate;
  /** Consent pages opened (GET /authorize, which stores a consent transaction), per client IP. */
  authorizeRate: Rate;
  /** Where the per-IP limits above read a client's address (src/oauth/attempts.ts). */
  clientAddress: ClientAddress;
  /** Seconds after a refresh in which the same refresh token, from the same client, gets the same answer. */
  refreshRetrySeconds: number;
  /** Whether a connected upstream account alone authorizes (OAUTH_SIGN_IN=key-or-account), or an API key is needed. */
  accountSignIn: boolean;
  /** The operator's scopes per scheme for connecting an upstream account (UPSTREAM_OAUTH_SCOPES); absent: the spec's. */
  upstreamScopes: Readonly<Record<string, readonly string[]>>;
}

const DAY = 86_400;
/** Cloudflare KV's minimum expiration, which the library enforces for every lifetime. */
const MIN_TTL = 60;
/** A retry window is for a lost response, not a second use: a few minutes at most. */
const MAX_RETRY_SECONDS = 300;

export function readOAuthSettings(env: Env, credentialMode: CredentialMode): OAuthSettings {
  const raw = (env.OAUTH ?? '').trim().toLowerCase();
  if (raw && raw !== 'on' && raw !== 'off') throw new Error(`OAUTH must be "on" or "off"; got "${env.OAUTH}"`);
  if (raw === 'on' && !env.OAUTH_KV) throw new Error('OAUTH=on needs the OAUTH_KV namespace binding (wrangler.toml), or set OAUTH=off');
  // Unset OAUTH follows the binding, so a deployment whose wrangler.toml predates OAuth keeps working as before.
  if (!raw && !env.OAUTH_KV) logOnce('OAUTH_KV', 'binding_missing', { binding: 'OAUTH_KV', effect: 'OAuth is off; static keys only' });
  // Passthrough forwards the caller's own upstream token; a grant made from an API key would have none to forward.
  const enabled = raw !== 'off' && Boolean(env.OAUTH_KV) && credentialMode !== 'passthrough';
  return {
    enabled,
    accessTokenTtl: seconds('OAUTH_ACCESS_TOKEN_TTL', env.OAUTH_ACCESS_TOKEN_TTL, 3600),
    refreshTokenTtl: seconds('OAUTH_REFRESH_TOKEN_TTL', env.OAUTH_REFRESH_TOKEN_TTL, 30 * DAY),
    refreshIdleTtl: env.OAUTH_REFRESH_IDLE_TTL?.trim() ? seconds('OAUTH_REFRESH_IDLE_TTL', env.OAUTH_REFRESH_IDLE_TTL, 0) : undefined,
    keyAttempts: rate('OAUTH_KEY_ATTEMPTS', env.OAUTH_KEY_ATTEMPTS, '10/min'),
    registerRate: rate('OAUTH_REGISTER_RATE', env.OAUTH_REGISTER_RATE, '60/hour'),
    authorizeRate: rate('OAUTH_AUTHORIZE_RATE', env.OAUTH_AUTHORIZE_RATE, '60/hour'),
    refreshRetrySeconds: retrySeconds(env.OAUTH_REFRESH_RETRY_SECONDS),
    clientAddress: clientAddress(env.CLIENT_ADDRESS),
    accountSignIn: signIn(env.OAUTH_SIGN_IN),
    upstreamScopes: scopesByScheme(env.UPSTREAM_OAUTH_SCOPES),
  };
}

function signIn(raw: string | undefined): boolean {
  const text = (raw ?? '').trim().toLowerCase() || 'key';
  if (text === 'key' || text === 'key-or-account') return text === 'key-or-account';
  throw new Error(`OAUTH_SIGN_IN must be "key" (an API key authorizes) or "key-or-account" (a connected upstream account alone does too); got "${raw}"`);
}

function scopesByScheme(raw: string | undefined): Record<string, string[]> {
  const text = (raw ?? '').trim();
  if (!text) return {};
  const shape = 'UPSTREAM_OAUTH_SCOPES must be a JSON object of scheme name to space-separated scopes, like {"userAuth": "read write"}';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(shape);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(shape);
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(parsed)) {
    // RFC 6749 §3.3: scope tokens are printable ASCII without spaces, quotes or backslashes.
    if (typeof value !== 'string' || !/^[\x21\x23-\x5b\x5d-\x7e ]*$/.test(value)) throw new Error(`${shape}; the value of ${name.slice(0, 60)} is not`);
    out[name] = value.split(' ').filter(Boolean);
  }
  return out;
}

function seconds(name: string, raw: string | undefined, fallback: number): number {
  const text = (raw ?? '').trim();
  if (!text) return fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < MIN_TTL) throw new Error(`${name} must be a whole number of seconds, at least ${MIN_TTL}; got "${raw}"`);
  return n;
}

function rate(name: string, raw: string | undefined, fallback: string): Rate {
  const text = raw?.trim() || fallback;
  try {
    return parseRate(text);
  } catch (error) {
    throw new Error(`${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function clientAddress(raw: string | undefined): ClientAddress {
  const text = (raw ?? '').trim().toLowerCase() || 'auto';
  if (text === 'cloudflare' || text === 'shared' || text === 'auto') return text;
  throw new Error(`CLIENT_ADDRESS must be "cloudflare" (trust CF-Connecting-IP, set by Cloudflare's edge), "shared" (one bucket for every client) or "auto"; got "${raw}"`);
}

function retrySeconds(raw: string | undefined): number {
  const text = (raw ?? '').trim();
  if (!text) return 30;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > MAX_RETRY_SECONDS) throw new Error(`OAUTH_REFRESH_RETRY_SECONDS must be a whole number of seconds from 0 (no retry) to ${MAX_RETRY_SECONDS}; got "${raw}"`);
  return n;
}
