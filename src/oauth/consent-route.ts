// /authorize: the consent page of the OAuth front door. The library validates the authorization request (client,
// exact redirect URI, https-or-loopback, resource, S256), keeps it server-side behind a one-time handle bound to
// this browser by a __Host- cookie (beginConsent/approveConsent: the CSRF protection), and mints the code.
// This module asks for the API key, shows what it allows, takes the customer's narrowing, and builds the grant.
//
//   GET  /authorize?…                      step 1: paste a key
//   POST /authorize?…  step=key            key checked (per-IP attempt limit first) → step 2, or step 1 again
//   POST /authorize?…  step=review         narrowing checked → approveConsent → completeAuthorization → 302 code
//   POST …             decision=deny       denyConsent → 302 access_denied
import type { AuthRequest, ConsentDescription, OAuthHelpers } from '@cloudflare/workers-oauth-provider';
import { keyStatus } from '../auth/key-caller.ts';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { SliceSpec } from '../catalogue/slices.ts';
import type { Config, Env } from '../config.ts';
import type { OAuthLibrary } from '../oauth-library.ts';
import { clientIp, countFromIp } from './attempts.ts';
import { displayName } from './client-metadata.ts';
import { checkPastedKey, forgetKey, recallKey, rememberKey, summarise } from './consent-key.ts';
import { consentCsp, errorPage, keyStep, reviewStep, type PageFrame, type ToolsetChoice } from './consent-view.ts';
import { grantUserId, scopeTokens, type GrantProps, type KeyRef } from './grant.ts';
import type { OAuthSettings } from './settings.ts';

export interface ConsentDeps {
  /** The OAuth library, loaded (src/oauth-library.ts): its error classes and redirect helper. */
  lib: OAuthLibrary;
  /** authorizationServer.getOAuthApi(env) for this request's origin (src/oauth/authorization-server.ts). */
  oauth: OAuthHelpers;
  loaded: LoadedCatalogue;
  config: Config;
  settings: OAuthSettings;
  env: Env;
  waitUntil?: (p: Promise<unknown>) => void;
}

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
  const csp = await consentCsp(authRequest.redirectUri);
  const title = deps.loaded.catalogue.source.title;

  if (request.method === 'GET') {
    const consent = await deps.oauth.beginConsent(authRequest);
    return html(keyStep({ title, client, handle: consent.handle }), 200, csp, consent.headers);
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
  const frame: PageFrame = { title, client, handle };
  const kv = deps.env.OAUTH_KV!;

  try {
    if (field('decision') === 'deny') {
      const denied = await deps.oauth.denyConsent(request, handle);
      await forgetKey(kv, handle);
      return new Response(null, { status: 302, headers: denied.headers });
    }

    if (field('step') === 'key') {
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
      const ref = await recallKey(kv, handle);
      if (!ref) return html(errorPage('This authorization expired', 'The page was open too long or was already used.'), 400, csp);
      const status = await keyStatus(ref, deps.config, deps.env);
      if (!status.ok) {
        await forgetKey(kv, handle);
        return html(keyStep(frame, 'That key was revoked or has expired meanwhile. Paste a current key.'), 403, csp);
      }
      const allowed = allowedToolsets(deps.loaded, status.record?.toolsets);
      const chosen = [...new Set(form.getAll('toolset').filter((v): v is string => typeof v === 'string'))];
      const outside = chosen.filter((t) => !allowed.includes(t));
      if (outside.length || (chosen.length === 0 && allowed.length > 0)) {
        const why = outside.length ? `This key does not allow ${outside.join(', ')}.` : 'Choose at least one toolset.';
        return review(frame, deps, ref, status.record, authRequest, csp, why, chosen);
      }
      const narrowed: SliceSpec = {};
      // The grant names its toolsets unless it is every toolset of an unscoped key: then it also covers toolsets
      // the catalogue gains later, as the key does. A toolset-scoped key's grant always carries them as its scope.
      if (chosen.length < allowed.length || keyScoped(status.record?.toolsets)) narrowed.toolsets = chosen;
      if (field('readonly') === '1') narrowed.readOnly = true;
      // The CSRF check: the handle must be bound to this browser's cookie, and it works once.
      const approved = await deps.oauth.approveConsent(request, handle, { scope: scopeTokens(narrowed) });
      const props: GrantProps = { v: 1, key: ref, scope: narrowed };
      const { redirectTo } = await deps.oauth.completeAuthorization({
        request: approved.request,
        userId: grantUserId(ref),
        // Storage-visible (not encrypted): what `keys list` shows. Nothing secret.
        metadata: { keyId: ref.id, client: client.clientName, toolsets: narrowed.toolsets ?? 'all', readOnly: Boolean(narrowed.readOnly) },
        scope: scopeTokens(narrowed),
        props,
      });
      await forgetKey(kv, handle);
      approved.headers.set('location', redirectTo);
      return new Response(null, { status: 302, headers: approved.headers });
    }
    return html(errorPage('Unexpected form', 'This form did not come from this consent page.'), 400, csp);
  } catch (error) {
    return failure(lib, error, csp);
  }
}

function review(frame: PageFrame, deps: ConsentDeps, ref: KeyRef, record: Parameters<typeof summarise>[1], authRequest: AuthRequest, csp: string, error?: string, posted?: string[]): Response {
  const allowed = allowedToolsets(deps.loaded, record?.toolsets);
  const requested = authRequest.scope.filter((s) => s.startsWith('toolset:')).map((s) => s.slice('toolset:'.length)).filter((t) => allowed.includes(t));
  const checked = new Set(posted ?? (requested.length ? requested : allowed));
  const toolsets: ToolsetChoice[] = allowed.map((name) => ({ name, description: deps.loaded.catalogue.toolsets[name]?.description ?? '', checked: checked.has(name) }));
  const readOnly = { checked: authRequest.scope.includes('read-only'), forced: Boolean(record?.readOnly) };
  return html(reviewStep(frame, summarise(ref, record), toolsets, readOnly, error), error ? 400 : 200, csp);
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

/** Errors the library throws for requests that cannot go on: redirect only when it validated where to. */
function failure(lib: OAuthLibrary, error: unknown, csp: string): Response {
  if (error instanceof lib.AuthorizationError) {
    if (error.redirectTo) return redirect(error.redirectTo);
    return html(errorPage('This authorization cannot continue', error.description), 400, csp);
  }
  if (error instanceof lib.CimdFetchError) {
    return html(errorPage('This app could not be verified', 'Its client metadata document could not be fetched or is not valid.'), 400, csp);
  }
  throw error;
}

function redirect(location: string): Response {
  return new Response(null, { status: 302, headers: { location, 'cache-control': 'no-store' } });
}

const BASE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // Not no-referrer: under it Chromium sends `Origin: null` with the page's own form posts, which the Host/Origin
  // guard must refuse. same-origin still sends nothing to the client the final redirect goes to.
  'referrer-policy': 'same-origin',
};

function html(body: string, status: number, csp: string, from?: Headers, extra: Record<string, string> = {}): Response {
  const headers = new Headers(from);
  for (const [k, v] of Object.entries({ ...BASE_HEADERS, ...extra })) headers.set(k, v);
  // One CSP, ours: it already carries the frame-ancestors 'none' beginConsent() asks for.
  headers.set('content-security-policy', csp);
  return new Response(body, { status, headers });
}
