// Who is calling an MCP route: a static bearer key, or (OAuth on) an access token issued by this Worker's
// authorization server. The static check runs first and unchanged, so a valid key is never challenged and with
// OAuth off every answer is the bearer check's own. Only a bearer that check refuses with 401 and that has the
// library's token shape (`<userId>:<grantId>:<secret>`) is looked up as an access token.
import { authenticate, refuse, type AuthContext, type AuthOutcome } from '../auth/bearer.ts';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { SliceSpec } from '../catalogue/slices.ts';
import type { Config } from '../config.ts';
import { authorizationServers, validateAccessToken } from './authorization-server.ts';
import { callerFromGrant } from './grant-caller.ts';
import type { GrantProps } from './grant.ts';
import type { OAuthSettings } from './settings.ts';

export interface ResourceAuthDeps {
  config: Config;
  oauth: OAuthSettings;
  loaded: LoadedCatalogue;
  /** What the URL asks for; a token narrowed on the consent page may not ask for a toolset outside its grant. */
  requested: SliceSpec;
}

const TOKEN_SHAPE = /^Bearer[ \t]+([^:\s]+:[^:\s]+:[^:\s]+)[ \t]*$/i;

export async function authenticateBearerOrToken(request: Request, deps: ResourceAuthDeps, ctx: AuthContext = {}): Promise<AuthOutcome> {
  const outcome = await authenticate(request, deps.config, ctx);
  if (outcome.ok || !deps.oauth.enabled || outcome.response.status !== 401) return outcome;
  const token = TOKEN_SHAPE.exec(request.headers.get('authorization') ?? '')?.[1];
  if (!token) return outcome;
  const origin = new URL(request.url).origin;
  const server = authorizationServers(deps.loaded).for(origin, deps.oauth);
  if (!server) return outcome;
  const validated = await validateAccessToken(server, origin, token, ctx.env ?? {});
  if (!validated) return refuse(request, 'invalid_token', 'The access token is invalid, expired or revoked. Refresh it or authorize again.');
  const granted = await callerFromGrant(request, validated.props, token, deps.config, ctx);
  if (!granted.ok) return granted;
  const outside = outsideGrant(deps.requested, validated.props);
  return outside.length ? insufficientScope(request, outside) : granted;
}

/** Toolsets the URL names that the grant's narrowing left out ("all" names none: it means "what I may use"). */
function outsideGrant(requested: SliceSpec, props: GrantProps): string[] {
  const granted = props.scope.toolsets;
  if (!granted?.length) return [];
  return (requested.toolsets ?? []).filter((t) => t !== 'all' && !granted.includes(t));
}

/**
 * RFC 6750 §3.1 insufficient_scope, naming the scopes that would do, so a client can ask for them (the consent page
 * pre-checks requested toolsets). A static key keeps today's answer instead: the intersection, possibly empty.
 */
function insufficientScope(request: Request, toolsets: string[]): AuthOutcome {
  const scope = toolsets.map((t) => `toolset:${t}`).join(' ');
  const description = `This authorization does not include the toolset${toolsets.length > 1 ? 's' : ''} ${toolsets.join(', ')}. Authorize again and choose ${toolsets.length > 1 ? 'them' : 'it'}.`;
  const metadata = `${new URL(request.url).origin}/.well-known/oauth-protected-resource`;
  const challenge = `Bearer realm="mcp", error="insufficient_scope", error_description="${description}", scope="${scope}", resource_metadata="${metadata}"`;
  const body = JSON.stringify({ error: 'insufficient_scope', error_description: description, scope });
  return { ok: false, response: new Response(body, { status: 403, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', 'www-authenticate': challenge } }) };
}
