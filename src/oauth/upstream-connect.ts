// This Worker as an OAuth client of the upstream, for the accounts users connect on the consent page (docs/oauth.md,
// "Per-user OAuth to the upstream"): which schemes can be connected (an oauth2 scheme with an authorization-code flow
// whose client_id:client_secret the operator set in UPSTREAM_CREDENTIALS), the authorization request (code, PKCE
// S256, the library's state), and the token requests (code exchange, refresh) through src/auth/oauth-tokens.ts.
import { shown, tokenGrant, type Granted, type OAuthClient } from '../auth/oauth-tokens.ts';
import { connectsUsers } from '../auth/upstream-schemes.ts';
import type { CatalogueSecurity } from '../catalogue/types.ts';
import type { Config } from '../config.ts';
import { bytesToBase64Url, sha256 } from '../lib/bytes.ts';
import type { StoredToken } from './upstream-store.ts';

/** Where the upstream sends the browser back: register `<origin>/authorize/upstream` with the upstream's OAuth app. */
export const UPSTREAM_CALLBACK_PATH = '/authorize/upstream';

/** A scheme users can connect their account for, with everything the flow needs. URLs are absolute. */
export interface ConnectScheme {
  name: string;
  authorizationUrl: string;
  tokenUrl: string;
  /** Where refresh tokens are spent: the flow's refreshUrl, or its tokenUrl. */
  refreshUrl: string;
  /** Asked for at authorization: the operator's (UPSTREAM_OAUTH_SCOPES), or every scope the spec's requirements name. */
  scopes: string[];
  client: OAuthClient;
}

const perSecurity = new WeakMap<CatalogueSecurity, WeakMap<Config, Map<string, ConnectScheme>>>();

/** The schemes of this catalogue a user can connect on this deployment, by name (cached per catalogue and config). */
export function connectSchemes(security: CatalogueSecurity | undefined, config: Config, scopes: Readonly<Record<string, readonly string[]>>): Map<string, ConnectScheme> {
  if (!security || config.upstreamSecurity === 'ignore') return new Map();
  let byConfig = perSecurity.get(security);
  if (!byConfig) perSecurity.set(security, (byConfig = new WeakMap()));
  let out = byConfig.get(config);
  if (out) return out;
  out = new Map();
  for (const [name, scheme] of Object.entries(security.schemes)) {
    const value = config.upstreamCredentials[name];
    if (scheme.type !== 'oauth2' || !scheme.flows.authorizationCode || !connectsUsers(scheme, value)) continue;
    const flow = scheme.flows.authorizationCode;
    const colon = value!.indexOf(':');
    const urls = [flow.authorizationUrl, flow.tokenUrl, flow.refreshUrl ?? flow.tokenUrl].map((u) => absolute(u, config.upstreamUrl));
    if (urls.some((u) => !u)) continue;
    out.set(name, {
      name,
      authorizationUrl: urls[0]!,
      tokenUrl: urls[1]!,
      refreshUrl: urls[2]!,
      scopes: [...(scopes[name] ?? declaredScopes(security, name))],
      client: { clientId: value!.slice(0, colon), clientSecret: value!.slice(colon + 1) },
    });
  }
  byConfig.set(config, out);
  return out;
}

/** Every scope any requirement asks of scheme `name`, in first-seen order. */
function declaredScopes(security: CatalogueSecurity, name: string): string[] {
  const seen = new Set<string>();
  for (const set of security.sets) for (const req of set) for (const s of req[name] ?? []) seen.add(s);
  return [...seen];
}

/** A PKCE verifier and its S256 challenge (RFC 7636). */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = bytesToBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  return { verifier, challenge: bytesToBase64Url(await sha256(verifier)) };
}

/** The upstream authorization URL the browser is sent to (RFC 6749 §4.1.1 with PKCE). */
export function authorizationRequest(scheme: ConnectScheme, redirectUri: string, state: string, challenge: string): string {
  const url = new URL(scheme.authorizationUrl);
  const q = url.searchParams;
  q.set('response_type', 'code');
  q.set('client_id', scheme.client.clientId);
  q.set('redirect_uri', redirectUri);
  if (scheme.scopes.length) q.set('scope', scheme.scopes.join(' '));
  q.set('state', state);
  q.set('code_challenge', challenge);
  q.set('code_challenge_method', 'S256');
  return url.toString();
}

/** The code the upstream returned, exchanged for tokens (RFC 6749 §4.1.3 with the PKCE verifier). Throws TokenError. */
export async function exchangeCode(scheme: ConnectScheme, code: string, redirectUri: string, verifier: string): Promise<StoredToken> {
  const form = { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier };
  return stored(await tokenGrant(scheme.tokenUrl, form, scheme.client, `${scheme.name}'s token endpoint ${shown(scheme.tokenUrl)}`));
}

/** A new access token for a refresh token (RFC 6749 §6); the old refresh token is kept when no new one comes. Throws TokenError. */
export async function refreshToken(scheme: ConnectScheme, refresh: string): Promise<StoredToken> {
  const granted = await tokenGrant(scheme.refreshUrl, { grant_type: 'refresh_token', refresh_token: refresh }, scheme.client, `${scheme.name}'s token endpoint ${shown(scheme.refreshUrl)}`);
  return stored({ refresh, ...granted });
}

/** A token is refreshed this long before it expires, or a tenth of its lifetime for short-lived ones (as client credentials). */
const MARGIN_MS = 10_000;

function stored(g: Granted): StoredToken {
  const token: StoredToken = { access: g.token, useUntil: Date.now() + g.lifetimeMs - Math.min(MARGIN_MS, g.lifetimeMs / 10) };
  if (g.refresh) token.refresh = g.refresh;
  return token;
}

/** The spec's URL, relative ones against the upstream URL; undefined when it is not an http(s) URL. */
function absolute(url: string, base: string): string | undefined {
  try {
    const out = new URL(url, base.endsWith('/') ? base : `${base}/`);
    return out.protocol === 'https:' || out.protocol === 'http:' ? out.toString() : undefined;
  } catch {
    return undefined;
  }
}
