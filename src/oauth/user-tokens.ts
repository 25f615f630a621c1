// A grant's connected upstream account as the UserTokens a call's credentials come from (src/auth/upstream-security.ts):
// the access token stored with the grant (src/oauth/upstream-store.ts), refreshed with its refresh token when it is
// about to expire or after the API refused it (401, once per call). Per isolate, a grant's tokens are kept as last
// read or refreshed, and concurrent calls that need a refresh share one. A refresh the upstream refuses as
// invalid_grant (the user withdrew access, or the refresh token expired) forgets that scheme's tokens, and the call
// says to reconnect. Tokens never reach a message or a log line.
import { TokenError } from '../auth/oauth-tokens.ts';
import type { UserTokens } from '../auth/upstream-security.ts';
import { log } from '../lib/log.ts';
import { Lru } from '../lib/lru.ts';
import { refreshToken, type ConnectScheme } from './upstream-connect.ts';
import { deleteGrantTokens, readGrantTokens, tokensKey, writeGrantTokens, type StoredToken, type TokenSet } from './upstream-store.ts';

const RECONNECT = 'sign in to this server again (authorize it anew) and connect the account on its consent page.';

/** Where a grant's tokens are, and the key that opens them (from the grant's props). */
export interface GrantTokensRef {
  kv: KVNamespace;
  userId: string;
  grantId: string;
  seal: string;
  /** Lifetime of the stored record, renewed at every refresh: the grant's own lifetime. */
  ttlSeconds: number;
}

// Bounded like every cache a request can key (docs/architecture.md, "Per-isolate caches").
const cache = new Lru<string, TokenSet>('upstream user tokens', 1_000, 1024 * 1024);
const refreshing = new Map<string, Promise<StoredToken>>();

/**
 * The caller's UserTokens for the schemes the grant connected that this deployment can still serve (`schemes`: the
 * connectable ones now), or undefined when there are none.
 */
export function userTokens(ref: GrantTokensRef, held: readonly string[], schemes: ReadonlyMap<string, ConnectScheme>): UserTokens | undefined {
  const usable = held.filter((n) => schemes.has(n));
  if (!usable.length) return undefined;
  const name = tokensKey(ref.userId, ref.grantId);

  const read = async (fresh: boolean): Promise<TokenSet> => {
    const cached = fresh ? undefined : cache.get(name);
    if (cached) return cached;
    const set = (await readGrantTokens(ref.kv, ref.userId, ref.grantId, ref.seal)) ?? {};
    remember(set);
    return set;
  };
  const remember = (set: TokenSet) => cache.set(name, set, 256 + JSON.stringify(set).length);

  const write = async (change: (set: TokenSet) => void): Promise<void> => {
    const set = { ...(await read(true)) };
    change(set);
    if (Object.keys(set).length) await writeGrantTokens(ref.kv, ref.userId, ref.grantId, ref.seal, set, ref.ttlSeconds);
    else await deleteGrantTokens(ref.kv, ref.userId, ref.grantId);
    remember(set);
  };

  const refresh = async (scheme: string, t: StoredToken): Promise<StoredToken> => {
    const said = (outcome: string, status?: number) => log('upstream_refresh', { grant: ref.grantId, scheme, outcome, ...(status ? { status } : {}) });
    if (!t.refresh) {
      said('no_refresh_token');
      await write((set) => delete set[scheme]);
      throw new TokenError(`The access token of the account you connected for scheme ${scheme} has expired, and the API gave no refresh token to renew it.`, { remedy: RECONNECT });
    }
    try {
      const next = await refreshToken(schemes.get(scheme)!, t.refresh);
      await write((set) => (set[scheme] = next));
      said('ok');
      return next;
    } catch (e) {
      if (!(e instanceof TokenError)) throw e;
      said(e.code === 'invalid_grant' ? 'invalid_grant' : 'failed', e.status);
      if (e.code === 'invalid_grant') {
        await write((set) => delete set[scheme]);
        throw new TokenError(`The account you connected for scheme ${scheme} is no longer connected: ${e.message}`, { remedy: RECONNECT });
      }
      const operator = e.status === 401 || e.code === 'invalid_client';
      throw new TokenError(e.message, { remedy: operator ? 'the server operator must fix the OAuth client in UPSTREAM_CREDENTIALS.' : 'try again shortly.' });
    }
  };

  /** A usable access token for `scheme`, other than `refused` (the one the API just turned down). */
  const current = async (scheme: string, refused?: string): Promise<string> => {
    const fine = (t: StoredToken | undefined): t is StoredToken => Boolean(t && t.access !== refused && Date.now() < t.useUntil);
    const cached = (await read(false))[scheme];
    if (fine(cached)) return cached.access;
    // Another isolate may have refreshed it already.
    const stored = (await read(true))[scheme];
    if (!stored) throw new TokenError(`The account you connected for scheme ${scheme} is no longer connected here.`, { remedy: RECONNECT });
    if (fine(stored)) return stored.access;
    const key = `${name} ${scheme}`;
    let pending = refreshing.get(key);
    if (!pending) {
      pending = refresh(scheme, stored).finally(() => refreshing.delete(key));
      refreshing.set(key, pending);
    }
    return (await pending).access;
  };

  return { schemes: new Set(usable), token: (scheme) => current(scheme), renew: (scheme, refused) => current(scheme, refused) };
}

/** For tests: forget every grant's tokens this isolate holds. */
export function clearUserTokenCache(): void {
  cache.clear();
  refreshing.clear();
}
