// OAuth front-door settings, read once per env from wrangler vars (docs/oauth.md, docs/keys.md).
import { parseRate, type Rate } from '../auth/keys-core.ts';
import type { CredentialMode, Env } from '../config.ts';
import { logOnce } from '../lib/log.ts';

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
