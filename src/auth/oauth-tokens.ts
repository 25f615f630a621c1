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

/**
 * The token endpoint failed or answered something unusable: the message names the scheme and the endpoint. `status`
 * and `code` are the endpoint's answer, when it gave one; `remedy` says who can fix it, after "Nothing was sent".
 */
export class TokenError extends Error {
  readonly status: number | undefined;
  readonly code: string | undefined;
  readonly remedy: string;
  constructor(message: string, opts: { status?: number; code?: string; remedy?: string } = {}) {
    super(message);
    this.status = opts.status;
    this.code = opts.code || undefined;
    this.remedy = opts.remedy ?? 'the server operator must fix the credential.';
  }
}

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
    ({ token, lifetimeMs }: Granted) => {
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

async function fetchToken(source: TokenSource): Promise<Granted> {
  const { endpoint, post } = source.tokenUrl ? { endpoint: source.tokenUrl, post: postOnly.has(source.tokenUrl) } : await discover(source);
  const form: Record<string, string> = { grant_type: 'client_credentials' };
  if (source.scopes.length) form.scope = source.scopes.join(' ');
  return tokenGrant(endpoint, form, source, `${source.scheme}'s token endpoint ${shown(endpoint)}`, post);
}

/** A client of an authorization server: who asks for tokens. */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

/** What a token endpoint granted. `refresh` only when it gave a refresh token. */
export interface Granted {
  token: string;
  refresh?: string;
  lifetimeMs: number;
}

/**
 * One token request (RFC 6749 §3.2) with `form` (grant_type and its fields), the client authenticating with HTTP
 * Basic, or in the form where the endpoint takes only that (tried once on a refusal, then remembered). `where` names
 * the endpoint in messages ("userCode's token endpoint https://…/token"). A refusal is a TokenError with its status
 * and OAuth error code.
 */
export async function tokenGrant(endpoint: string, form: Record<string, string>, client: OAuthClient, where: string, post = postOnly.has(endpoint)): Promise<Granted> {
  let res = await requestToken(endpoint, form, client, post, where);
  // RFC 6749 asks servers to take HTTP Basic; some take the credentials only in the form. Try that once, and remember.
  if (!post && (res.status === 401 || res.status === 400)) {
    const problem = await res.clone().json().catch(() => undefined) as { error?: string } | undefined;
    if (res.status === 401 || problem?.error === 'invalid_client' || problem?.error === 'invalid_request') {
      const again = await requestToken(endpoint, form, client, true, where);
      if (again.ok) postOnly.add(endpoint);
      res = again.ok || res.status !== 401 ? again : res;
    }
  }
  const body = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (!res.ok) {
    const code = typeof body?.error === 'string' ? body.error.slice(0, 60) : '';
    const text = typeof body?.error_description === 'string' ? body.error_description.slice(0, 200) : '';
    throw new TokenError(`Could not get an access token for scheme ${where}: HTTP ${res.status}${code ? ` ${code}` : ''}${text ? ` (${text})` : ''}.`, { status: res.status, code });
  }
  const token = body?.access_token;
  if (!usable(token)) throw new TokenError(`Could not get an access token for scheme ${where}: its answer has no usable access_token.`);
  const expiresIn = Number(body?.expires_in);
  const granted: Granted = { token, lifetimeMs: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn * 1000 : DEFAULT_LIFETIME_MS };
  if (usable(body?.refresh_token)) granted.refresh = body.refresh_token;
  return granted;
}

function usable(token: unknown): token is string {
  return typeof token === 'string' && token.length > 0 && token.length <= 16_384 && !/[\0-\x20\x7f]/.test(token);
}

async function requestToken(endpoint: string, fields: Record<string, string>, client: OAuthClient, post: boolean, where: string): Promise<Response> {
  const form = new URLSearchParams(fields);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (post) {
    form.set('client_id', client.clientId);
    form.set('client_secret', client.clientSecret);
  } else {
    // client_secret_basic: each part form-encoded first (RFC 6749 §2.3.1).
    headers.authorization = `Basic ${btoa(`${formEncode(client.clientId)}:${formEncode(client.clientSecret)}`)}`;
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
export function shown(u: string): string {
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
