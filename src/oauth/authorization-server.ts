// The OAuth authorization server (@cloudflare/workers-oauth-provider 1.2.x, role-based API), one per origin the
// Worker answers on: the library fixes the issuer and the protected resource at construction, while this Worker
// serves whatever host routes to it (workers.dev, a custom domain, 127.0.0.1:<port> under wrangler dev). The
// Host/Origin guard runs first, so only allowed hosts ever get an instance; the cache is capped all the same.
// The library is loaded on the first OAuth request (src/oauth-library.ts).
//
// The library serves /.well-known/oauth-authorization-server, /token (code, refresh, RFC 7009 revocation) and
// /register (RFC 7591); we wrap the last two (token-endpoint.ts, registration.ts). /authorize is ours
// (consent-route.ts). Tokens are validated with validateToken().
import type { OAuthAuthorizationServer, OAuthAuthorizationServerOptions, ValidatedAccessToken } from '@cloudflare/workers-oauth-provider';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import { readConfig, type Config, type Env } from '../config.ts';
import { keyStatus } from '../auth/key-caller.ts';
import { log } from '../lib/log.ts';
import { Lru } from '../lib/lru.ts';
import { oauthLibrary, type OAuthLibrary } from '../oauth-library.ts';
import { checkClientMetadata } from './client-metadata.ts';
import { isGrantProps, scopesFor, type GrantProps } from './grant.ts';
import type { OAuthSettings } from './settings.ts';

export const AUTHORIZE_PATH = '/authorize';
// The paths clients synthesise when metadata discovery fails (Claude falls back to /authorize, /token, /register).
export const TOKEN_PATH = '/token';
export const REGISTER_PATH = '/register';
/** The protected resource: /mcp and every path under it (/mcp/x/…, /mcp/discover) take the same tokens. */
export const RESOURCE_PATH = '/mcp';

const DAY = 86_400;
/** A registered client's lifetime once it has been used (renewed by the library at half-life while in use). */
export const CLIENT_REGISTRATION_TTL = 90 * DAY;
/** A registration nobody has used yet: the library's first token answer for it renews it to the full lifetime. */
export const UNUSED_REGISTRATION_TTL = DAY;

const MAX_ORIGINS = 16;
/** An origin's two library instances hold their options and closures: charged a flat estimate, so the count bounds the bytes. */
const SERVER_BYTES = 16 * 1024;

/** One origin's servers: `main` serves everything, `registration` only /register (shorter first lifetime). */
export interface OriginServers {
  lib: OAuthLibrary;
  main: OAuthAuthorizationServer<Env>;
  registration: OAuthAuthorizationServer<Env>;
}

export class AuthorizationServers {
  private readonly byOrigin = new Lru<string, OriginServers>('oauth servers', MAX_ORIGINS, MAX_ORIGINS * SERVER_BYTES);
  private readonly configFor: (env: Env) => Config;
  /** Everything a grant can carry (grant.ts scopesFor): advertised, and the only scopes approveConsent() takes. */
  private readonly scopesSupported: string[];

  constructor(configFor: (env: Env) => Config, scopesSupported: string[]) {
    this.configFor = configFor;
    this.scopesSupported = scopesSupported;
  }

  /** The servers for this origin, or undefined when the library cannot serve it (plain http off loopback). */
  async for(origin: string, settings: OAuthSettings): Promise<OriginServers | undefined> {
    const cacheKey = `${origin} ${settings.accessTokenTtl} ${settings.refreshTokenTtl} ${settings.refreshIdleTtl ?? ''} ${settings.accountSignIn}`;
    const cached = this.byOrigin.get(cacheKey);
    if (cached) return cached;
    if (!servable(origin)) return undefined;
    const lib = await oauthLibrary();
    const options = this.options(lib, origin, settings);
    const servers: OriginServers = {
      lib,
      main: new lib.OAuthAuthorizationServer<Env>({ ...options, clientRegistrationTTL: CLIENT_REGISTRATION_TTL }),
      registration: new lib.OAuthAuthorizationServer<Env>({ ...options, clientRegistrationTTL: UNUSED_REGISTRATION_TTL }),
    };
    this.byOrigin.set(cacheKey, servers, SERVER_BYTES);
    return servers;
  }

  private options(lib: OAuthLibrary, origin: string, settings: OAuthSettings): OAuthAuthorizationServerOptions<Env> {
    return {
      issuer: origin,
      resources: [origin + RESOURCE_PATH],
      authorizeEndpoint: AUTHORIZE_PATH,
      tokenEndpoint: TOKEN_PATH,
      clientRegistrationEndpoint: REGISTER_PATH,
      // CIMD needs the global_fetch_strictly_public compatibility flag (docs/oauth.md). Enabled without it, the
      // library throws a plain Error (a 500) for every URL client_id; off, such a client gets "Invalid client_id".
      clientIdMetadataDocumentEnabled: cimdAvailable(),
      scopesSupported: this.scopesSupported,
      accessTokenTTL: settings.accessTokenTtl,
      refreshTokenTTL: settings.refreshTokenTtl,
      ...(settings.refreshIdleTtl ? { refreshTokenIdleTTL: settings.refreshIdleTtl } : {}),
      clientRegistrationCallback: ({ clientMetadata }) => checkClientMetadata(clientMetadata),
      // A code or refresh token from a revoked or expired key is refused, and the library then revokes the grant.
      tokenExchangeCallback: async ({ props, env }) => {
        const status = !isGrantProps(props)
          ? ({ ok: false, reason: 'unusable_grant' } as const)
          : props.key
            ? await keyStatus(props.key, this.configFor(env), env)
            : settings.accountSignIn
              ? ({ ok: true } as const)
              : ({ ok: false, reason: 'account_sign_in_off' } as const);
        if (!status.ok) {
          throw new lib.OAuthError('invalid_grant', {
            description: status.reason === 'account_sign_in_off' ? 'This server no longer accepts an upstream account alone. Authorize again with an API key.' : 'The API key behind this authorization was revoked or has expired. Authorize again with a current key.',
            internal: { category: 'api-key', reason: status.reason },
          });
        }
      },
      onError: ({ code, status, internal }) => {
        // `internal.detail` may hold a caught error or a client's metadata; the category and reason say enough.
        log('oauth_error', { code, status, category: internal.category, reason: internal.reason });
      },
    };
  }
}

const perCatalogue = new WeakMap<LoadedCatalogue, AuthorizationServers>();

/** The servers for one catalogue (its toolsets are the scopes), one set per isolate, shared by every route. */
export function authorizationServers(loaded: LoadedCatalogue): AuthorizationServers {
  let servers = perCatalogue.get(loaded);
  if (!servers) {
    const configs = new WeakMap<Env, Config>();
    const configFor = (env: Env) => {
      let config = configs.get(env);
      if (!config) configs.set(env, (config = readConfig(env, loaded.catalogue.defaultUpstream, loaded.catalogue.defaultToolsets)));
      return config;
    };
    perCatalogue.set(loaded, (servers = new AuthorizationServers(configFor, scopesFor(Object.keys(loaded.catalogue.toolsets)))));
  }
  return servers;
}

/** Validates an access token for this origin's /mcp and returns its grant props, or null. */
export async function validateAccessToken(server: OAuthAuthorizationServer<Env>, origin: string, token: string, env: Env): Promise<ValidatedAccessToken<GrantProps> | null> {
  return server.validateToken<GrantProps>(origin + RESOURCE_PATH, token, env);
}

function cimdAvailable(): boolean {
  return typeof Cloudflare !== 'undefined' && Cloudflare.compatibilityFlags?.global_fetch_strictly_public === true;
}

/** Whether the library can serve this origin: https, or plain http on a loopback host. */
export function servable(origin: string): boolean {
  try {
    const url = new URL(origin);
    if (url.origin !== origin) return false;
    if (url.protocol === 'https:') return true;
    const host = url.hostname;
    return url.protocol === 'http:' && (host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host));
  } catch {
    return false;
  }
}
