// The usage report from the Worker's own D1 binding: what /admin/usage returns (the CLI prints the same report).
import { parseUsageQuery, usageReport, usageStatements, type FilterStyle, type UsageQueryInput, type UsageReport } from './query.ts';

/** Throws UsageQueryError for bad filters (a 400 for the route), and D1's error when the store cannot be read. */
export async function readUsage(db: D1Database, input: UsageQueryInput, nowMs = Date.now(), style: FilterStyle = 'flags', customers?: ReadonlyMap<string, string>): Promise<UsageReport> {
  const q = parseUsageQuery(input, nowMs, style);
  const s = usageStatements(q);
  const [hourlyFrom, hourly, daily, loss] = await db.batch<Record<string, unknown>>(
    [s.hourlyFrom, s.hourly, s.daily, s.loss].map((st) => db.prepare(st.sql).bind(...st.params)),
  );
  return usageReport(q, { hourlyFrom: hourlyFrom?.results ?? [], hourly: hourly?.results ?? [], daily: daily?.results ?? [], loss: loss?.results ?? [] }, customers);
}
