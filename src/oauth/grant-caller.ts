// The Caller for a request that carries an OAuth access token, re-derived from the grant's props on every request
// through the same key-to-caller path as a static key (src/auth/key-caller.ts): the key record is read as for a
// static key (same cache, so a revoked or expired key stops every grant made from it within the key-revocation
// bound of docs/keys.md), its rate limit and upstream credential apply unchanged, and the scope is the key's own
// scope intersected with the narrowing chosen on the consent page. A grant that connected the user's upstream
// account adds its tokens (src/oauth/user-tokens.ts) as the caller's own; one made from that account alone
// (OAUTH_SIGN_IN=key-or-account) has no key, and stops when the operator turns that sign-in off.
import type { AuthContext, AuthOutcome, Caller } from '../auth/caller.ts';
import { refuse } from '../auth/challenge.ts';
import { callerForKey, keyStatus } from '../auth/key-caller.ts';
import type { Config } from '../config.ts';
import { log } from '../lib/log.ts';
import { isGrantProps, type GrantProps } from './grant.ts';
import type { OAuthSettings } from './settings.ts';
import type { ConnectScheme } from './upstream-connect.ts';
import { tokensTtl } from './upstream-store.ts';
import { userTokens } from './user-tokens.ts';

const REVOKED = 'The API key behind this authorization was revoked or has expired, or the authorization was withdrawn. Authorize again with a current key.';

/** Which grant the token belongs to, and what this deployment can do with a connected account. */
export interface GrantContext {
  userId: string;
  grantId: string;
  /** The schemes a user can connect here now (src/oauth/upstream-connect.ts connectSchemes). */
  schemes: ReadonlyMap<string, ConnectScheme>;
  settings: Pick<OAuthSettings, 'accountSignIn' | 'refreshTokenTtl' | 'refreshIdleTtl'>;
}

/**
 * `props` as the library decrypted them for `token`. The token joins the caller's secrets, so a tool result that
 * echoes it back is redacted like a static key.
 */
export async function callerFromGrant(request: Request, props: unknown, token: string, config: Config, ctx: AuthContext = {}, grant?: GrantContext): Promise<AuthOutcome> {
  if (config.credentialMode === 'passthrough' || !isGrantProps(props)) {
    log('oauth_refused', { reason: 'unusable_grant' });
    return refuse(request, 'invalid_token', REVOKED);
  }
  const user = accountTokens(props, ctx, grant);
  if (!props.key) {
    if (!grant?.settings.accountSignIn) {
      log('oauth_refused', { grant: grant?.grantId, reason: 'account_sign_in_off' });
      return refuse(request, 'invalid_token', 'This authorization was made with an upstream account alone, which this server no longer accepts. Authorize again with an API key.');
    }
    const caller: Caller = { id: `account:${grant.grantId}`, scope: props.scope, upstream: user ? { user } : {}, secrets: [token] };
    return { ok: true, caller };
  }
  const status = await keyStatus(props.key, config, ctx.env ?? {});
  if (!status.ok) {
    log('oauth_refused', { key: props.key.id, reason: status.reason });
    return refuse(request, 'invalid_token', REVOKED);
  }
  const outcome = await callerForKey(props.key, status, config, ctx, { token, narrowing: props.scope });
  // A copy: the key's credentials object may be shared by every caller of the key.
  if (outcome.ok && user) outcome.caller.upstream = { ...outcome.caller.upstream, user };
  return outcome;
}

function accountTokens(props: GrantProps, ctx: AuthContext, grant: GrantContext | undefined) {
  const kv = ctx.env?.OAUTH_KV;
  if (!props.upstream || !grant || !kv) return undefined;
  const ref = { kv, userId: grant.userId, grantId: grant.grantId, seal: props.upstream.seal, ttlSeconds: tokensTtl(grant.settings) };
  return userTokens(ref, props.upstream.schemes, grant.schemes);
}
