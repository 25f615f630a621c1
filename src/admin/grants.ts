// Operator routes for OAuth grants, through the library's own API (listUserGrants, revokeGrant), so they follow its
// storage whatever it becomes; `npm run keys -- list --grants | revoke-grant` does the same from a terminal.
//   GET    /admin/grants?key=<key id>              the grants made from one key (operator-<8 hex> for API_KEY)
//   DELETE /admin/grants/<grant id>?key=<key id>   revokes one grant: its access and refresh tokens stop at once
// Auth: the /admin/* gate (guard.ts) has run. With OAuth off these routes are 404.
import type { GrantSummary, OAuthHelpers } from '@cloudflare/workers-oauth-provider';
import type { Context, Handler } from 'hono';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import { authorizationServers } from '../oauth/authorization-server.ts';
import { withGrantCleanup } from '../oauth/upstream-store.ts';
import type { PipelineEnv } from '../pipeline/vars.ts';

// A key id, the operator key's owner id, or `accounts`: grants a connected upstream account alone made (src/oauth/grant.ts).
const KEY_ID = /^(?:[0-9a-f]{12}|operator-[0-9a-f]{8}|accounts)$/;

export function grantAdminHandlers(loaded: LoadedCatalogue): { list: Handler<PipelineEnv>; revoke: Handler<PipelineEnv> } {
  const servers = authorizationServers(loaded);

  /** The library helpers once the caller is the operator and names a key; otherwise the answer to send. */
  const prepare = async (c: Context<PipelineEnv>): Promise<{ api: OAuthHelpers; key: string } | Response> => {
    const env = c.env ?? {};
    const key = c.req.query('key') ?? '';
    if (!KEY_ID.test(key)) return c.json({ error: 'invalid_key_id', message: 'Name the key as ?key=<12-hex key id> (npm run keys -- list), ?key=operator-<8 hex> for API_KEY, or ?key=accounts for grants made with an upstream account alone.' }, 400);
    const origin = await servers.for(new URL(c.req.url).origin, c.var.oauth);
    if (!origin) return c.notFound();
    // revokeGrant through withGrantCleanup: the grant's connected-account tokens are deleted with it.
    return { api: origin.main.getOAuthApi(withGrantCleanup(env)), key };
  };

  const grantsOf = async (api: OAuthHelpers, key: string): Promise<GrantSummary[]> => {
    const all: GrantSummary[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.listUserGrants(key, cursor ? { cursor } : {});
      all.push(...page.items);
      cursor = page.cursor;
    } while (cursor);
    return all;
  };

  const view = (g: GrantSummary) => ({
    id: g.id,
    clientId: g.clientId,
    scope: g.scope,
    createdAt: new Date(g.createdAt * 1000).toISOString(),
    expiresAt: g.expiresAt ? new Date(g.expiresAt * 1000).toISOString() : null,
    redirectUri: g.redirectUri ?? null,
  });

  return {
    list: async (c) => {
      const ready = await prepare(c);
      if (ready instanceof Response) return ready;
      return c.json({ key: ready.key, grants: (await grantsOf(ready.api, ready.key)).map(view) }, 200, { 'cache-control': 'no-store' });
    },
    revoke: async (c) => {
      const ready = await prepare(c);
      if (ready instanceof Response) return ready;
      const id = c.req.param('id') ?? '';
      const grant = (await grantsOf(ready.api, ready.key)).find((g) => g.id === id);
      if (!grant) return c.json({ error: 'not_found', message: `Key ${ready.key} has no grant ${id.slice(0, 64)}.` }, 404);
      await ready.api.revokeGrant(grant.id, ready.key);
      return c.json({ revoked: view(grant) }, 200, { 'cache-control': 'no-store' });
    },
  };
}
