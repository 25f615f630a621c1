// The one builder of authentication answers: the WWW-Authenticate challenge (RFC 6750 §3, with RFC 9728's
// resource_metadata) and the JSON body beside it, for /mcp (realm "mcp") and /admin (realm "admin").
import type { AuthOutcome } from './caller.ts';

export interface Challenge {
  realm: 'mcp' | 'admin';
  /** Absent for a request with no credentials at all (RFC 6750 §3.1). */
  error?: string;
  description?: string;
  /** Space-separated scopes that would do (insufficient_scope). */
  scope?: string;
  /** The protected resource metadata URL a client discovers the authorization server from. */
  resourceMetadata?: string;
}

export function bearerChallenge(c: Challenge): string {
  const params = [`realm="${c.realm}"`];
  if (c.error) params.push(`error="${c.error}"`);
  if (c.error && c.description) params.push(`error_description="${quotable(c.description)}"`);
  if (c.scope) params.push(`scope="${quotable(c.scope)}"`);
  if (c.resourceMetadata) params.push(`resource_metadata="${c.resourceMetadata}"`);
  return `Bearer ${params.join(', ')}`;
}

export function resourceMetadataUrl(request: Request): string {
  return `${new URL(request.url).origin}/.well-known/oauth-protected-resource`;
}

/** 401 for an MCP route: `missing_token` (no header), `invalid_request` (not a bearer) or `invalid_token`. */
export function refuse(request: Request, error: string, description: string): AuthOutcome {
  const challenge = bearerChallenge({ realm: 'mcp', ...(error === 'missing_token' ? {} : { error, description }), resourceMetadata: resourceMetadataUrl(request) });
  return { ok: false, response: authJson(401, { error, error_description: description }, { 'www-authenticate': challenge }) };
}

/** 403 insufficient_scope for an MCP route, naming the scopes that would do so a client can ask for them. */
export function insufficientScope(request: Request, scopes: string[], description: string): AuthOutcome {
  const scope = scopes.join(' ');
  const challenge = bearerChallenge({ realm: 'mcp', error: 'insufficient_scope', description, scope, resourceMetadata: resourceMetadataUrl(request) });
  return { ok: false, response: authJson(403, { error: 'insufficient_scope', error_description: description, scope }, { 'www-authenticate': challenge }) };
}

export function authJson(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers } });
}

// A quoted-string may not hold `"` or `\` unescaped, nor control characters (RFC 9110 §5.6.4).
function quotable(text: string): string {
  return text.replace(/["\\]/g, "'").replace(/[\x00-\x1f\x7f]/g, ' ');
}
