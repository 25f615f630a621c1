// The usage report from the Worker's own D1 binding: what /admin/usage returns (the CLI prints the same report).
import type { Retention } from './config.ts';
import { parseUsageQuery, usageReport, usageStatements, type UsageQueryInput, type UsageReport } from './query.ts';

/** Throws UsageQueryError for bad filters (a 400 for the route), and D1's error when the store cannot be read. */
export async function readUsage(db: D1Database, input: UsageQueryInput, retention: Retention, nowMs = Date.now()): Promise<UsageReport> {
  const q = parseUsageQuery(input, nowMs, retention);
  const s = usageStatements(q);
  const [rows, loss] = await db.batch<Record<string, unknown>>([db.prepare(s.rows.sql).bind(...s.rows.params), db.prepare(s.loss.sql).bind(...s.loss.params)]);
  return usageReport(q, rows?.results ?? [], loss?.results[0]);
}
