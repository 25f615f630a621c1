// OAuth front-door settings, read from wrangler vars (docs/oauth.md). Kept apart from src/config.ts until the
// request pipeline wires OAuth in; the names here are the vars an operator sets.
import { parseRate, type Rate } from '../auth/keys-core.ts';
import type { CredentialMode, Env } from '../config.ts';

export interface OAuthEnv extends Env {
  /** `on` (default) or `off`. Off keeps the bearer-only behaviour exactly. */
  OAUTH?: string;
  /** Grants, tokens, registered clients and consent transactions (@cloudflare/workers-oauth-provider). */
  OAUTH_KV?: KVNamespace;
  /** Seconds an access token lives (default 3600, at least 60). */
  OAUTH_ACCESS_TOKEN_TTL?: string;
  /** Seconds a grant lives after its code exchange (default 30 days, at least 60). */
  OAUTH_REFRESH_TOKEN_TTL?: string;
  /** Optional sliding lifetime: each refresh moves the grant's expiry this many seconds out (at least 60). */
  OAUTH_REFRESH_IDLE_TTL?: string;
  /** Key submissions per client IP on the consent page, `<n>/<sec|min|hour>` (default 10/min). */
  OAUTH_KEY_ATTEMPTS?: string;
  /** Browser origins allowed to call /mcp and the OAuth endpoints, comma separated (src/oauth/cors.ts). */
  ALLOWED_ORIGINS?: string;
}

export interface OAuthSettings {
  enabled: boolean;
  accessTokenTtl: number;
  refreshTokenTtl: number;
  refreshIdleTtl: number | undefined;
  keyAttempts: Rate;
}

const DAY = 86_400;
/** Cloudflare KV's minimum expiration, which the library enforces for every lifetime. */
const MIN_TTL = 60;

export function readOAuthSettings(env: OAuthEnv, credentialMode: CredentialMode): OAuthSettings {
  const switchValue = (env.OAUTH ?? '').trim().toLowerCase() || 'on';
  if (switchValue !== 'on' && switchValue !== 'off') throw new Error(`OAUTH must be "on" or "off"; got "${env.OAUTH}"`);
  // Passthrough forwards the caller's own upstream token; a grant made from an API key would have none to forward.
  const enabled = switchValue === 'on' && credentialMode !== 'passthrough';
  if (enabled && !env.OAUTH_KV) throw new Error('OAuth needs the OAUTH_KV namespace binding (wrangler.toml), or OAUTH=off');
  return {
    enabled,
    accessTokenTtl: seconds('OAUTH_ACCESS_TOKEN_TTL', env.OAUTH_ACCESS_TOKEN_TTL, 3600),
    refreshTokenTtl: seconds('OAUTH_REFRESH_TOKEN_TTL', env.OAUTH_REFRESH_TOKEN_TTL, 30 * DAY),
    refreshIdleTtl: env.OAUTH_REFRESH_IDLE_TTL?.trim() ? seconds('OAUTH_REFRESH_IDLE_TTL', env.OAUTH_REFRESH_IDLE_TTL, 0) : undefined,
    keyAttempts: parseRate(env.OAUTH_KEY_ATTEMPTS?.trim() || '10/min'),
  };
}

function seconds(name: string, raw: string | undefined, fallback: number): number {
  const text = (raw ?? '').trim();
  if (!text) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < MIN_TTL) throw new Error(`${name} must be a whole number of seconds, at least ${MIN_TTL}; got "${raw}"`);
  return n;
}
