// The /admin routes' bearer check: `Authorization: Bearer <ADMIN_TOKEN>` (a secret: `wrangler secret put ADMIN_TOKEN`).
// Anything else is 401, including every request when ADMIN_TOKEN is not set.
import type { Context } from 'hono';
import type { Env } from '../config.ts';
import { sha256, timingSafeEqual } from '../lib/bytes.ts';

/** Compares the bearer with ADMIN_TOKEN through their digests, in constant time. */
async function isAdmin(req: Request, token: string | undefined): Promise<boolean> {
  if (!token) return false;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.get('authorization') ?? '');
  if (!m) return false;
  const [a, b] = await Promise.all([sha256(m[1]!), sha256(token)]);
  return timingSafeEqual(a, b);
}

/** The 401 for a request that is not the operator's, or undefined when it is. */
export async function refuseNonAdmin(c: Context, env: Env): Promise<Response | undefined> {
  if (await isAdmin(c.req.raw, env.ADMIN_TOKEN)) return undefined;
  const message = env.ADMIN_TOKEN ? 'Send Authorization: Bearer <ADMIN_TOKEN>.' : 'Admin routes are disabled: set the ADMIN_TOKEN secret.';
  return c.json({ error: 'unauthorized', message }, 401, { 'www-authenticate': 'Bearer realm="admin"' });
}
