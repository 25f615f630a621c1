// What the consent pages work with, and their HTTP answers: the HTML with its headers (one CSP, ours), redirects, and the library's errors as
// a redirect (only where it validated where to) or a page.
import type { OAuthHelpers } from '@cloudflare/workers-oauth-provider';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { Config, Env } from '../config.ts';
import type { OAuthLibrary } from '../oauth-library.ts';
import { errorPage } from './consent-view.ts';
import type { OAuthSettings } from './settings.ts';

/** What the consent pages work with, per request (src/oauth/routes.ts builds it). */
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

const BASE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // Not no-referrer: under it Chromium sends `Origin: null` with the page's own form posts, which the Host/Origin
  // guard must refuse. same-origin still sends nothing to the client the final redirect goes to.
  'referrer-policy': 'same-origin',
};

export function html(body: string, status: number, csp: string, from?: Headers, extra: Record<string, string> = {}): Response {
  const headers = new Headers(from);
  for (const [k, v] of Object.entries({ ...BASE_HEADERS, ...extra })) headers.set(k, v);
  // One CSP, ours: it already carries the frame-ancestors 'none' beginConsent() asks for.
  headers.set('content-security-policy', csp);
  return new Response(body, { status, headers });
}

export function redirect(location: string, status = 302, from?: Headers): Response {
  const headers = new Headers(from);
  headers.set('location', location);
  headers.set('cache-control', 'no-store');
  return new Response(null, { status, headers });
}

/** Errors the library throws for requests that cannot go on: redirect only when it validated where to. */
export function failure(lib: OAuthLibrary, error: unknown, csp: string): Response {
  if (error instanceof lib.AuthorizationError) {
    if (error.redirectTo) return redirect(error.redirectTo);
    return html(errorPage('This authorization cannot continue', error.description), 400, csp);
  }
  if (error instanceof lib.CimdFetchError) {
    return html(errorPage('This app could not be verified', 'Its client metadata document could not be fetched or is not valid.'), 400, csp);
  }
  throw error;
}
