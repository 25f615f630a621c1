// The authorization-code side of the loopback upstream (test/support/auth-upstream.ts), as a real OAuth 2 server
// would run it: a sign-in page at /oauth/authorize where a person approves or denies, codes bound to the client, the
// redirect URI and a PKCE S256 challenge (one use, 60 s), and the authorization_code and refresh_token grants at the
// token endpoint, refresh tokens rotating. Its access tokens are what the API's `userCode` operations check.
// Written here rather than taken from oauth2-mock-server (which approves without a page and checks no PKCE) or
// oidc-provider (OpenID-first; refresh tokens only with offline_access and a consent prompt): the same server must be
// the API that checks the tokens, and let tests expire, revoke and refuse them, in fewer lines than either's setup.
//
// Client id conventions (the secret is clientSecretOf(id)): `…ttl<n>-…` access tokens live n seconds (default 3600);
// `fail-…` is refused at the token endpoint (invalid_client); `…norefresh-…` gets no refresh token.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientSecretOf } from './auth-values.ts';

interface Code {
  client: string;
  redirectUri: string;
  challenge: string;
  scope: string;
  user: string;
  expires: number;
}

interface Issued {
  client: string;
  user: string;
  expires: number;
}

export interface CodeServer {
  /** GET shows the sign-in page; POST (the page's form) redirects back with a code, or with access_denied. */
  authorize(req: IncomingMessage, res: ServerResponse, url: URL, body: string): void;
  /** A token request of the authorization_code or refresh_token grant; false for other grant types. */
  grant(form: URLSearchParams, client: string | undefined, secret: string | undefined, res: ServerResponse): boolean;
  /** Whether `token` is a live access token this server issued; the user it belongs to. */
  user(token: string): string | undefined;
  /** Test hooks: what happened for a client, and withdrawing its tokens. */
  stats(client: string): { authorize: Record<string, string> | undefined; codes: number; refreshes: number; live: number };
  revoke(client: string, which: 'access' | 'all'): void;
}

export function codeServer(): CodeServer {
  const codes = new Map<string, Code>();
  const access = new Map<string, Issued>();
  const refresh = new Map<string, Issued & { scope: string }>();
  const lastAuthorize = new Map<string, Record<string, string>>();
  const counts = new Map<string, number>();
  const count = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);
  const secret = () => randomBytes(12).toString('base64url');

  function issue(res: ServerResponse, client: string, user: string, scope: string): void {
    const ttl = Number(/ttl(\d+)-/.exec(client)?.[1] ?? 3600);
    const token = `ua-${client}-${secret()}`;
    access.set(token, { client, user, expires: Date.now() + ttl * 1000 });
    const body: Record<string, unknown> = { access_token: token, token_type: 'Bearer', expires_in: ttl, scope };
    if (!client.includes('norefresh-')) {
      const r = `ur-${secret()}`;
      refresh.set(r, { client, user, expires: Infinity, scope });
      body.refresh_token = r;
    }
    json(res, 200, body);
  }

  return {
    authorize(req, res, url, body) {
      const q = req.method === 'POST' ? new URLSearchParams(body) : url.searchParams;
      const p = Object.fromEntries(['response_type', 'client_id', 'redirect_uri', 'state', 'scope', 'code_challenge', 'code_challenge_method'].map((k) => [k, q.get(k) ?? '']));
      let redirect: URL;
      try {
        redirect = new URL(p.redirect_uri!);
      } catch {
        return page(res, 400, '<p>redirect_uri is not a URL</p>');
      }
      if (p.response_type !== 'code' || !p.client_id || p.code_challenge_method !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(p.code_challenge!)) {
        return page(res, 400, `<p>Bad authorization request: ${esc(JSON.stringify(p))}</p>`);
      }
      if (req.method !== 'POST') {
        lastAuthorize.set(p.client_id, p);
        const hidden = Object.entries(p).map(([k, v]) => `<input type="hidden" name="${k}" value="${esc(v)}">`).join('');
        return page(res, 200, `<h1>Sign in to the Secured API</h1><p>${esc(p.client_id)} asks for: ${esc(p.scope || '(no scope)')}</p>
<form method="post">${hidden}<label>User <input id="user" name="user" value="pat"></label>
<button id="approve" name="decision" value="approve">Approve</button> <button id="deny" name="decision" value="deny">Deny</button></form>`);
      }
      if (p.state) redirect.searchParams.set('state', p.state);
      if (q.get('decision') !== 'approve') {
        redirect.searchParams.set('error', 'access_denied');
        redirect.searchParams.set('error_description', 'The user denied the request');
      } else {
        const code = `uc-${secret()}`;
        codes.set(code, { client: p.client_id!, redirectUri: p.redirect_uri!, challenge: p.code_challenge!, scope: p.scope!, user: q.get('user') || 'pat', expires: Date.now() + 60_000 });
        redirect.searchParams.set('code', code);
      }
      res.writeHead(302, { location: redirect.toString() }).end();
    },

    grant(form, client, given, res) {
      const type = form.get('grant_type');
      if (type !== 'authorization_code' && type !== 'refresh_token') return false;
      if (!client || given !== clientSecretOf(client) || client.startsWith('fail-')) {
        json(res, 401, { error: 'invalid_client', error_description: 'Client authentication failed.' });
        return true;
      }
      if (type === 'authorization_code') {
        count(`${client} code`);
        const code = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (!code || code.client !== client || code.expires < Date.now() || code.redirectUri !== form.get('redirect_uri') || code.challenge !== challenge) {
          json(res, 400, { error: 'invalid_grant', error_description: 'The code is invalid, used, expired, or its PKCE verifier does not match.' });
        } else issue(res, client, code.user, code.scope);
        return true;
      }
      count(`${client} refresh`);
      const old = refresh.get(form.get('refresh_token') ?? '');
      if (!old || old.client !== client) {
        json(res, 400, { error: 'invalid_grant', error_description: 'The refresh token is invalid or was revoked.' });
        return true;
      }
      refresh.delete(form.get('refresh_token')!);
      issue(res, client, old.user, old.scope);
      return true;
    },

    user(token) {
      const t = access.get(token);
      return t && t.expires > Date.now() ? t.user : undefined;
    },

    stats(client) {
      return {
        authorize: lastAuthorize.get(client),
        codes: counts.get(`${client} code`) ?? 0,
        refreshes: counts.get(`${client} refresh`) ?? 0,
        live: [...access.values()].filter((t) => t.client === client && t.expires > Date.now()).length,
      };
    },

    revoke(client, which) {
      for (const [t, i] of access) if (i.client === client) access.delete(t);
      if (which === 'all') for (const [t, i] of refresh) if (i.client === client) refresh.delete(t);
    },
  };
}

function page(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>Secured API sign-in</title><link rel="icon" href="data:,"></head><body>${body}</body></html>`);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
