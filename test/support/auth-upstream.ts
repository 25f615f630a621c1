// A real upstream on loopback that checks credentials the way test/support/secured-api.json declares them, with its
// own OAuth 2 token endpoints (client credentials, in HTTP Basic or in the form) and an OpenID Connect discovery
// document. A request passes only with exactly the credentials of one of its operation's alternatives, each in its
// place: a wrong value, a credential in another place or an extra one is a 401 saying what was wrong.
//
// Test hooks: `GET /__tokens?client=<id>` counts the token requests of a client; `POST /__revoke?client=<id>` makes
// its issued tokens invalid (as an authorization server revoking them early). A client id `ttl<n>-…` gets tokens
// that live n seconds (default 3600); `fail-…` is refused with invalid_client (`quote-…` too, its secret quoted); `slow-…` waits 200 ms before answering.
// `GET /__last?path=/cc` is the last request on that path (headers and URL), and `GET /__hits?path=/cc` how many
// requests reached it: what proves a refused call sent nothing.
//
// Users' own accounts (the `userCode` scheme, authorization code): test/support/auth-code-server.ts serves the sign-in
// page at /oauth/authorize and the code and refresh grants at /oauth/token. `GET /__code?client=<id>` says what it
// saw for a client; `POST /__revoke?client=<id>&which=access|all` withdraws its access tokens, or all its tokens.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { codeServer } from './auth-code-server.ts';
import { AUTH_VALUES, clientSecretOf, USER_TOKEN } from './auth-values.ts';

type Check = 'headerKey' | 'queryKey' | 'cookieKey' | 'basicAuth' | 'bearerAuth' | 'tokenAuth' | 'clientApp' | 'postApp' | 'oidc' | 'userCode';

/** Each path's alternatives (OR), each a list of credentials that must all be present (AND); [] passes with none. */
const ROUTES: Record<string, Check[][]> = {
  '/header': [['headerKey']],
  '/query': [['queryKey']],
  '/cookie': [['cookieKey']],
  '/basic': [['basicAuth']],
  '/bearer': [['bearerAuth']],
  '/token-scheme': [['tokenAuth']],
  '/cc': [['clientApp']],
  '/cc-write': [['clientApp']],
  '/cc-post': [['postApp']],
  '/oidc': [['oidc']],
  '/and': [['headerKey', 'basicAuth']],
  '/or': [['bearerAuth'], ['queryKey']],
  '/optional': [['bearerAuth'], []],
  '/public': [[]],
  '/user': [['userCode']],
  // Answers with the request as received, credentials included: what an API that echoes them would do.
  '/echo': [['queryKey']],
};

interface Issued {
  client: string;
  expires: number;
  endpoint: 'token' | 'token-post' | 'oidc';
}

export async function startAuthUpstream(): Promise<{ url: string; close: () => Promise<void> }> {
  const issued = new Map<string, Issued>();
  const counts = new Map<string, number>();
  const last = new Map<string, { url: string; headers: IncomingMessage['headers']; body: string }>();
  const hits = new Map<string, number>();
  let serial = 0;
  let base = '';
  const users = codeServer();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', base);
      const path = url.pathname;
      if (path === '/__tokens') return json(res, 200, { count: counts.get(url.searchParams.get('client') ?? '') ?? 0 });
      if (path === '/__revoke') {
        for (const [t, i] of issued) if (i.client === url.searchParams.get('client')) issued.delete(t);
        users.revoke(url.searchParams.get('client') ?? '', url.searchParams.get('which') === 'access' ? 'access' : 'all');
        return json(res, 200, { revoked: true });
      }
      if (path === '/__code') return json(res, 200, users.stats(url.searchParams.get('client') ?? ''));
      if (path === '/oauth/authorize') return users.authorize(req, res, url, body);
      if (path === '/__hits') return json(res, 200, { count: hits.get(url.searchParams.get('path') ?? '') ?? 0 });
      if (path === '/__last') {
        const r = last.get(url.searchParams.get('path') ?? '');
        return r ? json(res, 200, r) : json(res, 404, { error: 'none' });
      }
      if (path === '/.well-known/openid-configuration') {
        return json(res, 200, { issuer: base, token_endpoint: `${base}/oidc/token`, token_endpoint_auth_methods_supported: ['client_secret_basic'] });
      }
      if (path === '/oauth/token' || path === '/oauth/token-post' || path === '/oidc/token') {
        const endpoint = path === '/oauth/token' ? 'token' : path === '/oauth/token-post' ? 'token-post' : 'oidc';
        return tokenEndpoint(req, res, body, endpoint);
      }
      last.set(path, { url: req.url ?? '', headers: req.headers, body });
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const alternatives = ROUTES[path];
      if (!alternatives) return json(res, 404, { error: `no route ${path}` });
      const problem = checkRequest(req, url, alternatives);
      if (problem) return json(res, 401, { error: 'unauthorized', problem }, { 'www-authenticate': 'Bearer' });
      if (path === '/echo') return json(res, 200, { url: req.url, headers: req.headers });
      // Whose account the token is: the user who signed in at /oauth/authorize (what proves per-user tokens).
      if (path === '/user') return json(res, 200, { ok: true, accepted: path, user: users.user(/^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '') ?? 'token-user' });
      return json(res, 200, { ok: true, accepted: path });
    });
  });

  function tokenEndpoint(req: IncomingMessage, res: ServerResponse, body: string, endpoint: Issued['endpoint']): void {
    const form = new URLSearchParams(body);
    let client: string | undefined;
    let secret: string | undefined;
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
    if (basic) {
      const [id, ...rest] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
      client = decodeURIComponent(id!.replace(/\+/g, ' '));
      secret = decodeURIComponent(rest.join(':').replace(/\+/g, ' '));
    }
    const counted = client ?? form.get('client_id') ?? '';
    counts.set(counted, (counts.get(counted) ?? 0) + 1);
    // token-post takes the client's credentials only in the form (client_secret_post).
    if (endpoint === 'token-post') {
      if (basic) return json(res, 401, { error: 'invalid_client', error_description: 'use client_secret_post' });
      client = form.get('client_id') ?? undefined;
      secret = form.get('client_secret') ?? undefined;
    }
    if (endpoint === 'token' && users.grant(form, client ?? form.get('client_id') ?? undefined, secret ?? form.get('client_secret') ?? undefined, res)) return;
    if (form.get('grant_type') !== 'client_credentials') return json(res, 400, { error: 'unsupported_grant_type' });
    // A careless authorization server that quotes what it was sent in its refusal.
    if (client?.startsWith('quote-')) return json(res, 401, { error: 'invalid_client', error_description: `unknown client_secret ${secret}` });
    if (!client || secret !== clientSecretOf(client) || client.startsWith('fail-')) return json(res, 401, { error: 'invalid_client', error_description: 'Client authentication failed.' });
    const ttl = Number(/^ttl(\d+)-/.exec(client)?.[1] ?? 3600);
    const token = `at-${endpoint}-${client}-${++serial}`;
    issued.set(token, { client, expires: Date.now() + ttl * 1000, endpoint });
    const answer = () => json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: ttl, scope: form.get('scope') ?? '' });
    if (client.startsWith('slow-')) setTimeout(answer, 200);
    else answer();
  }

  /** Why the request's credentials do not match any alternative exactly, or undefined when one matches. */
  function checkRequest(req: IncomingMessage, url: URL, alternatives: Check[][]): string | undefined {
    const present = presented(req, url);
    const problems: string[] = [];
    for (const alt of alternatives) {
      const missing = alt.filter((c) => !valid(c, present));
      const extra = [...present.kinds].filter((k) => !alt.some((c) => carrier(c) === k));
      if (!missing.length && !extra.length) return undefined;
      problems.push(`[${alt.join('+') || 'none'}]: ${[...missing.map((m) => `missing or wrong ${m}`), ...extra.map((e) => `unexpected ${e}`)].join(', ')}`);
    }
    return problems.join('; ');
  }

  function valid(check: Check, p: Presented): boolean {
    switch (check) {
      case 'headerKey':
        return p.header === AUTH_VALUES.headerKey;
      case 'queryKey':
        return p.query === AUTH_VALUES.queryKey;
      case 'cookieKey':
        return p.cookie === AUTH_VALUES.cookieKey;
      case 'basicAuth':
        return p.authorization === `Basic ${Buffer.from(AUTH_VALUES.basicAuth).toString('base64')}`;
      case 'bearerAuth':
        return p.authorization === `Bearer ${AUTH_VALUES.bearerAuth}`;
      case 'tokenAuth':
        return p.authorization === `Token ${AUTH_VALUES.tokenAuth}`;
      case 'userCode': {
        const token = /^Bearer (.+)$/.exec(p.authorization ?? '')?.[1];
        return token === USER_TOKEN || Boolean(token && users.user(token));
      }
      default: {
        const token = /^Bearer (.+)$/.exec(p.authorization ?? '')?.[1];
        const i = token ? issued.get(token) : undefined;
        const endpoint = check === 'clientApp' ? 'token' : check === 'postApp' ? 'token-post' : 'oidc';
        return Boolean(i && i.endpoint === endpoint && i.expires > Date.now());
      }
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Presented {
  header?: string;
  query?: string;
  cookie?: string;
  authorization?: string;
  /** Where credentials were found: x-api-key, api_key, session, authorization. */
  kinds: Set<string>;
}

function presented(req: IncomingMessage, url: URL): Presented {
  const p: Presented = { kinds: new Set() };
  const header = req.headers['x-api-key'];
  if (typeof header === 'string') (p.header = header), p.kinds.add('x-api-key');
  const query = url.searchParams.getAll('api_key');
  if (query.length) (p.query = query.length === 1 ? query[0] : query.join(',')), p.kinds.add('api_key');
  const cookie = /(?:^|;\s*)session=([^;]*)/.exec(req.headers.cookie ?? '')?.[1];
  if (cookie !== undefined) (p.cookie = cookie), p.kinds.add('session');
  if (req.headers.authorization) (p.authorization = req.headers.authorization), p.kinds.add('authorization');
  return p;
}

/** Where each scheme's credential travels: what an extra credential is compared against. */
function carrier(c: Check): string {
  return c === 'headerKey' ? 'x-api-key' : c === 'queryKey' ? 'api_key' : c === 'cookieKey' ? 'session' : 'authorization';
}

function json(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...extra });
  res.end(text);
}
