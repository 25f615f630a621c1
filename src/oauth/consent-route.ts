// /authorize: the consent page of the OAuth front door. The library validates the authorization request (client,
// exact redirect URI, https-or-loopback, resource, S256), keeps it server-side behind a one-time handle bound to
// this browser by a __Host- cookie (beginConsent/approveConsent: the CSRF protection), and mints the code.
// This module asks for the API key, shows what it allows, takes the customer's narrowing, and builds the grant.
//
//   GET  /authorize?…                      step 1: paste a key
//   POST /authorize?…  step=key            key checked (per-IP attempt limit first) → step 2, or step 1 again
//   POST /authorize?…  step=review         narrowing checked → approveConsent → completeAuthorization → 302 code
//   POST …             decision=deny       denyConsent → 302 access_denied
//   POST …             connect=<scheme>    either step: connect the upstream account (consent-account.ts)
//   GET  /authorize/upstream?code&state    back from the upstream: the step the consent was at, the account connected
// With OAUTH_SIGN_IN=key-or-account, step=key with no key and a connected account goes on with the account alone.
import type { AuthRequest, ConsentDescription } from '@cloudflare/workers-oauth-provider';
import { keyStatus } from '../auth/key-caller.ts';
import type { KeyRecord } from '../auth/keys-core.ts';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { SliceSpec } from '../catalogue/slices.ts';
import { clientIp, countFromIp } from './attempts.ts';
import { displayName } from './client-metadata.ts';
import { accountOffers, finishConnect, startConnect } from './consent-account.ts';
import { checkPastedKey, forgetKey, recallKey, rememberKey, summarise, type ConsentWho } from './consent-key.ts';
import { failure, html, redirect, type ConsentDeps } from './consent-response.ts';
import { consentCsp, errorPage, keyStep, reviewStep, type KeySummary, type PageFrame, type ToolsetChoice } from './consent-view.ts';
import { grantUserId, scopeTokens, type GrantProps } from './grant.ts';
import { connectSchemes, type ConnectScheme } from './upstream-connect.ts';
import { dropPending, loadPending, newGrantSeal, tokensTtl, writeGrantTokens, type TokenSet } from './upstream-store.ts';

/** The longest authorization parameter read (client ids, URLs, states and challenges are far shorter). */
const MAX_PARAMETER_CHARS = 4_096;
/** The longest client_id: the library keys its KV records by it, and a KV key is at most 512 bytes. */
const MAX_CLIENT_ID_CHARS = 400;

export type { ConsentDeps };

/** A consent form is a handle, a step, a key or a few dozen toolset names; anything larger is not one. */
const MAX_FORM_BYTES = 64 * 1024;
/** S256 is the only method taken, and its challenge is a SHA-256 digest: 43 base64url characters (RFC 7636 §4.2). */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export async function handleAuthorize(request: Request, deps: ConsentDeps): Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'POST') return new Response(null, { status: 405, headers: { allow: 'GET, POST' } });
  const { lib } = deps;
  if (request.method === 'GET') {
    // Opening the page stores a consent transaction (and may fetch a client metadata document): limited per IP.
    const counted = await countFromIp(deps.env.KEY_RATE_LIMITER, 'authorize', clientIp(request, deps.settings.clientAddress), deps.settings.authorizeRate);
    if (!counted.ok) {
      const csp = await consentCsp(undefined);
      if ('unavailable' in counted) return html(errorPage('Try again shortly', 'Authorization is unavailable right now. Try again in a minute.'), 503, csp, undefined, { 'retry-after': '60' });
      return html(errorPage('Too many authorizations', `Too many authorizations were started from your network. Try again in ${counted.retryAfter} s.`), 429, csp, undefined, { 'retry-after': String(counted.retryAfter) });
    }
  }
  // RFC 6749 §3.1: no parameter twice. The library reads the first of each, a proxy or the client may read another:
  // refused with a page, never a redirect (which redirect_uri would it go to?). `resource` may name several (RFC 8707).
  const repeated = repeatedParameters(new URL(request.url).searchParams);
  if (repeated.length) {
    return html(errorPage('This authorization cannot continue', `The authorization request gives ${repeated.join(', ')} more than once; each parameter may appear once.`), 400, await consentCsp(undefined));
  }
  // A value no client sends: a client_id over 512 bytes reached the library's KV lookup (KV keys are at most 512
  // bytes) and came back as a 500.
  const long = [...new URL(request.url).searchParams].find(([k, v]) => v.length > (k === 'client_id' ? MAX_CLIENT_ID_CHARS : MAX_PARAMETER_CHARS));
  if (long) return html(errorPage('This authorization cannot continue', `The authorization request's ${long[0].slice(0, 40)} is ${long[1].length} characters long, more than this server reads.`), 400, await consentCsp(undefined));
  let authRequest: AuthRequest;
  let client: ConsentDescription;
  try {
    authRequest = await deps.oauth.parseAuthRequest(request);
    // The library lets a confidential client skip PKCE; MCP requires it of every client.
    if (!authRequest.codeChallenge) return redirect(lib.authorizationErrorRedirect(authRequest, 'invalid_request', 'PKCE with code_challenge_method=S256 is required.'));
    if (!S256_CHALLENGE.test(authRequest.codeChallenge)) {
      return redirect(lib.authorizationErrorRedirect(authRequest, 'invalid_request', 'code_challenge must be an S256 challenge: the base64url SHA-256 of the verifier, 43 characters.'));
    }
    const described = await deps.oauth.describeConsent(authRequest);
    // Whatever name the client registered or published, the page shows it without hidden or reordering characters.
    client = { ...described, clientName: displayName(described.clientName) };
  } catch (error) {
    return failure(lib, error, await consentCsp(undefined));
  }
  const connectable = connectSchemes(deps.loaded.catalogue.security, deps.config, deps.settings.upstreamScopes);
  const csp = await pageCsp(authRequest, connectable);
  const title = deps.loaded.catalogue.source.title;

  if (request.method === 'GET') {
    const consent = await deps.oauth.beginConsent(authRequest);
    return html(keyStep(frameFor(deps, client, consent.handle, connectable, {})), 200, csp, consent.headers);
  }

  if (Number(request.headers.get('content-length') ?? 0) > MAX_FORM_BYTES) return html(errorPage('Form too large', 'This form is larger than a consent form can be.'), 413, csp);
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return html(errorPage('Unreadable form', 'The form could not be read. Start again.'), 400, csp);
  }
  const field = (name: string) => {
    const v = form.get(name);
    return typeof v === 'string' ? v : '';
  };
  const handle = field('handle');
  const kv = deps.env.OAUTH_KV!;

  try {
    if (field('decision') === 'deny') {
      const denied = await deps.oauth.denyConsent(request, handle);
      await Promise.all([forgetKey(kv, handle), dropPending(kv, handle)]);
      return new Response(null, { status: 302, headers: denied.headers });
    }
    if (field('connect')) return await startConnect(request, deps, authRequest, handle, connectable.get(field('connect')), csp);

    const pending = connectable.size ? await loadPending(kv, handle) : {};
    const frame = frameFor(deps, client, handle, connectable, pending);
    if (field('step') === 'key') {
      // A connected account alone, where the operator lets it authorize: no key to examine, none counted.
      if (!field('key').trim() && deps.settings.accountSignIn && Object.keys(pending).length) {
        await rememberKey(kv, handle, 'account');
        return review(frame, deps, 'account', undefined, authRequest, csp);
      }
      const attempt = await countFromIp(deps.env.KEY_RATE_LIMITER, 'consent', clientIp(request, deps.settings.clientAddress), deps.settings.keyAttempts);
      if (!attempt.ok) {
        if ('unavailable' in attempt) return html(errorPage('Try again shortly', 'Keys cannot be checked right now. Try again in a minute.'), 503, csp, undefined, { 'retry-after': '60' });
        return html(keyStep(frame, `Too many keys tried from your network. Try again in ${attempt.retryAfter} s.`), 429, csp, undefined, { 'retry-after': String(attempt.retryAfter) });
      }
      const pasted = await checkPastedKey(field('key'), request.url, deps.config, deps.env, deps.waitUntil);
      if (!pasted.ok) return html(keyStep(frame, pasted.message), pasted.status, csp);
      await rememberKey(kv, handle, pasted.ref);
      return review(frame, deps, pasted.ref, pasted.record, authRequest, csp);
    }

    if (field('step') === 'review') {
      const who = await recallKey(kv, handle);
      const current = who && (await stillValid(who, deps, pending));
      if (!who || !current) {
        await forgetKey(kv, handle);
        if (!who) return html(errorPage('This authorization expired', 'The page was open too long or was already used.'), 400, csp);
        return html(keyStep(frame, who === 'account' ? 'Your account is no longer enough to authorize here. Paste an API key.' : 'That key was revoked or has expired meanwhile. Paste a current key.'), 403, csp);
      }
      const record = current.record;
      const allowed = allowedToolsets(deps.loaded, record?.toolsets);
      const chosen = [...new Set(form.getAll('toolset').filter((v): v is string => typeof v === 'string'))];
      const outside = chosen.filter((t) => !allowed.includes(t));
      if (outside.length || (chosen.length === 0 && allowed.length > 0)) {
        const why = outside.length ? `This key does not allow ${outside.join(', ')}.` : 'Choose at least one toolset.';
        return review(frame, deps, who, record, authRequest, csp, why, chosen);
      }
      const narrowed: SliceSpec = {};
      // The grant names its toolsets unless it is every toolset of an unscoped key: then it also covers toolsets
      // the catalogue gains later, as the key does. A toolset-scoped key's grant always carries them as its scope.
      if (chosen.length < allowed.length || keyScoped(record?.toolsets)) narrowed.toolsets = chosen;
      if (field('readonly') === '1') narrowed.readOnly = true;
      // The CSRF check: the handle must be bound to this browser's cookie, and it works once.
      const approved = await deps.oauth.approveConsent(request, handle, { scope: scopeTokens(narrowed) });
      const key = who === 'account' ? undefined : who;
      const connected = Object.keys(pending).filter((n) => connectable.has(n));
      const seal = connected.length ? newGrantSeal() : undefined;
      const props: GrantProps = { v: 1, ...(key ? { key } : {}), scope: narrowed, ...(seal ? { upstream: { schemes: connected, seal } } : {}) };
      const userId = grantUserId(key);
      const { redirectTo } = await deps.oauth.completeAuthorization({
        request: approved.request,
        userId,
        // Storage-visible (not encrypted): what `keys list` shows. Nothing secret.
        metadata: { keyId: key?.id ?? 'account', client: client.clientName, toolsets: narrowed.toolsets ?? 'all', readOnly: Boolean(narrowed.readOnly), ...(seal ? { upstream: connected } : {}) },
        scope: scopeTokens(narrowed),
        props,
        // Grants without a key share one owner: a new one must not end another person's grant of the same client.
        ...(key ? {} : { revokeExistingGrants: false }),
      });
      if (seal) {
        // The code is <userId>:<grantId>:<secret>: the grant's tokens are stored under its id, sealed with its own key.
        const grantId = new URL(redirectTo).searchParams.get('code')!.split(':')[1]!;
        const kept: TokenSet = Object.fromEntries(connected.map((n) => [n, pending[n]!]));
        await writeGrantTokens(kv, userId, grantId, seal, kept, tokensTtl(deps.settings));
      }
      await Promise.all([forgetKey(kv, handle), dropPending(kv, handle)]);
      approved.headers.set('location', redirectTo);
      return new Response(null, { status: 302, headers: approved.headers });
    }
    return html(errorPage('Unexpected form', 'This form did not come from this consent page.'), 400, csp);
  } catch (error) {
    return failure(lib, error, csp);
  }
}

/**
 * GET /authorize/upstream: the upstream sent the browser back. The consent goes on where it was (the review step
 * when a key was already accepted, the key step otherwise), showing the account connected or why it is not.
 */
export async function handleUpstreamCallback(request: Request, deps: ConsentDeps): Promise<Response> {
  if (request.method !== 'GET') return new Response(null, { status: 405, headers: { allow: 'GET' } });
  const connectable = connectSchemes(deps.loaded.catalogue.security, deps.config, deps.settings.upstreamScopes);
  const finished = await finishConnect(request, deps, connectable);
  if (!finished.ok) return failure(deps.lib, finished.error, await consentCsp(undefined));
  const { authRequest, handle, pending, problem } = finished;
  let client: ConsentDescription;
  try {
    const described = await deps.oauth.describeConsent(authRequest);
    client = { ...described, clientName: displayName(described.clientName) };
  } catch (error) {
    return failure(deps.lib, error, await consentCsp(undefined));
  }
  const csp = await pageCsp(authRequest, connectable);
  const frame = { ...frameFor(deps, client, handle, connectable, pending), action: finished.action };
  const kv = deps.env.OAUTH_KV!;
  const who = await recallKey(kv, handle);
  const current = who && (await stillValid(who, deps, pending));
  if (who && current) return review(frame, deps, who, current.record, authRequest, csp, problem, undefined, finished.headers);
  if (who) await forgetKey(kv, handle);
  return html(keyStep(frame, problem), 200, csp, finished.headers);
}

function frameFor(deps: ConsentDeps, client: ConsentDescription, handle: string, connectable: ReadonlyMap<string, ConnectScheme>, pending: TokenSet): PageFrame {
  const title = deps.loaded.catalogue.source.title;
  const frame: PageFrame = { title, client, handle };
  if (connectable.size) {
    frame.accounts = accountOffers(connectable, pending, title);
    frame.accountSignIn = deps.settings.accountSignIn;
  }
  return frame;
}

/** The page's CSP: its forms post to itself, redirect to the client, or (connect) to the upstream's sign-in. */
function pageCsp(authRequest: AuthRequest, connectable: ReadonlyMap<string, ConnectScheme>): Promise<string> {
  return consentCsp(authRequest.redirectUri, [...connectable.values()].map((s) => s.authorizationUrl));
}

/** Whether who the consent authorizes still may: a key not revoked or expired, or a connected account where it suffices. */
async function stillValid(who: ConsentWho, deps: ConsentDeps, pending: TokenSet): Promise<{ record?: KeyRecord } | undefined> {
  if (who === 'account') return deps.settings.accountSignIn && Object.keys(pending).length ? {} : undefined;
  const status = await keyStatus(who, deps.config, deps.env);
  return status.ok ? (status.record ? { record: status.record } : {}) : undefined;
}

function review(frame: PageFrame, deps: ConsentDeps, who: ConsentWho, record: KeyRecord | undefined, authRequest: AuthRequest, csp: string, error?: string, posted?: string[], headers?: Headers): Response {
  const allowed = allowedToolsets(deps.loaded, record?.toolsets);
  const requested = authRequest.scope.filter((s) => s.startsWith('toolset:')).map((s) => s.slice('toolset:'.length)).filter((t) => allowed.includes(t));
  const checked = new Set(posted ?? (requested.length ? requested : allowed));
  const toolsets: ToolsetChoice[] = allowed.map((name) => ({ name, description: deps.loaded.catalogue.toolsets[name]?.description ?? '', checked: checked.has(name) }));
  const readOnly = { checked: authRequest.scope.includes('read-only'), forced: Boolean(record?.readOnly) };
  const summary: KeySummary =
    who === 'account' ? { owner: `Your ${frame.title} account`, id: '', account: true, facts: ['every toolset and tool', 'the API’s own limits on your account'] } : summarise(who, record);
  return html(reviewStep(frame, summary, toolsets, readOnly, error), error && posted ? 400 : 200, csp, headers);
}

function repeatedParameters(params: URLSearchParams): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const name of params.keys()) {
    if (name !== 'resource' && seen.has(name)) twice.add(name.slice(0, 40));
    seen.add(name);
  }
  return [...twice].slice(0, 5);
}

function keyScoped(keyToolsets: string[] | undefined): boolean {
  return Boolean(keyToolsets?.length && !keyToolsets.includes('all'));
}

/** The toolsets a key may narrow to: its own list, or the whole catalogue's. */
function allowedToolsets(loaded: LoadedCatalogue, keyToolsets: string[] | undefined): string[] {
  const all = Object.keys(loaded.catalogue.toolsets);
  return keyScoped(keyToolsets) ? keyToolsets!.filter((t) => all.includes(t)) : all;
}
