// The Caller for a request that carries an OAuth access token, re-derived from the grant's props on every request
// through the same key-to-caller path as a static key (src/auth/key-caller.ts): the key record is read as for a
// static key (same cache, so a revoked or expired key stops every grant made from it within the key-revocation
// bound of docs/keys.md), its rate limit and upstream credential apply unchanged, and the scope is the key's own
// scope intersected with the narrowing chosen on the consent page.
import type { AuthContext, AuthOutcome } from '../auth/caller.ts';
import { refuse } from '../auth/challenge.ts';
import { callerForKey, keyStatus } from '../auth/key-caller.ts';
import type { Config } from '../config.ts';
import { log } from '../lib/log.ts';
import { isGrantProps } from './grant.ts';

const REVOKED = 'The API key behind this authorization was revoked or has expired, or the authorization was withdrawn. Authorize again with a current key.';

/**
 * `props` as the library decrypted them for `token`. The token joins the caller's secrets, so a tool result that
 * echoes it back is redacted like a static key.
 */
export async function callerFromGrant(request: Request, props: unknown, token: string, config: Config, ctx: AuthContext = {}): Promise<AuthOutcome> {
  if (config.credentialMode === 'passthrough' || !isGrantProps(props)) {
    log('oauth_refused', { reason: 'unusable_grant' });
    return refuse(request, 'invalid_token', REVOKED);
  }
  const status = await keyStatus(props.key, config, ctx.env ?? {});
  if (!status.ok) {
    log('oauth_refused', { key: props.key.id, reason: status.reason });
    return refuse(request, 'invalid_token', REVOKED);
  }
  return callerForKey(props.key, status, config, ctx, { token, narrowing: props.scope });
}
