// Bearer authentication for /mcp: customer keys in KV (src/auth/store.ts), plus the single operator key API_KEY.
// Also decides what the upstream sees (CREDENTIAL_MODE) and enforces the per-key rate limit.
//
// Secrets discipline: the presented key, API_KEY, UPSTREAM_TOKEN and decrypted customer credentials never go
// into a log line, an error text or a response. Logs carry the key's public id only.
import type { SliceSpec } from '../catalogue/slices.ts';
import type { Config, Env } from '../config.ts';
import { fromHex, hex, sha256, timingSafeEqual } from '../lib/bytes.ts';
import { log, logOnce } from '../lib/log.ts';
import { decryptSecret, importEncryptionKey, isWellFormedKey, type KeyRecord, type Rate } from './keys-core.ts';
import { countRequest, type RateDecision } from './rate-limit.ts';
import { lookupRecord, touchLastUsed } from './store.ts';
import { tokenDigest } from './token-digest.ts';

export interface Caller {
  /** Stable, non-secret id for logs: "key:<public id>" for customer keys, "key:<8 hex>" for API_KEY, or "passthrough". */
  id: string;
  /** Customer the key belongs to (customer keys only). */
  customerId?: string;
  /** What this key may use; intersected with the slice the URL asks for. Empty spec = everything. */
  scope: SliceSpec;
  /** Headers to send upstream on the caller's behalf (per CREDENTIAL_MODE). */
  upstreamHeaders: Record<string, string>;
  /** The presented key and upstream credentials: redacted from tool results (src/auth/redact.ts). Never log. */
  secrets?: string[];
  /** The key's rate limit, for counting more than the HTTP request (each api call of a code-mode execute). */
  rate?: { key: string; rate: Rate };
}

/** A refusal; `rateLimitedKey` is the caller id of a known key its rate limit refused (the pipeline meters it). */
export type AuthOutcome = { ok: true; caller: Caller } | { ok: false; response: Response; rateLimitedKey?: string };

export interface AuthContext {
  /** Worker bindings and secrets (KEYS, KEY_RATE_LIMITER, UPSTREAM_TOKEN, CREDENTIAL_ENCRYPTION_KEY). */
  env?: Env;
  /** ctx.waitUntil when available; background work (last-used day) must not delay the response. */
  waitUntil?: (p: Promise<unknown>) => void;
}

const BEARER = /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i;
/** One message for unknown, expired and revoked keys, so a response never says whether a key exists. */
const INVALID = 'The API key is invalid, expired or revoked.';

export async function authenticate(request: Request, config: Config, ctx: AuthContext = {}): Promise<AuthOutcome> {
  const env = ctx.env ?? {};
  const header = request.headers.get('authorization');
  if (!header) return refuse(request, 'missing_token', 'Send your API key as "Authorization: Bearer <key>".');
  const match = BEARER.exec(header);
  const token = match?.[1];
  if (!token) return refuse(request, 'invalid_request', 'The Authorization header must be "Bearer <key>".');

  if (config.credentialMode === 'passthrough') {
    // The upstream is the authority: it sees the caller's own token and answers 401 itself if it is wrong.
    return { ok: true, caller: { id: 'passthrough', scope: {}, upstreamHeaders: { authorization: `Bearer ${token}` }, secrets: [token] } };
  }

  const given = await tokenDigest(token);

  // The operator key (wrangler secret API_KEY, or a --var for local runs): full scope, no rate limit.
  if (config.apiKey) {
    const expected = await operatorDigest(config.apiKey);
    // Compare digests in constant time so response timing says nothing about how much of a key matched.
    if (timingSafeEqual(given, expected)) {
      const upstream = operatorUpstream(config, env);
      if (!upstream.ok) return upstream;
      return { ok: true, caller: { id: `key:${hex(given).slice(0, 8)}`, scope: {}, upstreamHeaders: upstream.headers, secrets: [token, ...upstream.secrets] } };
    }
  }

  if (!isWellFormedKey(token)) {
    return refuse(request, 'invalid_token', 'The API key is malformed: keys start with mcp_live_ or mcp_test_ followed by at least 32 letters and digits.');
  }
  const kv = env.KEYS;
  if (!kv) {
    logOnce('KEYS', 'binding_missing', { binding: 'KEYS', effect: 'only API_KEY is accepted' });
    return refuse(request, 'invalid_token', INVALID);
  }
  const hashHex = hex(given);
  const record = await lookupRecord(kv, hashHex, config.keyCacheTtlMs);
  // The lookup is by hash, so the key's characters never meet an early-exit comparison; the stored hash is
  // still compared in constant time as a check on the record itself.
  if (!record || record.hash.length !== 64 || !timingSafeEqual(fromHex(record.hash), given)) {
    return refuse(request, 'invalid_token', INVALID);
  }
  const now = Date.now();
  if (record.revokedAt || (record.expiresAt && !(Date.parse(record.expiresAt) > now))) {
    log('auth_refused', { key: record.id, reason: record.revokedAt ? 'revoked' : 'expired' });
    return refuse(request, 'invalid_token', INVALID);
  }

  const limited = await enforceRate(record, env);
  if (limited) return limited;

  const upstream = await customerUpstream(config, env, record);
  if (!upstream.ok) return upstream;
  touchLastUsed(kv, hashHex, new Date(now).toISOString().slice(0, 10), ctx.waitUntil ?? ((p) => void p));

  const caller: Caller = { id: `key:${record.id}`, customerId: record.customer.id, scope: recordScope(record), upstreamHeaders: upstream.headers, secrets: [token, ...upstream.secrets] };
  if (record.rate) caller.rate = { key: record.id, rate: record.rate };
  return { ok: true, caller };
}

/** What a key record allows: its toolsets, tools and read-only flag. */
export function recordScope(record: KeyRecord): SliceSpec {
  const scope: SliceSpec = {};
  if (record.toolsets?.length) scope.toolsets = record.toolsets;
  if (record.tools?.length) scope.tools = record.tools;
  if (record.readOnly) scope.readOnly = true;
  return scope;
}

/** The key's own rate limit (one Durable Object per key, src/auth/rate-limit.ts): a 429 refusal once it is used up. Fails open. */
export async function enforceRate(record: KeyRecord, env: Env): Promise<AuthOutcome | undefined> {
  if (!record.rate) return undefined;
  const decision = await countRequest(env.KEY_RATE_LIMITER, record.id, record.rate);
  return decision && !decision.ok ? rateLimited(record, decision) : undefined;
}

function resourceMetadataUrl(request: Request): string {
  return `${new URL(request.url).origin}/.well-known/oauth-protected-resource`;
}

type UpstreamOutcome = { ok: true; headers: Record<string, string>; secrets: string[] } | { ok: false; response: Response };

function withCredential(config: Config, credential: string): UpstreamOutcome {
  const headers = { [config.upstreamAuthHeader]: config.upstreamAuthHeader === 'authorization' ? `Bearer ${credential}` : credential };
  return { ok: true, headers, secrets: [credential] };
}
const NO_CREDENTIAL: UpstreamOutcome = { ok: true, headers: {}, secrets: [] };

/** The operator key: gateway (and customer, when set) send UPSTREAM_TOKEN; key mode sends nothing. */
export function operatorUpstream(config: Config, env: Env): UpstreamOutcome {
  if (config.credentialMode === 'gateway') return gatewayUpstream(config, env);
  if (config.credentialMode === 'customer' && env.UPSTREAM_TOKEN) return withCredential(config, env.UPSTREAM_TOKEN);
  return NO_CREDENTIAL;
}

function gatewayUpstream(config: Config, env: Env): UpstreamOutcome {
  if (!env.UPSTREAM_TOKEN) {
    log('config_error', { error: 'CREDENTIAL_MODE=gateway needs the secret UPSTREAM_TOKEN' });
    return { ok: false, response: serverError() };
  }
  return withCredential(config, env.UPSTREAM_TOKEN);
}

export async function customerUpstream(config: Config, env: Env, record: KeyRecord): Promise<UpstreamOutcome> {
  if (config.credentialMode === 'gateway') return gatewayUpstream(config, env);
  if (config.credentialMode !== 'customer') return NO_CREDENTIAL;
  if (!record.upstreamCredential) {
    log('auth_refused', { key: record.id, reason: 'no_upstream_credential' });
    return {
      ok: false,
      response: jsonResponse(403, { error: 'no_upstream_credential', error_description: 'This key has no upstream credential stored. Ask the operator to re-issue it with one.' }),
    };
  }
  if (!env.CREDENTIAL_ENCRYPTION_KEY) {
    log('config_error', { error: 'CREDENTIAL_MODE=customer needs the secret CREDENTIAL_ENCRYPTION_KEY' });
    return { ok: false, response: serverError() };
  }
  try {
    const key = await encryptionKey(env.CREDENTIAL_ENCRYPTION_KEY);
    return withCredential(config, await decryptSecret(key, record.upstreamCredential, record.hash));
  } catch {
    // Wrong CREDENTIAL_ENCRYPTION_KEY or a tampered record. The error object may quote key material; log only the fact.
    log('config_error', { key: record.id, error: 'upstream credential could not be decrypted' });
    return { ok: false, response: serverError() };
  }
}

// Per-isolate caches of derived secrets (never logged): the operator key's digest and the AES key.
let operator: { secret: string; digest: Promise<Uint8Array> } | undefined;
function operatorDigest(secret: string): Promise<Uint8Array> {
  if (operator?.secret !== secret) operator = { secret, digest: sha256(secret) };
  return operator.digest;
}
let aes: { secret: string; key: Promise<CryptoKey> } | undefined;
function encryptionKey(secret: string): Promise<CryptoKey> {
  if (aes?.secret !== secret) {
    const key = importEncryptionKey(secret);
    aes = { secret, key };
    key.catch(() => (aes = undefined));
  }
  return aes.key;
}

export function refuse(request: Request, error: string, description: string): AuthOutcome {
  // RFC 6750 §3.1: a request with no credentials gets a challenge without an error code.
  const detail = error === 'missing_token' ? '' : ` error="${error}", error_description="${description.replace(/"/g, "'")}",`;
  const challenge = `Bearer realm="mcp",${detail} resource_metadata="${resourceMetadataUrl(request)}"`;
  return { ok: false, response: jsonResponse(401, { error, error_description: description }, { 'www-authenticate': challenge }) };
}

/** The 429 refusal of a key over its rate, naming the key for usage metering. */
export function rateLimited(record: KeyRecord, d: RateDecision): AuthOutcome {
  return { ok: false, response: tooManyRequests(record, d), rateLimitedKey: `key:${record.id}` };
}

function tooManyRequests(record: KeyRecord, d: RateDecision): Response {
  const per = record.rate!.period;
  return jsonResponse(
    429,
    { error: 'rate_limited', error_description: `This key allows ${d.limit} requests per ${per}. Retry after ${d.resetSeconds} s.`, retry_after: d.resetSeconds },
    { 'retry-after': String(d.resetSeconds), 'ratelimit-limit': String(d.limit), 'ratelimit-remaining': '0', 'ratelimit-reset': String(d.resetSeconds) },
  );
}

function serverError(): Response {
  return jsonResponse(500, { error: 'server_misconfigured', error_description: 'The server cannot reach its upstream credentials. The operator has been told in the logs.' });
}

function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers } });
}
