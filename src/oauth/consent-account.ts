// Connecting the user's own upstream account from the consent page (docs/oauth.md, "Per-user OAuth to the upstream"):
//   POST /authorize?…  connect=<scheme>     303 to the upstream's authorization URL (code, PKCE S256, state)
//   GET  /authorize/upstream?code&state      the code exchanged; the tokens wait with this consent until it is granted
// The state is the library's upstream transaction (beginUpstream/finishUpstream): 256 random bits, its record sealed
// under a key derived from it, single-use within 600 s, and bound to this browser by its own __Host- cookie. It
// carries the consent handle, so the callback continues that consent, in that browser, and no other; starting a
// connection needs the consent's own binding cookie, so only the browser that opened the consent can.
import type { AuthRequest } from '@cloudflare/workers-oauth-provider';
import { TokenError } from '../auth/oauth-tokens.ts';
import { sha256Hex } from '../lib/bytes.ts';
import { log } from '../lib/log.ts';
import { clientIp, countFromIp } from './attempts.ts';
import { html, redirect, type ConsentDeps } from './consent-response.ts';
import { errorPage, type AccountOffer } from './consent-view.ts';
import { authorizationRequest, exchangeCode, pkcePair, UPSTREAM_CALLBACK_PATH, type ConnectScheme } from './upstream-connect.ts';
import { loadPending, savePending, type TokenSet } from './upstream-store.ts';

/** What the upstream transaction keeps for the callback (sealed by the library). */
interface ConnectData {
  handle: string;
  verifier: string;
  scheme: string;
  /** The authorization request's query string ("?…"): where the callback page's forms post. */
  query: string;
}

/** The library's consent binding cookie (`__Host-oauth-consent-<16 hex>` = sha256(handle)), as approveConsent checks it. */
const CONSENT_COOKIE = '__Host-oauth-consent-';

/** The connect buttons a step shows: one per scheme, connected or not. */
export function accountOffers(connectable: ReadonlyMap<string, ConnectScheme>, pending: TokenSet, title: string): AccountOffer[] {
  return [...connectable.values()].map((s) => ({
    scheme: s.name,
    label: `Connect your ${title} account${connectable.size > 1 ? ` (${s.name})` : ''}`,
    host: new URL(s.authorizationUrl).host,
    connected: pending[s.name] !== undefined,
  }));
}

/** `connect=<scheme>` was pressed: send the browser to the upstream to sign in, with a state bound to this consent. */
export async function startConnect(request: Request, deps: ConsentDeps, authRequest: AuthRequest, handle: string, scheme: ConnectScheme | undefined, csp: string): Promise<Response> {
  if (!scheme) return html(errorPage('Unexpected form', 'This server cannot connect that account.'), 400, csp);
  if (!(await boundToBrowser(request, handle))) {
    return html(errorPage('This authorization cannot continue', 'This authorization was not started in this browser; start again from your app.'), 400, csp);
  }
  // Each connection stores a transaction: limited per IP with the consent pages that store them too.
  const counted = await countFromIp(deps.env.KEY_RATE_LIMITER, 'authorize', clientIp(request, deps.settings.clientAddress), deps.settings.authorizeRate);
  if (!counted.ok) {
    if ('unavailable' in counted) return html(errorPage('Try again shortly', 'Accounts cannot be connected right now. Try again in a minute.'), 503, csp, undefined, { 'retry-after': '60' });
    return html(errorPage('Too many authorizations', `Too many authorizations were started from your network. Try again in ${counted.retryAfter} s.`), 429, csp, undefined, { 'retry-after': String(counted.retryAfter) });
  }
  const { verifier, challenge } = await pkcePair();
  const url = new URL(request.url);
  const data: ConnectData = { handle, verifier, scheme: scheme.name, query: url.search };
  const { state, headers } = await deps.oauth.beginUpstream(authRequest, { data });
  // 303: the browser follows with a GET, whatever the form's method.
  return redirect(authorizationRequest(scheme, url.origin + UPSTREAM_CALLBACK_PATH, state, challenge), 303, headers);
}

export type Finished =
  | { ok: false; error: unknown }
  | { ok: true; authRequest: AuthRequest; handle: string; action: string; headers: Headers; pending: TokenSet; problem?: string };

/**
 * The upstream sent the browser back: recover the consent (the library checks the state, its cookie, and uses it up),
 * then exchange the code. `problem` says, for the page, why no account was connected.
 */
export async function finishConnect(request: Request, deps: ConsentDeps, connectable: ReadonlyMap<string, ConnectScheme>): Promise<Finished> {
  let resumed;
  try {
    resumed = await deps.oauth.finishUpstream<ConnectData>(request);
  } catch (error) {
    return { ok: false, error };
  }
  const { data, request: authRequest, headers } = resumed;
  const kv = deps.env.OAUTH_KV!;
  const pending = await loadPending(kv, data.handle);
  const done = (outcome: string, problem?: string, status?: number): Finished => {
    log('upstream_connect', { scheme: data.scheme, outcome, ...(status ? { status } : {}) });
    return { ok: true, authRequest, handle: data.handle, action: `/authorize${data.query}`, headers, pending, ...(problem ? { problem } : {}) };
  };
  const scheme = connectable.get(data.scheme);
  const title = deps.loaded.catalogue.source.title;
  if (!scheme) return done('scheme_gone', `This server no longer connects ${title} accounts for scheme ${data.scheme}.`);
  const host = new URL(scheme.authorizationUrl).host;
  const q = new URL(request.url).searchParams;
  const error = q.get('error');
  if (error === 'access_denied') return done('denied', `You did not allow access at ${host}, so your ${title} account is not connected.`);
  if (error) {
    const description = q.get('error_description');
    return done('upstream_error', `${host} did not connect your account: ${printable(error, 60)}${description ? ` (${printable(description, 200)})` : ''}.`);
  }
  const code = q.get('code');
  if (!code) return done('no_code', `${host} sent no authorization code back, so your account is not connected.`);
  try {
    pending[scheme.name] = await exchangeCode(scheme, code, new URL(request.url).origin + UPSTREAM_CALLBACK_PATH, data.verifier);
  } catch (e) {
    if (!(e instanceof TokenError)) throw e;
    return done('token_failed', `Your ${title} account could not be connected. ${e.message}`, e.status);
  }
  await savePending(kv, data.handle, pending);
  return done('connected');
}

/** Whether the browser holds this consent's binding cookie (what approveConsent requires, checked before we store anything). */
async function boundToBrowser(request: Request, handle: string): Promise<boolean> {
  if (!handle) return false;
  const hash = await sha256Hex(handle);
  const name = CONSENT_COOKIE + hash.slice(0, 16);
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() === hash;
  }
  return false;
}

/** Text the upstream chose, for the page: no control characters, bounded. */
function printable(s: string, max: number): string {
  return s.replace(/[\0-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, ' ').slice(0, max);
}
