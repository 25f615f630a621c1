// Bearer authentication for the MCP routes: customer keys in KV (src/auth/store.ts), plus the single operator key
// API_KEY. The key-to-caller step (scope, rate limit, upstream credential) is key-caller.ts, shared with OAuth grants.
//
// Secrets discipline: the presented key, API_KEY, UPSTREAM_TOKEN and decrypted customer credentials never go
// into a log line, an error text or a response. Logs carry the key's public id only.
import type { Config } from '../config.ts';
import { hex } from '../lib/bytes.ts';
import { log, logOnce } from '../lib/log.ts';
import { parseBearer } from './bearer-header.ts';
import type { AuthContext, AuthOutcome, KeyRef } from './caller.ts';
import { refuse } from './challenge.ts';
import { callerForKey, isOperatorDigest, keyStatus } from './key-caller.ts';
import { isWellFormedKey } from './keys-core.ts';
import { tokenDigest } from './token-digest.ts';
import { passthroughUpstream } from './upstream-credential.ts';

export type { AuthContext, AuthOutcome, Caller } from './caller.ts';

/** One message for unknown, expired and revoked keys, so a response never says whether a key exists. */
const INVALID = 'The API key is invalid, expired or revoked.';

export async function authenticate(request: Request, config: Config, ctx: AuthContext = {}): Promise<AuthOutcome> {
  const env = ctx.env ?? {};
  const header = parseBearer(request.headers.get('authorization'));
  if (header.kind === 'missing') return refuse(request, 'missing_token', 'Send your API key as "Authorization: Bearer <key>".');
  if (header.kind === 'malformed') return refuse(request, 'invalid_request', 'The Authorization header must be "Bearer <key>".');
  const token = header.token;

  if (config.credentialMode === 'passthrough') {
    // The upstream is the authority: it sees the caller's own token and answers 401 itself if it is wrong.
    const upstream = passthroughUpstream(token);
    return { ok: true, caller: { id: 'passthrough', scope: {}, upstream: upstream.upstream, secrets: upstream.secrets } };
  }

  const digest = await tokenDigest(token);
  const hash = hex(digest);
  let ref: KeyRef;
  // The operator key (wrangler secret API_KEY, or a --var for local runs) may have any format.
  if (await isOperatorDigest(config, digest)) {
    ref = { kind: 'operator', hash, id: hash.slice(0, 8) };
  } else {
    if (!isWellFormedKey(token)) {
      return refuse(request, 'invalid_token', 'The API key is malformed: keys start with mcp_live_ or mcp_test_ followed by at least 32 letters and digits.');
    }
    if (!env.KEYS) {
      logOnce('KEYS', 'binding_missing', { binding: 'KEYS', effect: 'only API_KEY is accepted' });
      return refuse(request, 'invalid_token', INVALID);
    }
    ref = { kind: 'record', hash, id: '' };
  }
  const status = await keyStatus(ref, config, env);
  if (!status.ok) {
    if (status.id) log('auth_refused', { key: status.id, reason: status.reason });
    return refuse(request, 'invalid_token', INVALID);
  }
  if (status.record) ref.id = status.record.id;
  return callerForKey(ref, status, config, ctx, { token });
}

