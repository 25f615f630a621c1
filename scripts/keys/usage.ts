// `npm run keys -- usage`: the usage report (src/usage/query.ts, the same JSON as /admin/usage) read from the
// USAGE D1 database through wrangler, printed as a table or as JSON.
import { parseUsageQuery, usageReport, usageStatements, type UsageFigures, type UsageQueryInput, type UsageReport } from '../../src/usage/query.ts';
import type { SqlStatement } from '../../src/usage/rows.ts';
import { RECORD_PREFIX } from '../../src/auth/keys-core.ts';
import { customerNames } from '../../src/usage/customers.ts';
import { D1Error, WranglerD1 } from './d1.ts';
import type { WranglerKv } from './kv.ts';

export interface UsageCommandOptions extends UsageQueryInput {
  json: boolean;
  d1: WranglerD1;
  /** The key records' namespace, for customer names; without it (or when it cannot be read) ids only. */
  keys?: WranglerKv;
}

export async function usageCommand(o: UsageCommandOptions): Promise<string> {
  const q = parseUsageQuery({ key: o.key, since: o.since, until: o.until, by: o.by }, Date.now());
  const s = usageStatements(q);
  let results: Array<Array<Record<string, unknown>>>;
  // The key records are listed beside the read; a failed listing costs the names, never the report.
  const names = (o.keys?.list(RECORD_PREFIX) ?? Promise.resolve([])).then(customerNames, () => new Map<string, string>());
  try {
    results = await o.d1.execute([s.hourlyFrom, s.hourly, s.daily, s.loss].map(inlineParams).join(';\n'));
  } catch (e) {
    if (e instanceof D1Error && /no such table/i.test(e.message)) {
      throw new D1Error(`the usage tables do not exist there yet (${e.message}). Create them with: ${o.d1.migrateHint()}`);
    }
    throw e;
  }
  const [hourlyFrom = [], hourly = [], daily = [], loss = []] = results;
  const report = usageReport(q, { hourlyFrom, hourly, daily, loss }, await names);
  return o.json ? JSON.stringify(report, null, 2) : formatUsageTable(report);
}

/**
 * The statement with its parameters written in as SQL literals: `wrangler d1 execute --command` takes no bound
 * parameters. Safe for our statements: they hold no `?` in literals, and the values are integers or checked names.
 */
export function inlineParams(s: SqlStatement): string {
  let i = 0;
  const sql = s.sql.replace(/\?/g, () => {
    const v = s.params[i++];
    if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
    if (typeof v === 'string') return `'${v.replace(/'/g, "''")}'`;
    throw new Error(`usage: cannot write ${String(v)} into SQL`);
  });
  if (i !== s.params.length) throw new Error(`usage: ${s.params.length} parameters for ${i} placeholders`);
  return sql;
}

export function formatUsageTable(r: UsageReport): string {
  const grain = r.window.grain === 'hour' ? 'hourly rows' : 'daily rows, UTC days';
  const title = `Usage ${when(r.window.since)} → ${when(r.window.until)} UTC (${grain}), by ${r.by}${r.key ? `, keys matching ${r.key}` : ''}`;
  const out = [title];
  if (!r.rows.length) out.push('', 'No usage recorded in this window.');
  else {
    const header = ['KEY', 'CUSTOMER', r.by === 'tool' ? 'TOOL' : 'DAY', 'CALLS', 'OK', 'ERRORS', 'RATE-LIMITED', 'OUT-OF-SCOPE', 'P50', 'P95', 'RESULT BYTES', 'ERROR KINDS'];
    const lines = r.rows.map((l) => [l.key.replace(/^key:/, ''), l.customer, (r.by === 'tool' ? l.tool || '(no tool)' : l.day) ?? '', ...figures(l)]);
    lines.push(['TOTAL', '', 'all', ...figures(r.totals)]);
    out.push('', ...table(header, lines, new Set([3, 4, 5, 6, 7, 8, 9, 10])));
  }
  if (r.lost.calls || r.lost.rows) out.push('', `Lost: ${r.lost.calls} calls (${r.lost.rows} rows) the metering could not store in this window; see docs/usage.md.`);
  out.push('', `P50/P95 are within ±${Math.ceil(r.percentiles.relativeError * 1000) / 10} % (histogram buckets). RATE-LIMITED counts requests the key's rate limit refused; OUT-OF-SCOPE, calls of tools outside the key's scope or the URL's toolsets. Neither ran a tool.`);
  return out.join('\n');
}

function figures(f: UsageFigures): string[] {
  const kinds = Object.entries(f.errorsByKind).map(([k, n]) => `${k} ${n}`).join(', ');
  return [String(f.calls), String(f.ok), String(f.errors), String(f.rateLimited), String(f.outOfScope), ms(f.latencyMs.p50), ms(f.latencyMs.p95), bytes(f.resultBytes), kinds];
}

function table(header: string[], rows: string[][], right: Set<number>): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

function ms(v: number | null): string {
  if (v === null) return '-';
  if (v >= 10_000) return `${(v / 1000).toFixed(1)} s`;
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`;
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

function when(iso: string): string {
  return iso.slice(0, 16).replace('T', ' ');
}
