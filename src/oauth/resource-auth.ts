// Who is calling an MCP route: a static bearer key, or (OAuth on) an access token issued by this Worker's
// authorization server. The static check runs first and unchanged, so a valid key is never challenged and with
// OAuth off every answer is the bearer check's own. Only a bearer that check refuses with 401 and that has the
// library's token shape (`<userId>:<grantId>:<secret>`) is looked up as an access token; only then is the OAuth
// library loaded.
import { hasOAuthTokenShape, parseBearer } from '../auth/bearer-header.ts';
import { authenticate } from '../auth/bearer.ts';
import type { AuthContext, AuthOutcome } from '../auth/caller.ts';
import { insufficientScope, refuse } from '../auth/challenge.ts';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import { intersect, type SliceSpec } from '../catalogue/slices.ts';
import type { Config } from '../config.ts';
import { authorizationServers, validateAccessToken } from './authorization-server.ts';
import { callerFromGrant } from './grant-caller.ts';
import { narrowingOf } from './grant.ts';
import { connectSchemes } from './upstream-connect.ts';
import type { OAuthSettings } from './settings.ts';

export interface ResourceAuthDeps {
  config: Config;
  oauth: OAuthSettings;
  loaded: LoadedCatalogue;
  /** What the URL asks for; a token may not ask for a toolset outside its grant (or its key). */
  requested: SliceSpec;
}

export async function authenticateBearerOrToken(request: Request, deps: ResourceAuthDeps, ctx: AuthContext = {}): Promise<AuthOutcome> {
  const outcome = await authenticate(request, deps.config, ctx);
  if (outcome.ok || !deps.oauth.enabled || outcome.response.status !== 401) return outcome;
  const header = parseBearer(request.headers.get('authorization'));
  if (header.kind !== 'token' || !hasOAuthTokenShape(header.token)) return outcome;
  const token = header.token;
  const origin = new URL(request.url).origin;
  const servers = await authorizationServers(deps.loaded).for(origin, deps.oauth);
  if (!servers) return outcome;
  const validated = await validateAccessToken(servers.main, origin, token, ctx.env ?? {});
  if (!validated) return refuse(request, 'invalid_token', 'The access token is invalid, expired or revoked. Refresh it or authorize again.');
  // Tokens are <userId>:<grantId>:<secret> (the library's format; userId never holds a colon).
  const grant = { userId: validated.userId, grantId: token.split(':')[1]!, schemes: connectSchemes(deps.loaded.catalogue.security, deps.config, deps.oauth.upstreamScopes), settings: deps.oauth };
  const granted = await callerFromGrant(request, validated.props, token, deps.config, ctx, grant);
  if (!granted.ok) return granted;
  const tokenNarrowing = narrowingOf(validated.scope);
  if (tokenNarrowing) granted.caller.scope = intersect(granted.caller.scope, tokenNarrowing);
  const outside = outsideGrant(deps.requested, granted.caller.scope);
  return outside.length ? refuseScope(request, outside) : granted;
}

/**
 * Toolsets the URL names that the token may not use: outside its key's toolsets, its grant's narrowing or the
 * token's own scope (the caller's scope is all three). "all" names none: it means "what I may use".
 */
function outsideGrant(requested: SliceSpec, scope: SliceSpec): string[] {
  const allowed = scope.toolsets;
  if (!allowed) return [];
  return (requested.toolsets ?? []).filter((t) => t !== 'all' && !allowed.includes(t));
}

/**
 * RFC 6750 §3.1 insufficient_scope, naming the scopes that would do, so a client can ask for them (the consent page
 * pre-checks requested toolsets). A static key keeps today's answer instead: the intersection, possibly empty.
 */
function refuseScope(request: Request, toolsets: string[]): AuthOutcome {
  const many = toolsets.length > 1;
  const description = `This authorization does not include the toolset${many ? 's' : ''} ${toolsets.join(', ')}. Authorize again and choose ${many ? 'them' : 'it'}, with a key that allows ${many ? 'them' : 'it'}.`;
  return insufficientScope(request, toolsets.map((t) => `toolset:${t}`), description);
}
