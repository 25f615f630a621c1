// GET /admin/usage?key=&since=&until=&by=: the usage report that `npm run keys -- usage --json` prints (same filters,
// same JSON, customer names from the key records in KEYS), read from the USAGE binding, plus `isolate`: the answering isolate's own metering counters (pending,
// written, lost, last error), which show a store outage before anything reaches usage_loss.
import type { Context } from 'hono';
import type { Env } from '../config.ts';
import type { PipelineEnv } from '../pipeline/vars.ts';
import { RECORD_PREFIX } from '../auth/keys-core.ts';
import { customerNames, type KeyListing } from '../usage/customers.ts';
import { isolateUsageStats } from '../usage/isolate.ts';
import { UsageQueryError } from '../usage/query.ts';
import { readUsage } from '../usage/read.ts';

const NO_STORE = { 'cache-control': 'no-store' };

export async function usageRoute(c: Context<PipelineEnv>): Promise<Response> {
  const env: Env = c.env ?? {};
  const isolate = isolateUsageStats() ?? null;
  if (!env.USAGE) {
    return c.json({ error: 'usage_unavailable', message: 'There is no USAGE binding: add the [[d1_databases]] binding USAGE (docs/usage.md).', isolate }, 503, NO_STORE);
  }
  const q = c.req.query();
  try {
    const names = await listedCustomers(env.KEYS);
    const report = await readUsage(env.USAGE, { key: q.key, since: q.since, until: q.until, by: q.by }, Date.now(), 'query', names);
    return c.json({ ...report, isolate }, 200, NO_STORE);
  } catch (e) {
    if (e instanceof UsageQueryError) return c.json({ error: 'invalid_query', message: e.message }, 400, NO_STORE);
    const message = e instanceof Error ? e.message : String(e);
    const hint = /no such table/i.test(message) ? ' Create the tables with `wrangler d1 migrations apply USAGE --remote` (docs/deploy.md).' : '';
    return c.json({ error: 'usage_store_unavailable', message: `The usage store could not be read: ${message}.${hint}`, isolate }, 503, NO_STORE);
  }
}

/** Every key record's customer name (revoked and expired keys keep their records); none when KEYS is unreadable. */
async function listedCustomers(kv: KVNamespace | undefined): Promise<Map<string, string>> {
  const listed: KeyListing[] = [];
  try {
    let cursor: string | undefined;
    // KV lists 1,000 names a page; 100 pages cover any realistic number of keys and bound the route's work.
    for (let page = 0; kv && page < 100; page++) {
      const r = await kv.list({ prefix: RECORD_PREFIX, ...(cursor ? { cursor } : {}) });
      listed.push(...r.keys);
      if (r.list_complete) break;
      cursor = r.cursor;
    }
  } catch {
    // The counts matter more than the names: report without them.
  }
  return customerNames(listed);
}
