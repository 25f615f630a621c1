// The one gate in front of every /admin route (mounted on /admin/* in routes.ts, after the config step): the
// Host/Origin guard, as for every other route, so a page on another site cannot reach the operator's routes through
// a browser on the operator's machine (DNS rebinding); then `Authorization: Bearer <ADMIN_TOKEN>` (a secret:
// `wrangler secret put ADMIN_TOKEN`), compared by digest in constant time. Anything else is 401, including every
// request while ADMIN_TOKEN is not set.
import type { MiddlewareHandler } from 'hono';
import { parseBearer } from '../auth/bearer-header.ts';
import { bearerChallenge } from '../auth/challenge.ts';
import { sha256, timingSafeEqual } from '../lib/bytes.ts';
import { guardHostAndOrigin } from '../pipeline/host-guard.ts';
import type { PipelineEnv } from '../pipeline/vars.ts';

export const requireAdmin: MiddlewareHandler<PipelineEnv> = async (c, next) => {
  const rejected = guardHostAndOrigin(c.req.raw, c.var.config.allowedHosts, c.var.allowedOrigins);
  if (rejected) return rejected;
  const token = c.env?.ADMIN_TOKEN;
  if (!(await isAdmin(c.req.header('authorization'), token))) {
    const message = token ? 'Send Authorization: Bearer <ADMIN_TOKEN>.' : 'Admin routes are disabled: set the ADMIN_TOKEN secret.';
    return c.json({ error: 'unauthorized', message }, 401, { 'www-authenticate': bearerChallenge({ realm: 'admin' }), 'cache-control': 'no-store' });
  }
  await next();
};

async function isAdmin(header: string | undefined, token: string | undefined): Promise<boolean> {
  if (!token) return false;
  const bearer = parseBearer(header);
  if (bearer.kind !== 'token') return false;
  const [given, expected] = await Promise.all([sha256(bearer.token), sha256(token)]);
  return timingSafeEqual(given, expected);
}
