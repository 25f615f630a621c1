// `npm run keys -- usage --local` on a real local D1 state: the migrations applied by wrangler, rows written with
// the Worker's own upsert SQL, read back through `wrangler d1 execute`, printed as a table and as JSON.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WranglerD1 } from '../../scripts/keys/d1.ts';
import { WranglerKv } from '../../scripts/keys/kv.ts';
import { inlineParams } from '../../scripts/keys/usage.ts';
import { repoRoot } from '../../scripts/lib/proc.ts';
import { bucketOf, BUCKETS, quantile } from '../../src/usage/histogram.ts';
import type { UsageReport } from '../../src/usage/query.ts';
import { addEvent, cellKey, hourOf, newCell, rowsOf, upsertStatements, type UsageCell, type UsageEvent } from '../../src/usage/rows.ts';
import { keysCli } from './helpers.ts';

const KEY_A = 'key:a1b2c3d4e5f6';
const KEY_B = 'key:0f9e8d7c6b5a';

function keysUsage(state: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return keysCli(['usage', '--persist-to', state, ...args]);
}

/** The table's data rows, split into cells on the two-space column gaps. */
function tableRows(stdout: string): string[][] {
  return stdout
    .split('\n')
    .filter((l) => /^\S+ {2}/.test(l) && !l.startsWith('KEY '))
    .map((l) => l.split(/ {2,}/));
}

describe('keys usage --local', () => {
  let state: string;
  const repoLatencies = [20, 25, 30, 400];

  beforeAll(async () => {
    state = await mkdtemp(join(tmpdir(), 'mcp-usage-cli-'));
    const d1 = new WranglerD1({ remote: false, persistTo: state, config: join(repoRoot, 'wrangler.toml') });
    await d1.applyMigrations();
    const now = Date.now();
    const events: UsageEvent[] = [
      ...repoLatencies.map((latencyMs) => ({ keyId: KEY_A, tool: 'repos_get', outcome: 'ok' as const, latencyMs, resultBytes: 2048, at: now - 3_600_000 })),
      { keyId: KEY_A, tool: 'repos_get', outcome: 'upstream_5xx', latencyMs: 120, resultBytes: 300, at: now - 3_600_000 },
      { keyId: KEY_A, tool: 'issues_create', outcome: 'invalid_arguments', latencyMs: 0.4, resultBytes: 150, at: now },
      { keyId: KEY_B, tool: 'repos_get', outcome: 'ok', latencyMs: 12, resultBytes: 500, at: now },
      { keyId: KEY_B, tool: 'repos_get', outcome: 'upstream_4xx', latencyMs: 9, resultBytes: 400, at: now },
      { keyId: KEY_B, tool: '', outcome: 'rate_limited', at: now },
      { keyId: KEY_B, tool: '', outcome: 'rate_limited', at: now },
    ];
    const cells = new Map<string, UsageCell>();
    for (const e of events) {
      const k = cellKey(hourOf(e.at!), e.keyId, e.tool);
      if (!cells.has(k)) cells.set(k, newCell(hourOf(e.at!), e.keyId, e.tool));
      addEvent(cells.get(k)!, e);
    }
    const sql = upsertStatements(rowsOf([...cells.values()])).map(inlineParams);
    sql.push(`INSERT INTO usage_loss (start, calls, rows) VALUES (${hourOf(now)}, 4, 1)`);
    await d1.execute(sql.join(';\n'));
    // KEY_A's record, as `keys create` writes it (metadata carries the id and the customer); KEY_B has none.
    await new WranglerKv({ remote: false, persistTo: state, config: join(repoRoot, 'wrangler.toml') }).put(`key:${'9'.repeat(64)}`, '{}', { id: KEY_A.slice(4), customer: 'Acme Corp', customerId: 'acme', hint: 'mcp_test_AbCd', createdAt: new Date(0).toISOString() });
  }, 180_000);

  afterAll(async () => {
    if (state) await rm(state, { recursive: true, force: true });
  });

  it('prints one row per key and tool with outcomes, refusals, percentiles and bytes', async () => {
    const out = await keysUsage(state);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^Usage \d{4}-\d\d-\d\d \d\d:\d\d → .* UTC \(hourly rows\), by tool$/m);
    // Percentiles as the histogram reports them (src/usage/histogram.ts), printed as whole ms from 10 ms up.
    const pct = (values: number[], q: number) => {
      const hist = new Array<number>(BUCKETS).fill(0);
      for (const v of values) hist[bucketOf(v)]!++;
      const v = quantile(hist, q, Math.round(Math.max(...values)))!;
      return `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`;
    };
    const repoA = [...repoLatencies, 120];
    const all = [...repoA, 0.4, 12, 9];
    expect(tableRows(out.stdout)).toEqual([
      // Keys in id order; a key's tools busiest first (calls plus refusals).
      // Each key with its customer's name from the key records; a key without a record says so.
      ['0f9e8d7c6b5a', '(unknown key: no record)', '(no tool)', '0', '0', '0', '2', '0', '-', '-', '0 B'],
      ['0f9e8d7c6b5a', '(unknown key: no record)', 'repos_get', '2', '1', '1', '0', '0', pct([12, 9], 0.5), pct([12, 9], 0.95), '900 B', 'upstream_4xx 1'],
      ['a1b2c3d4e5f6', 'Acme Corp', 'repos_get', '5', '4', '1', '0', '0', pct(repoA, 0.5), pct(repoA, 0.95), '8.3 KiB', 'upstream_5xx 1'],
      // Under 1 ms is reported as 0.5 ms (the first bucket's middle).
      ['a1b2c3d4e5f6', 'Acme Corp', 'issues_create', '1', '0', '1', '0', '0', '0.5 ms', '0.5 ms', '150 B', 'invalid_arguments 1'],
      ['TOTAL', 'all', '8', '5', '3', '2', '0', pct(all, 0.5), pct(all, 0.95), '9.3 KiB', 'invalid_arguments 1, upstream_4xx 1, upstream_5xx 1'],
    ]);
    expect(pct(repoA, 0.95)).toBe('395 ms'); // 400 ms reported as its bucket's middle, within the bound
    expect(out.stdout).toMatch(/^Lost: 4 calls \(1 rows\) the metering could not store/m);
  });

  it('filters by key prefix and groups by day; --json is the report itself', async () => {
    const day = await keysUsage(state, '--key', '0f9e', '--by', 'day');
    expect(day.code).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    // (The TOTAL row has no customer, so its cells start one column early.)
    expect(tableRows(day.stdout).map((r) => r.slice(0, r[0] === 'TOTAL' ? 6 : 7))).toEqual([
      ['0f9e8d7c6b5a', '(unknown key: no record)', today, '2', '1', '1', '2'],
      ['TOTAL', 'all', '2', '1', '1', '2'],
    ]);
    const json = await keysUsage(state, '--key', 'key:a1b2', '--json');
    const report = JSON.parse(json.stdout) as UsageReport;
    expect(report).toMatchObject({ key: 'key:a1b2', by: 'tool', window: { grain: 'hour' }, totals: { calls: 6, ok: 4, errors: 2 }, lost: { calls: 4, rows: 1 } });
    expect(report.rows.map((r) => r.tool)).toEqual(['repos_get', 'issues_create']);
    expect(report.rows.map((r) => r.customer)).toEqual(['Acme Corp', 'Acme Corp']);
  });

  it('bad flags exit 2 with the reason; a state without the tables names the command that creates them', async () => {
    const bad = await keysUsage(state, '--since', 'last-week');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--since: "last-week" is neither a duration/);
    // The reason and a pointer to --help, not the whole usage text again.
    expect(bad.stderr.trim().split('\n')).toHaveLength(2);
    expect(bad.stderr).toContain('npm run keys -- --help');
    const empty = await mkdtemp(join(tmpdir(), 'mcp-usage-empty-'));
    try {
      const missing = await keysUsage(empty);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain(`npx wrangler d1 migrations apply USAGE --local --persist-to ${empty}`);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
