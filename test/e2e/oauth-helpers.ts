// OAuth as the real SDK clients do it, against `wrangler dev`: an in-memory OAuthClientProvider (one class serves
// the v2 `@modelcontextprotocol/client` and the v1 `@modelcontextprotocol/sdk`), the v2 and v1 connect-authorize-
// reconnect dances, consent over plain HTTP (test/support/oauth-consent.ts), a loopback https server for a Client
// ID Metadata Document with a throwaway CA, and a loopback callback server for browser consent.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2, UnauthorizedError as UnauthorizedV2 } from '@modelcontextprotocol/client';
import { UnauthorizedError as UnauthorizedV1 } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ConsentSession, pkce, redirectParams, type ConsentChoice } from '../support/oauth-consent.ts';

/** What the client hands the user agent, and what comes back on its redirect URI. */
export type Authorize = (authorizationUrl: URL) => Promise<URLSearchParams>;

interface Tokens {
  access_token: string;
  refresh_token?: string;
  token_type: string;
  scope?: string;
}

export class MemoryProvider {
  readonly redirectUrl: string;
  readonly clientMetadataUrl: string | undefined;
  private client: { client_id: string; client_secret?: string } | undefined;
  private stored: Tokens | undefined;
  private verifier = '';
  /** Every token set the SDK saved, in order (the refresh test reads the rotation from here). */
  readonly saved: Tokens[] = [];
  /** The authorization URLs the SDK asked the user agent to open. */
  readonly opened: URL[] = [];
  private callback: Promise<URLSearchParams> | undefined;
  private readonly authorize: Authorize;

  constructor(opts: { redirectUrl: string; authorize: Authorize; clientMetadataUrl?: string }) {
    this.redirectUrl = opts.redirectUrl;
    this.authorize = opts.authorize;
    this.clientMetadataUrl = opts.clientMetadataUrl;
  }

  get clientMetadata() {
    return { client_name: 'e2e OAuth client', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: { client_id: string; client_secret?: string }) {
    this.client = info;
  }
  get clientId(): string | undefined {
    return this.client?.client_id;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: Tokens) {
    this.stored = tokens;
    this.saved.push(tokens);
  }
  redirectToAuthorization(url: URL) {
    this.opened.push(url);
    this.callback = this.authorize(url);
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  // The v2 SDK binds the callback leg to the authorization server it discovered (SEP-2352) through this state.
  private discovery: unknown;
  saveDiscoveryState(state: unknown) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery as never;
  }
  codeVerifier() {
    return this.verifier;
  }
  /** The callback parameters of the last authorization the SDK started. */
  async callbackParams(): Promise<URLSearchParams> {
    if (!this.callback) throw new Error('the client never started an authorization');
    const params = await this.callback;
    this.callback = undefined;
    return params;
  }
  /** Makes the stored access token worthless, so the next request gets a 401 and the SDK refreshes. */
  spoilAccessToken() {
    if (this.stored) this.stored = { ...this.stored, access_token: `${this.stored.access_token}x` };
  }
}

/** Consent over plain HTTP: open the page, paste the key, allow; the redirect's parameters come back. */
export function httpConsent(key: string, choice: ConsentChoice = {}): Authorize {
  return async (url) => redirectParams(await (await new ConsentSession(fetch, url.href).open()).consent(key, choice));
}

/** v2 client: connect → 401 → discovery, registration (or CIMD), authorization → finishAuth(code, iss) → connect. */
export async function connectV2WithOAuth(endpoint: string, provider: MemoryProvider): Promise<ClientV2> {
  const first = new TransportV2(new URL(endpoint), { authProvider: provider });
  const probe = new ClientV2({ name: 'e2e-oauth-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const err = await probe.connect(first).then(() => undefined, (e: unknown) => e);
  if (!(err instanceof UnauthorizedV2)) throw new Error(`expected the first connect to need authorization, got ${String(err)}`);
  await first.finishAuth(await provider.callbackParams());
  const client = new ClientV2({ name: 'e2e-oauth-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new TransportV2(new URL(endpoint), { authProvider: provider }));
  return client;
}

/** v1 client: the same dance with finishAuth(code). */
export async function connectV1WithOAuth(endpoint: string, provider: MemoryProvider): Promise<ClientV1> {
  const first = new TransportV1(new URL(endpoint), { authProvider: provider });
  const probe = new ClientV1({ name: 'e2e-oauth-v1', version: '1.0.0' });
  const err = await probe.connect(first).then(() => undefined, (e: unknown) => e);
  if (!(err instanceof UnauthorizedV1)) throw new Error(`expected the first connect to need authorization, got ${String(err)}`);
  const params = await provider.callbackParams();
  await first.finishAuth(params.get('code')!);
  const client = new ClientV1({ name: 'e2e-oauth-v1', version: '1.0.0' });
  await client.connect(new TransportV1(new URL(endpoint), { authProvider: provider }));
  return client;
}

export interface Served {
  url: string;
  close(): Promise<void>;
}

function listen(server: ReturnType<typeof createHttpServer>, scheme: 'http' | 'https'): Promise<Served> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      }),
    ),
  );
}

/** A throwaway CA and a certificate for 127.0.0.1 signed by it (openssl); the CA file goes to NODE_EXTRA_CA_CERTS. */
export async function loopbackCertificate(): Promise<{ caFile: string; key: string; cert: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-e2e-ca-'));
  const run = promisify(execFile);
  const at = (f: string) => join(dir, f);
  await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=mcp-catalogue e2e CA', '-keyout', at('ca.key'), '-out', at('ca.pem'), '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign']);
  await run('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', at('leaf.key'), '-out', at('leaf.csr')]);
  await writeFile(at('leaf.ext'), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  await run('openssl', ['x509', '-req', '-in', at('leaf.csr'), '-CA', at('ca.pem'), '-CAkey', at('ca.key'), '-CAcreateserial', '-days', '2', '-extfile', at('leaf.ext'), '-out', at('leaf.pem')]);
  return { caFile: at('ca.pem'), key: await readFile(at('leaf.key'), 'utf8'), cert: await readFile(at('leaf.pem'), 'utf8'), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Serves Client ID Metadata Documents over https on loopback: GET /clients/<name>.json is a document whose
 * client_id is its own URL and whose redirect_uris are the ones registered with `document()`.
 */
export async function cimdServer(tls: { key: string; cert: string }): Promise<Served & { document(name: string, redirectUris: string[]): string; fetched: string[] }> {
  const docs = new Map<string, string[]>();
  const fetched: string[] = [];
  let base = '';
  const server = createHttpsServer(tls, (req, res) => {
    fetched.push(req.url ?? '');
    const redirects = docs.get(req.url ?? '');
    if (!redirects) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify({ client_id: base + req.url, client_name: 'e2e CIMD client', redirect_uris: redirects, grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }));
  });
  const served = await listen(server as unknown as ReturnType<typeof createHttpServer>, 'https');
  base = served.url;
  return {
    ...served,
    fetched,
    document(name, redirectUris) {
      docs.set(`/clients/${name}.json`, redirectUris);
      return `${base}/clients/${name}.json`;
    },
  };
}

/** A loopback redirect URI that records what the browser brings back and shows a small page. */
export async function callbackServer(): Promise<Served & { next(): Promise<URLSearchParams>; redirectUrl: string }> {
  let waiting: ((p: URLSearchParams) => void) | undefined;
  const arrived: URLSearchParams[] = [];
  const server = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>done</title><p>Authorized. You can close this window.</p>');
    if (waiting) waiting(url.searchParams);
    else arrived.push(url.searchParams);
    waiting = undefined;
  });
  const served = await listen(server, 'http');
  return {
    ...served,
    redirectUrl: `${served.url}/callback`,
    next: () => (arrived.length ? Promise.resolve(arrived.shift()!) : new Promise((r) => (waiting = r))),
  };
}

export interface CodeGrant {
  clientId: string;
  code: string;
  verifier: string;
}

/** The authorization code flow with raw HTTP, for the refusals an SDK client would never provoke on purpose. */
export class RawOAuth {
  readonly base: string;
  readonly redirect: string;
  constructor(base: string, redirect = 'http://127.0.0.1:43117/callback') {
    this.base = base;
    this.redirect = redirect;
  }

  async register(redirectUris = [this.redirect]): Promise<string> {
    const res = await fetch(`${this.base}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'raw e2e', redirect_uris: redirectUris, token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] }),
    });
    if (res.status !== 201) throw new Error(`registration answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { client_id: string }).client_id;
  }

  async authorizeUrl(clientId: string, extra: Record<string, string> = {}): Promise<{ url: string; verifier: string }> {
    const { verifier, challenge } = await pkce();
    const q = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: this.redirect, state: 's1', resource: `${this.base}/mcp`, code_challenge: challenge, code_challenge_method: 'S256', ...extra });
    return { url: `${this.base}/authorize?${q}`, verifier };
  }

  async token(fields: Record<string, string>): Promise<{ status: number; body: Record<string, string> }> {
    const res = await fetch(`${this.base}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  }

  /** A registered client, a completed consent with `key`, and the code it brought back. */
  async code(key: string, choice: ConsentChoice = {}): Promise<CodeGrant> {
    const clientId = await this.register();
    const { url, verifier } = await this.authorizeUrl(clientId);
    const session = await new ConsentSession(fetch, url).open();
    return { clientId, code: redirectParams(await session.consent(key, choice)).get('code')!, verifier };
  }

  exchange(c: CodeGrant, verifier = c.verifier) {
    return this.token({ grant_type: 'authorization_code', code: c.code, redirect_uri: this.redirect, client_id: c.clientId, code_verifier: verifier, resource: `${this.base}/mcp` });
  }

  refresh(clientId: string, refreshToken: string) {
    return this.token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
  }

  /** Consent and exchange in one: the tokens a client would hold. */
  async grant(key: string, choice: ConsentChoice = {}): Promise<{ clientId: string; access: string; refresh: string; grantId: string }> {
    const c = await this.code(key, choice);
    const { status, body } = await this.exchange(c);
    if (status !== 200) throw new Error(`token exchange answered ${status}: ${JSON.stringify(body)}`);
    // Tokens are <userId>:<grantId>:<secret> (@cloudflare/workers-oauth-provider).
    return { clientId: c.clientId, access: body.access_token!, refresh: body.refresh_token!, grantId: body.access_token!.split(':')[1]! };
  }
}

/** An MCP initialize with a bearer, raw: what a client's first request looks like. */
export function initializeWith(url: string, bearer: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
}
