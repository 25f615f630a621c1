// POST /token in front of the library, for what it leaves open:
//  - A refresh token that was already used ends its grant (RFC 9700 §4.14.2). The library keeps the previous token
//    usable until its successor is used, and each replay of it cancels the client's newest token; here a spent
//    token is recognised (its hash is recorded for the grant's lifetime, `refresh-spent:<sha256>`) and the grant is
//    revoked, so a thief's replay can end the grant but never take it over or lock the client out.
//  - The one exception is a retry: the same request from the same client within OAUTH_REFRESH_RETRY_SECONDS, while
//    the token it was given has not been used, gets the same answer again (stored encrypted under a key only the
//    spent token derives), so a response lost on the network does not end the grant.
//  - Any refused exchange of a real authorization code uses the code up (its grant is revoked), so a code is worth
//    one try: a wrong PKCE verifier cannot be followed by another guess.
// This reads the library's grant records (`grant:<userId>:<grantId>`: refreshTokenId, previousRefreshTokenId,
// authCodeId, authCodeWrappedKey; SHA-256 hex ids), the 1.2.x layout pinned in package.json.
import { readRequestBody } from '@modelcontextprotocol/server';
import type { Env } from '../config.ts';
import { base64ToBytes, bytesToBase64, fromHex, sha256Hex, timingSafeEqual } from '../lib/bytes.ts';
import { log } from '../lib/log.ts';
import type { OriginServers } from './authorization-server.ts';
import { oauthError } from './oauth-error.ts';
import type { OAuthSettings } from './settings.ts';

/** The longest client_id, code or refresh token read: each is part of a KV key, at most 512 bytes. */
const MAX_KEYED_CHARS = 400;
/** A token request is a few hundred bytes; a client assertion at most 16 KiB (the library's own bound). */
const MAX_TOKEN_BODY = 64 * 1024;
const SPENT_PREFIX = 'refresh-spent:';
/** Cloudflare KV's minimum expiration. */
const MIN_KV_TTL = 60;

interface GrantRecord {
  refreshTokenId?: string;
  previousRefreshTokenId?: string;
  authCodeId?: string;
  authCodeWrappedKey?: string;
}

interface SpentToken {
  userId: string;
  grantId: string;
  /** When it was spent (ms). */
  at: number;
  /** SHA-256 hex of the refresh token it was exchanged for. */
  successor: string;
  /** SHA-256 hex of the client authentication the exchange was made with. */
  client: string;
  /** The token answer, AES-GCM under a key derived from the spent token. */
  answer: { iv: string; data: string };
}

export interface TokenDeps {
  servers: OriginServers;
  settings: OAuthSettings;
  env: Env;
  ctx: ExecutionContext;
}

export async function handleToken(request: Request, deps: TokenDeps): Promise<Response> {
  if (request.method !== 'POST') return deps.servers.main.fetch(request, deps.env, deps.ctx);
  const read = await readRequestBody(request, MAX_TOKEN_BODY).catch(() => undefined);
  if (!read) return oauthError(400, 'invalid_request', 'The request body could not be read.');
  if (read.tooLarge) return oauthError(413, 'invalid_request', `A token request may be at most ${MAX_TOKEN_BODY} bytes.`);
  const headers = new Headers(request.headers);
  headers.delete('content-length');
  const forward = () => deps.servers.main.fetch(new Request(request.url, { method: 'POST', headers, body: read.text }), deps.env, deps.ctx);
  // The library takes form bodies only and refuses anything else itself.
  const form = /^application\/x-www-form-urlencoded\s*(;|$)/i.test(request.headers.get('content-type') ?? '') ? new URLSearchParams(read.text) : undefined;
  // The library keys KV records by these (a KV key is at most 512 bytes): longer ones came back as a 500.
  const tooLong = form && ['client_id', 'code', 'refresh_token'].find((f) => form.getAll(f).some((v) => v.length > MAX_KEYED_CHARS));
  if (tooLong) return oauthError(400, tooLong === 'client_id' ? 'invalid_client' : 'invalid_grant', `The ${tooLong} is longer than any this server issues.`);
  if ((request.headers.get('authorization') ?? '').length > MAX_KEYED_CHARS * 2) return oauthError(401, 'invalid_client', 'The client credentials are longer than any this server issues.');
  const grantType = form && single(form, 'grant_type');
  if (form && grantType === 'refresh_token') return refresh(request, form, forward, deps);
  if (form && grantType === 'authorization_code') return exchangeCode(form, forward, deps);
  return forward();
}

async function refresh(request: Request, form: URLSearchParams, forward: () => Promise<Response>, deps: TokenDeps): Promise<Response> {
  const token = single(form, 'refresh_token');
  const parts = token?.split(':') ?? [];
  if (!token || parts.length !== 3 || parts.some((p) => !p)) return forward();
  const [userId, grantId] = parts as [string, string, string];
  const kv = deps.env.OAUTH_KV!;
  const hash = await sha256Hex(token);
  const grant = await kv.get<GrantRecord>(`grant:${userId}:${grantId}`, { type: 'json' });
  if (!grant) return forward();
  const client = await clientFingerprint(request, form);

  if (sameHash(grant.refreshTokenId, hash)) {
    const answer = await forward();
    if (answer.status === 200) await recordSpent(kv, token, hash, { userId, grantId, client }, answer.clone(), deps.settings);
    return answer;
  }

  const spent = await kv.get<SpentToken>(SPENT_PREFIX + hash, { type: 'json' });
  const ours = spent && spent.userId === userId && spent.grantId === grantId ? spent : undefined;
  if (!ours && !sameHash(grant.previousRefreshTokenId, hash)) return forward();
  if (ours && retryAllowed(ours, grant, client, deps.settings)) {
    const body = await openAnswer(token, ours.answer);
    if (body) {
      log('oauth_refresh_retried', { key: userId });
      return new Response(body, { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache' } });
    }
  }
  await deps.servers.main.getOAuthApi(deps.env).revokeGrant(grantId, userId);
  log('oauth_refresh_reused', { key: userId, grant: grantId });
  return oauthError(400, 'invalid_grant', 'This refresh token was already used, so the authorization was ended to protect it. Authorize again.');
}

function retryAllowed(spent: SpentToken, grant: GrantRecord, client: string, settings: OAuthSettings): boolean {
  return (
    settings.refreshRetrySeconds > 0 &&
    Date.now() - spent.at <= settings.refreshRetrySeconds * 1000 &&
    // The answer's refresh token is still the grant's current one: the client never used it, so never received it.
    sameHash(grant.refreshTokenId, spent.successor) &&
    sameHash(client, spent.client)
  );
}

async function recordSpent(kv: KVNamespace, token: string, hash: string, who: Pick<SpentToken, 'userId' | 'grantId' | 'client'>, answer: Response, settings: OAuthSettings): Promise<void> {
  try {
    const text = await answer.text();
    const successor = (JSON.parse(text) as { refresh_token?: unknown }).refresh_token;
    if (typeof successor !== 'string') return;
    const record: SpentToken = { ...who, at: Date.now(), successor: await sha256Hex(successor), answer: await sealAnswer(token, text) };
    // Recognised as spent for as long as the grant can live without another refresh.
    const ttl = Math.max(MIN_KV_TTL, settings.refreshTokenTtl, settings.refreshIdleTtl ?? 0);
    await kv.put(SPENT_PREFIX + hash, JSON.stringify(record), { expirationTtl: ttl });
  } catch (error) {
    // The library has already rotated the token; without this record only its previous token is recognised.
    log('oauth_refresh_record_failed', { key: who.userId, error: error instanceof Error ? error.name : 'error' });
  }
}

async function exchangeCode(form: URLSearchParams, forward: () => Promise<Response>, deps: TokenDeps): Promise<Response> {
  const answer = await forward();
  if (answer.status < 400 || answer.status >= 500) return answer;
  const code = single(form, 'code');
  const parts = code?.split(':') ?? [];
  if (!code || parts.length !== 3 || parts.some((p) => !p)) return answer;
  const [userId, grantId] = parts as [string, string, string];
  const grant = await deps.env.OAUTH_KV!.get<GrantRecord>(`grant:${userId}:${grantId}`, { type: 'json' });
  // Still unexchanged (the wrapped key goes at the exchange) and really this code: it is used up now.
  if (grant?.authCodeWrappedKey && sameHash(grant.authCodeId, await sha256Hex(code))) {
    await deps.servers.main.getOAuthApi(deps.env).revokeGrant(grantId, userId);
    log('oauth_code_used_up', { key: userId, status: answer.status });
  }
  return answer;
}

function single(form: URLSearchParams, name: string): string | undefined {
  const all = form.getAll(name);
  return all.length === 1 ? all[0] : undefined;
}

function sameHash(a: string | undefined, b: string): boolean {
  return typeof a === 'string' && /^[0-9a-f]{64}$/.test(a) && /^[0-9a-f]{64}$/.test(b) && timingSafeEqual(fromHex(a), fromHex(b));
}

/** The client authentication a token request carried (Basic header, client_id/secret, assertion), hashed. */
async function clientFingerprint(request: Request, form: URLSearchParams): Promise<string> {
  const fields = ['client_id', 'client_secret', 'client_assertion_type', 'client_assertion'].map((f) => form.getAll(f).join('\n'));
  return sha256Hex(JSON.stringify([request.headers.get('authorization') ?? '', ...fields]));
}

async function answerKey(token: string): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey('raw', new TextEncoder().encode(token), 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: new TextEncoder().encode('mcp-catalogue refresh retry answer') },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

async function sealAnswer(token: string, text: string): Promise<SpentToken['answer']> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, await answerKey(token), new TextEncoder().encode(text));
  return { iv: bytesToBase64(iv), data: bytesToBase64(new Uint8Array(data)) };
}

async function openAnswer(token: string, sealed: SpentToken['answer']): Promise<string | undefined> {
  try {
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: base64ToBytes(sealed.iv) }, await answerKey(token), base64ToBytes(sealed.data));
    return new TextDecoder().decode(plain);
  } catch {
    return undefined;
  }
}
