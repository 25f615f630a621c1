// Usage end to end in `wrangler dev`: two keys made with the CLI call tools through real MCP clients and raw
// requests (success, invalid arguments, upstream 4xx/5xx, 429 refusals); `npm run keys -- usage --local` then shows
// the counts per key and tool, and /admin/usage the same report. Then the store's failure path: a server whose
// usage tables do not exist answers every call, counts what it drops, and stores the loss once the tables exist.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WranglerD1 } from '../../scripts/keys/d1.ts';
import { repoRoot } from '../../scripts/lib/proc.ts';
import type { UsageReport } from '../../src/usage/query.ts';
import { startUpstream } from '../support/upstream-server.ts';
import { startWorker, type WranglerDev } from '../support/wrangler-dev.ts';
import { statusCatalogue } from '../worker/fixtures/status-catalogue.ts';
import { connectV1, connectV2, keysCli, textOf } from './helpers.ts';

const ADMIN = 'admin-e2e-usage-0123456789';
// Short, so a test waits a moment rather than the default 5 s for the isolate's batch to reach D1.
const FLUSH_MS = '200';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function createKey(state: string, ...args: string[]): Promise<{ key: string; id: string }> {
  const out = await keysCli(['create', '--local', '--persist-to', state, ...args]);
  expect(out.code, out.stderr).toBe(0);
  return { key: /^key: (\S+)$/m.exec(out.stdout)![1]!, id: /^id: ([0-9a-f]{12})$/m.exec(out.stdout)![1]! };
}

async function rawCall(endpoint: string, key: string, name: string, args: Record<string, unknown>): Promise<{ status: number; text: string }> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  return { status: res.status, text: await res.text() };
}

/** The parts of /admin/usage's `isolate` (src/usage/aggregator.ts UsageStats) these tests read. */
interface IsolateStats {
  pending: { calls: number };
  written: { calls: number };
  lost: { calls: number };
  unreportedLoss: { calls: number };
  failedFlushes: number;
  lastError?: { message: string };
}
type AdminAnswer = Partial<UsageReport> & { error?: string; isolate: IsolateStats | null };
async function adminUsage(url: string, query = ''): Promise<{ status: number; body: AdminAnswer }> {
  const res = await fetch(`${url}/admin/usage${query}`, { headers: { authorization: `Bearer ${ADMIN}` } });
  return { status: res.status, body: (await res.json()) as AdminAnswer };
}

/** The table's data rows by "key tool", each as its columns (TOTAL has no customer, so its cells start one column early). */
function tableRows(stdout: string): Map<string, string[]> {
  const rows = stdout
    .split('\n')
    .filter((l) => /^\S+ {2}/.test(l) && !l.startsWith('KEY '))
    .map((l) => l.split(/ {2,}/));
  return new Map(rows.map((r) => [r[0] === 'TOTAL' ? `${r[0]} ${r[1]}` : `${r[0]} ${r[2]}`, r]));
}

/** Waits until the answering isolate has nothing left to flush (or the deadline passes). */
async function flushed(url: string, timeoutMs = 20_000): Promise<AdminAnswer> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const { status, body } = await adminUsage(url);
    if ((status === 200 && body.isolate && body.isolate.pending.calls === 0 && body.isolate.unreportedLoss.calls === 0) || Date.now() > end) return body;
    await sleep(150);
  }
}

let upstream: { url: string; close: () => Promise<void> };
let state: string;
let downState: string;
let worker: WranglerDev | undefined;
let down: WranglerDev | undefined;
let alpha: { key: string; id: string };
let beta: { key: string; id: string };

beforeAll(async () => {
  upstream = await startUpstream();
  state = await mkdtemp(join(tmpdir(), 'mcp-usage-e2e-'));
  downState = await mkdtemp(join(tmpdir(), 'mcp-usage-down-'));
  // One at a time: each is a wrangler process opening the same local state.
  alpha = await createKey(state, '--name', 'Alpha Co');
  beta = await createKey(state, '--name', 'Beta Co', '--rate', '2/min');
  const vars = { USAGE_FLUSH_MS: FLUSH_MS, ADMIN_TOKEN: ADMIN };
  [worker, down] = await Promise.all([
    // Migrated as npm start migrates its state.
    startWorker({ upstream: upstream.url, catalogue: statusCatalogue(), usage: true, persistTo: state, vars }),
    // Metering on, but nobody created the tables: every flush fails.
    startWorker({ upstream: upstream.url, catalogue: statusCatalogue(), persistTo: downState, vars: { ...vars, USAGE_METERING: 'on' } }),
  ]);
});

afterAll(async () => {
  await worker?.stop();
  await down?.stop();
  await upstream?.close();
  for (const dir of [state, downState]) if (dir) await rm(dir, { recursive: true, force: true });
});

describe('usage in wrangler dev', () => {
  it('counts calls per key and tool: ok, invalid arguments, upstream 500 and 404, 429 refusals; the CLI and /admin/usage agree', async () => {
    const w = worker!;
    const v2 = await connectV2(w.endpoint, { Authorization: `Bearer ${alpha.key}` });
    const v1 = await connectV1(w.endpoint, { Authorization: `Bearer ${alpha.key}` });
    try {
      expect((await v2.callTool({ name: 'echo_get', arguments: { id: 'one' } })).isError).toBeFalsy();
      expect((await v1.callTool({ name: 'echo_get', arguments: { id: 'two' } })).isError).toBeFalsy();
      const invalid = await v2.callTool({ name: 'echo_get', arguments: { limit: 500 } });
      expect(invalid.isError).toBe(true);
      expect(textOf(invalid)).toMatch(/Invalid arguments for echo_get/);
      const failed = await v2.callTool({ name: 'status_get', arguments: { code: '500' } });
      expect(failed.isError).toBe(true);
    } finally {
      await v2.close();
      await v1.close();
    }
    // Beta's limit is 2 a minute: two calls go through, the next two are refused before any tool runs.
    const statuses: number[] = [];
    for (const [name, args] of [['echo_get', { id: 'b1' }], ['status_get', { code: '404' }], ['echo_get', { id: 'b3' }], ['status_get', { code: '500' }]] as const) {
      statuses.push((await rawCall(w.endpoint, beta.key, name, args)).status);
    }
    expect(statuses).toEqual([200, 200, 429, 429]);

    await flushed(w.url);
    const out = await keysCli(['usage', '--local', '--persist-to', state]);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const rows = tableRows(out.stdout);
    // KEY, CUSTOMER, TOOL, CALLS, OK, ERRORS, RATE-LIMITED, OUT-OF-SCOPE, then P50, P95, RESULT BYTES, ERROR KINDS.
    const counts = (k: string) => {
      const r = rows.get(k)!;
      return r[0] === 'TOTAL' ? [...r.slice(0, 7), r[10] ?? ''] : [...r.slice(0, 8), r[11] ?? ''];
    };
    expect(counts(`${alpha.id} echo_get`)).toEqual([alpha.id, 'Alpha Co', 'echo_get', '3', '2', '1', '0', '0', 'invalid_arguments 1']);
    expect(counts(`${alpha.id} status_get`)).toEqual([alpha.id, 'Alpha Co', 'status_get', '1', '0', '1', '0', '0', 'upstream_5xx 1']);
    expect(counts(`${beta.id} echo_get`)).toEqual([beta.id, 'Beta Co', 'echo_get', '1', '1', '0', '0', '0', '']);
    expect(counts(`${beta.id} status_get`)).toEqual([beta.id, 'Beta Co', 'status_get', '1', '0', '1', '0', '0', 'upstream_4xx 1']);
    expect(counts(`${beta.id} (no tool)`)).toEqual([beta.id, 'Beta Co', '(no tool)', '0', '0', '0', '2', '0', '']);
    expect(counts('TOTAL all')).toEqual(['TOTAL', 'all', '6', '3', '3', '2', '0', 'invalid_arguments 1, upstream_4xx 1, upstream_5xx 1']);
    expect(rows.size).toBe(6);

    // The same report as JSON from the CLI and from the Worker, over a fixed window.
    const since = new Date(Date.now() - 3_600_000).toISOString().slice(0, 13) + ':00Z';
    const until = new Date(Date.now() + 3_600_000).toISOString().slice(0, 13) + ':00Z';
    const cli = JSON.parse((await keysCli(['usage', '--local', '--persist-to', state, '--json', '--since', since, '--until', until])).stdout) as UsageReport;
    const { status, body } = await adminUsage(w.url, `?since=${since}&until=${until}`);
    expect(status).toBe(200);
    const { isolate, ...report } = body;
    expect(report).toEqual(cli);
    expect(isolate).toMatchObject({ written: { calls: 8 }, lost: { calls: 0 }, pending: { calls: 0 } });
    expect(cli.totals).toMatchObject({ calls: 6, rateLimited: 2 });
    expect(cli.totals.resultBytes).toBeGreaterThan(0);
  });
});

describe('the store unavailable in wrangler dev', () => {
  it('every call still succeeds; dropped calls are counted, shown by /admin/usage, and stored once the tables exist', async () => {
    const d = down!;
    let made = 0;
    let stats: IsolateStats | null = null;
    // Each failed flush keeps the calls for a later one; the fifth drops them (docs/usage.md, failure model).
    for (let i = 0; i < 120 && !(stats && stats.lost.calls > 0); i++) {
      const r = await rawCall(d.endpoint, d.apiKey, 'echo_get', { id: `down-${i}` });
      expect(r.status).toBe(200);
      expect(r.text).toContain(`/echo/down-${i}`);
      expect(r.text).not.toContain('"isError":true');
      made++;
      const seen = await adminUsage(d.url);
      expect(seen.status).toBe(503);
      expect(seen.body.error).toBe('usage_store_unavailable');
      stats = seen.body.isolate;
      await sleep(250);
    }
    expect(stats!.lost.calls).toBeGreaterThan(0);
    expect(stats!.lost.calls + stats!.pending.calls).toBe(made);
    expect(stats!.failedFlushes).toBeGreaterThanOrEqual(5);
    expect(stats!.lastError?.message).toMatch(/no such table/);

    // The operator creates the tables; the next flush writes what was kept, and the loss.
    await new WranglerD1({ remote: false, persistTo: downState, config: join(repoRoot, 'wrangler.toml') }).applyMigrations();
    expect((await rawCall(d.endpoint, d.apiKey, 'echo_get', { id: 'back' })).status).toBe(200);
    const after = await flushed(d.url, 30_000);
    expect(after.isolate).toMatchObject({ pending: { calls: 0 }, unreportedLoss: { calls: 0 } });
    const cli = JSON.parse((await keysCli(['usage', '--local', '--persist-to', downState, '--json'])).stdout) as UsageReport;
    expect(cli.lost.calls).toBe(stats!.lost.calls);
    expect(cli.totals.calls).toBe(made + 1 - stats!.lost.calls);
    const table = await keysCli(['usage', '--local', '--persist-to', downState]);
    expect(table.stdout).toContain(`Lost: ${stats!.lost.calls} calls`);
  });
});
