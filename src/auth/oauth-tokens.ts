// OAuth 2 access tokens the Worker obtains for itself with client_id:client_secret: the client-credentials grant
// (RFC 6749 §4.4) at a scheme's tokenUrl, or at the token_endpoint of its OpenID Connect discovery document. One cache
// per isolate, shared by every request: a token is reused until shortly before it expires, concurrent calls that need
// the same token share one fetch, and a token the upstream refused (401) is dropped and fetched once more.
// Neither a secret nor a token ever reaches an error text or a log line.
import { Lru } from '../lib/lru.ts';

/** What identifies one token: where it comes from, whose it is, and the scopes asked for. */
export interface TokenSource {
  /** The scheme's name, for messages. */
  scheme: string;
  /** The token endpoint, or the discovery document that names it (openIdConnect). Absolute. */
  tokenUrl?: string;
  discoveryUrl?: string;
  clientId: string;
  clientSecret: string;
  scopes: readonly string[];
}

/** The token endpoint failed or answered something unusable: the message names the scheme and the endpoint. */
export class TokenError extends Error {}

/** A token is dropped this long before it expires, or a tenth of its lifetime for short-lived ones. */
const MARGIN_MS = 10_000;
/** A token whose answer has no expires_in is reused for this long (or until the upstream refuses it). */
const DEFAULT_LIFETIME_MS = 3_600_000;
const FETCH_TIMEOUT_MS = 10_000;
/** A discovery document is reused for this long. */
const DISCOVERY_TTL_MS = 3_600_000;

interface Entry {
  token?: string;
  /** ms since the epoch after which the token is not used again. */
  until: number;
  /** The fetch in progress, which every concurrent caller awaits. */
  pending?: Promise<string>;
}

// Keyed by endpoint, client, secret and scopes: customer keys each bring their own client. Bounded like every cache a
// request can key (docs/architecture.md, "Per-isolate caches").
const tokens = new Lru<string, Entry>('oauth tokens', 1_000, 1024 * 1024);
const discovered = new Map<string, { endpoint: string; post: boolean; until: number } | Promise<{ endpoint: string; post: boolean }>>();
/** Token endpoints that refused HTTP Basic client authentication and took the credentials in the form instead. */
const postOnly = new Set<string>();

const keyOf = (s: TokenSource) => JSON.stringify([s.tokenUrl ?? '', s.discoveryUrl ?? '', s.clientId, s.clientSecret, s.scopes]);

/** A valid access token for `source`: the cached one, or one fetched now (once, however many calls wait for it). */
export function accessToken(source: TokenSource, now = Date.now()): Promise<string> {
  const key = keyOf(source);
  let entry = tokens.get(key);
  if (entry?.token && now < entry.until) return Promise.resolve(entry.token);
  if (entry?.pending) return entry.pending;
  entry = { until: 0 };
  const pending = fetchToken(source).then(
    ({ token, lifetimeMs }) => {
      const margin = Math.min(MARGIN_MS, lifetimeMs / 10);
      tokens.set(key, { token, until: Date.now() + lifetimeMs - margin }, 256 + key.length + token.length);
      return token;
    },
    (e: unknown) => {
      // A failure is not kept: the next call asks again.
      tokens.delete(key);
      throw e;
    },
  );
  entry.pending = pending;
  tokens.set(key, entry, 256 + key.length);
  return pending;
}

/** The upstream refused `token`: it is not used again (unless another call already replaced it). */
export function dropToken(source: TokenSource, token: string): void {
  const key = keyOf(source);
  if (tokens.peek(key)?.token === token) tokens.delete(key);
}

async function fetchToken(source: TokenSource): Promise<{ token: string; lifetimeMs: number }> {
  const { endpoint, post } = source.tokenUrl ? { endpoint: source.tokenUrl, post: postOnly.has(source.tokenUrl) } : await discover(source);
  const where = `${source.scheme}'s token endpoint ${shown(endpoint)}`;
  let res = await requestToken(endpoint, source, post, where);
  // RFC 6749 asks servers to take HTTP Basic; some take the credentials only in the form. Try that once, and remember.
  if (!post && (res.status === 401 || res.status === 400)) {
    const problem = await res.clone().json().catch(() => undefined) as { error?: string } | undefined;
    if (res.status === 401 || problem?.error === 'invalid_client' || problem?.error === 'invalid_request') {
      const again = await requestToken(endpoint, source, true, where);
      if (again.ok) postOnly.add(endpoint);
      res = again.ok || res.status !== 401 ? again : res;
    }
  }
  const body = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (!res.ok) {
    const code = typeof body?.error === 'string' ? body.error.slice(0, 60) : '';
    const text = typeof body?.error_description === 'string' ? body.error_description.slice(0, 200) : '';
    throw new TokenError(`Could not get an access token for scheme ${where}: HTTP ${res.status}${code ? ` ${code}` : ''}${text ? ` (${text})` : ''}.`);
  }
  const token = body?.access_token;
  if (typeof token !== 'string' || !token || /[\0-\x20\x7f]/.test(token)) throw new TokenError(`Could not get an access token for scheme ${where}: its answer has no usable access_token.`);
  const expiresIn = Number(body?.expires_in);
  return { token, lifetimeMs: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn * 1000 : DEFAULT_LIFETIME_MS };
}

async function requestToken(endpoint: string, source: TokenSource, post: boolean, where: string): Promise<Response> {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (source.scopes.length) form.set('scope', source.scopes.join(' '));
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (post) {
    form.set('client_id', source.clientId);
    form.set('client_secret', source.clientSecret);
  } else {
    // client_secret_basic: each part form-encoded first (RFC 6749 §2.3.1).
    headers.authorization = `Basic ${btoa(`${formEncode(source.clientId)}:${formEncode(source.clientSecret)}`)}`;
  }
  try {
    return await fetch(endpoint, { method: 'POST', headers, body: form.toString(), redirect: 'manual', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (e) {
    const why = e instanceof Error && e.name === 'TimeoutError' ? `no answer within ${FETCH_TIMEOUT_MS} ms` : 'it could not be reached';
    throw new TokenError(`Could not get an access token for scheme ${where}: ${why}.`);
  }
}

/** The token endpoint of an OpenID Connect provider, from its discovery document (cached per isolate). */
async function discover(source: TokenSource): Promise<{ endpoint: string; post: boolean }> {
  const url = source.discoveryUrl!;
  const known = discovered.get(url);
  if (known && !(known instanceof Promise) && Date.now() < known.until) return known;
  if (known instanceof Promise) return known;
  const pending = (async () => {
    const where = `${source.scheme}'s OpenID Connect discovery document ${shown(url)}`;
    let doc: Record<string, unknown> | undefined;
    try {
      const res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      if (!res.ok) throw new TokenError(`Could not read ${where}: HTTP ${res.status}.`);
      doc = (await res.json()) as Record<string, unknown>;
    } catch (e) {
      if (e instanceof TokenError) throw e;
      throw new TokenError(`Could not read ${where}: ${e instanceof SyntaxError ? 'it is not JSON' : 'it could not be reached'}.`);
    }
    const endpoint = typeof doc?.token_endpoint === 'string' ? safeUrl(doc.token_endpoint, url) : undefined;
    if (!endpoint) throw new TokenError(`Could not use ${where}: it names no token_endpoint.`);
    const methods = Array.isArray(doc.token_endpoint_auth_methods_supported) ? doc.token_endpoint_auth_methods_supported : [];
    return { endpoint, post: methods.includes('client_secret_post') && !methods.includes('client_secret_basic') };
  })();
  discovered.set(url, pending);
  try {
    const found = await pending;
    discovered.set(url, { ...found, until: Date.now() + DISCOVERY_TTL_MS });
    return found;
  } catch (e) {
    discovered.delete(url);
    throw e;
  }
}

function formEncode(s: string): string {
  return encodeURIComponent(s).replace(/%20/g, '+');
}

function safeUrl(u: string, base: string): string | undefined {
  try {
    const url = new URL(u, base);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

/** An endpoint as messages show it: origin and path, never a query string (which might carry something private). */
function shown(u: string): string {
  try {
    const url = new URL(u);
    return url.origin + url.pathname;
  } catch {
    return '(an invalid URL)';
  }
}

/** For tests: forget every token and discovery document of this isolate. */
export function clearTokenCache(): void {
  tokens.clear();
  discovered.clear();
  postOnly.clear();
}
