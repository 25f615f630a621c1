// CORS for browser-based MCP clients: /mcp (and its slices) and the OAuth endpoints such a client calls
// (metadata, /register, /token). One policy for all of them: only the exact origins in ALLOWED_ORIGINS get CORS
// headers, whatever a handler (or @cloudflare/workers-oauth-provider, which reflects any Origin) put there.
// No Access-Control-Allow-Credentials: bearer tokens are not ambient, and cookies must never cross origins.
// The Host/Origin guard (src/pipeline/host-guard.ts) still refuses every other origin before this runs.

/** Request headers a browser MCP client sends; 2026-07-28 clients add Mcp-Method and Mcp-Name (SEP-2243). */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Mcp-Protocol-Version', 'Mcp-Session-Id', 'Mcp-Method', 'Mcp-Name', 'Last-Event-ID'];
/** Response headers a browser client must read: the session, the OAuth challenge, and when to retry after a 429. */
export const CORS_EXPOSED_HEADERS = ['Mcp-Session-Id', 'WWW-Authenticate', 'Retry-After'];
const ALLOWED_METHODS = 'GET, POST, DELETE, OPTIONS';
/** Chromium caps preflight caching at two hours. */
const MAX_AGE_SECONDS = '7200';
/** Per-tool parameter headers (SEP-2243 `Mcp-Param-<name>`), allowed by prefix because their names come from tools. */
const PARAM_HEADER = /^mcp-param-[!#$%&'*+.^_`|~0-9a-z-]+$/;

export class AllowedOriginsError extends Error {}

/** Parses ALLOWED_ORIGINS: comma-separated `scheme://host[:port]`, normalised as browsers send them. */
export function parseAllowedOrigins(raw: string | undefined): string[] {
  const out = new Set<string>();
  for (const entry of (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    if (entry === '*') throw new AllowedOriginsError('ALLOWED_ORIGINS does not accept "*": list each browser origin (https://app.example.com)');
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new AllowedOriginsError(`ALLOWED_ORIGINS entry is not an origin: "${entry}" (expected e.g. https://app.example.com)`);
    }
    const bare = (url.pathname === '/' || url.pathname === '') && !url.search && !url.hash && !url.username && !url.password;
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !bare) {
      throw new AllowedOriginsError(`ALLOWED_ORIGINS entry must be scheme://host[:port] with nothing after it; got "${entry}"`);
    }
    out.add(url.origin);
  }
  return [...out];
}

export function isAllowedOrigin(origin: string | null, allowed: readonly string[]): boolean {
  if (!origin || origin === 'null' || allowed.length === 0) return false;
  try {
    return allowed.includes(new URL(origin).origin);
  } catch {
    return false;
  }
}

/** The answer to a CORS preflight, or undefined when the request is not one. */
export function preflightResponse(request: Request, allowed: readonly string[]): Response | undefined {
  const origin = request.headers.get('origin');
  if (request.method !== 'OPTIONS' || !origin || !request.headers.get('access-control-request-method')) return undefined;
  if (!isAllowedOrigin(origin, allowed)) {
    return Response.json(
      { jsonrpc: '2.0', error: { code: -32000, message: `Origin not allowed: ${origin.slice(0, 200)}. The operator can add it to ALLOWED_ORIGINS.` }, id: null },
      { status: 403, headers: { vary: 'Origin' } },
    );
  }
  const requested = (request.headers.get('access-control-request-headers') ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => PARAM_HEADER.test(h));
  return new Response(null, {
    status: 204,
    headers: {
      'access-control-allow-origin': origin,
      'access-control-allow-methods': ALLOWED_METHODS,
      'access-control-allow-headers': [...CORS_ALLOWED_HEADERS, ...requested].join(', '),
      'access-control-max-age': MAX_AGE_SECONDS,
      vary: 'Origin, Access-Control-Request-Headers',
    },
  });
}

/** The response with this policy's CORS headers: added for an allowed origin, removed for any other. */
export function withCors(response: Response, request: Request, allowed: readonly string[]): Response {
  const origin = request.headers.get('origin');
  // No Origin (a server or CLI) and no allow-origin set by a handler: nothing for a browser to read or to strip.
  if (origin === null && !response.headers.has('access-control-allow-origin')) return response;
  const allowedOrigin = origin !== null && isAllowedOrigin(origin, allowed) ? origin : undefined;
  const hasCors = [...response.headers.keys()].some((name) => name.startsWith('access-control-'));
  if (!allowedOrigin && !hasCors) return response;
  const out = new Response(response.body, response);
  const headers = out.headers;
  for (const name of [...headers.keys()]) if (name.startsWith('access-control-')) headers.delete(name);
  if (!allowedOrigin) return out;
  headers.set('access-control-allow-origin', allowedOrigin);
  headers.set('access-control-expose-headers', CORS_EXPOSED_HEADERS.join(', '));
  const vary = (headers.get('vary') ?? '').split(',').map((v) => v.trim()).filter(Boolean);
  if (!vary.some((v) => v.toLowerCase() === 'origin' || v === '*')) headers.set('vary', [...vary, 'Origin'].join(', '));
  return out;
}
