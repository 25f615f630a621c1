// OAuth grants in OAUTH_KV, per API key, for `npm run keys -- list | revoke | revoke-grant` (docs/keys.md).
// The layout is @cloudflare/workers-oauth-provider's (1.2.x), which the Worker's grants follow:
//   grant:<userId>:<grantId>            the grant, KV metadata { clientId, resource, redirectUri }
//   token:<userId>:<grantId>:<tokenId>  its access tokens (hashes)
//   upstream-tokens:<userId>:<grantId>  ours: the tokens of the upstream account the user connected (sealed)
// userId is the key's public id, operator-<8 hex> for API_KEY, or `accounts` for grants a connected account alone
// made (src/oauth/grant.ts). Revoking a grant deletes its token records and then the grant, as the library's own
// revokeGrant() does, and the connected account's tokens with them; test/e2e/oauth-keys.test.ts checks that a token
// stops working once its grant is revoked this way, so a change of layout fails there.
import { KvError, type KvListEntry, type WranglerKv } from './kv.ts';

export interface GrantEntry {
  /** The grant's owner in storage: a key id, or operator-<8 hex>. */
  userId: string;
  id: string;
  clientId: string;
  redirectUri?: string;
  /** When the grant (its refresh token) expires, if it does. */
  expiresAt?: string;
}

const GRANT = 'grant:';
const TOKEN = 'token:';
const UPSTREAM = 'upstream-tokens:';
/** The owner of grants a connected upstream account alone made: ACCOUNT_OWNER in src/oauth/grant.ts (Worker types stay out of scripts). */
export const ACCOUNT_OWNER = 'accounts';

export function parseGrants(entries: KvListEntry[]): GrantEntry[] {
  const out: GrantEntry[] = [];
  for (const e of entries) {
    const rest = e.name.slice(GRANT.length);
    const cut = rest.lastIndexOf(':');
    if (!e.name.startsWith(GRANT) || cut <= 0) continue;
    const md = e.metadata ?? {};
    out.push({
      userId: rest.slice(0, cut),
      id: rest.slice(cut + 1),
      clientId: typeof md.clientId === 'string' ? md.clientId : '',
      ...(typeof md.redirectUri === 'string' ? { redirectUri: md.redirectUri } : {}),
      ...(e.expiration ? { expiresAt: new Date(e.expiration * 1000).toISOString() } : {}),
    });
  }
  return out;
}

/** Every grant, grouped by owner; undefined when the namespace cannot be read (no OAUTH_KV in the config). */
export async function grantsByOwner(oauth: WranglerKv): Promise<Map<string, GrantEntry[]> | undefined> {
  let entries: KvListEntry[];
  try {
    entries = await oauth.list(GRANT);
  } catch (e) {
    if (e instanceof KvError) return undefined;
    throw e;
  }
  const byOwner = new Map<string, GrantEntry[]>();
  for (const g of parseGrants(entries)) byOwner.set(g.userId, [...(byOwner.get(g.userId) ?? []), g]);
  return byOwner;
}

/** Deletes every grant of one owner and all their tokens; returns how many grants there were. */
export async function revokeOwnerGrants(oauth: WranglerKv, userId: string): Promise<number> {
  const [grants, tokens] = await Promise.all([oauth.list(`${GRANT}${userId}:`), oauth.list(`${TOKEN}${userId}:`)]);
  // The prefix also matches an owner whose id extends this one; keep exact owners only.
  const own = parseGrants(grants).filter((g) => g.userId === userId);
  const ownTokens = tokens.filter((t) => t.name.slice(TOKEN.length + userId.length + 1).split(':').length === 2);
  await oauth.deleteMany([...ownTokens.map((t) => t.name), ...own.flatMap((g) => [`${UPSTREAM}${g.userId}:${g.id}`, `${GRANT}${g.userId}:${g.id}`])]);
  return own.length;
}

export class GrantNotFound extends Error {}

/** Revokes one grant, named by its id or a unique prefix of it (at least 6 characters). */
export async function revokeOneGrant(oauth: WranglerKv, idOrPrefix: string): Promise<GrantEntry> {
  if (idOrPrefix.length < 6) throw new GrantNotFound('give at least 6 characters of the grant id');
  const matches = parseGrants(await oauth.list(GRANT)).filter((g) => g.id.startsWith(idOrPrefix));
  if (matches.length === 0) throw new GrantNotFound(`no grant matches "${idOrPrefix}" (npm run keys -- list --grants)`);
  if (matches.length > 1) throw new GrantNotFound(`"${idOrPrefix}" matches ${matches.length} grants; give more of the id`);
  const grant = matches[0]!;
  const tokens = await oauth.list(`${TOKEN}${grant.userId}:${grant.id}:`);
  await oauth.deleteMany([...tokens.map((t) => t.name), `${UPSTREAM}${grant.userId}:${grant.id}`, `${GRANT}${grant.userId}:${grant.id}`]);
  return grant;
}

/** One line per grant, for `list --grants`. */
export function grantLines(owner: string, grants: GrantEntry[]): string[] {
  return grants.map((g) => `  grant ${g.id}  key ${owner}  client ${g.clientId}${g.redirectUri ? `  → ${hostOf(g.redirectUri)}` : ''}  expires ${g.expiresAt ?? 'never'}`);
}

function hostOf(uri: string): string {
  try {
    return new URL(uri).host;
  } catch {
    return uri;
  }
}
