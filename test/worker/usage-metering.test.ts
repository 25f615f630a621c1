// Usage metering on the request path inside workerd: every tool-call outcome through tools/call and discovery's
// call_tool, rate-limit refusals, metering off, the store unavailable, /admin/usage, and a page that shows none of it.
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { env as bindings } from 'cloudflare:workers';
import { afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { Env } from '../../src/config.ts';
import { sha256Hex } from '../../src/lib/bytes.ts';
import { isolateUsageStats } from '../../src/usage/isolate.ts';
import type { UsageLine, UsageReport } from '../../src/usage/query.ts';
import { readUsage } from '../../src/usage/read.ts';
import { metadataOf } from '../../src/auth/keys-core.ts';
import { makeKey, rpcBody } from './fixtures/auth-harness.ts';
import { statusCatalogue } from './fixtures/status-catalogue.ts';
import { freshUsageDb } from './fixtures/usage-db.ts';

const OPERATOR = 'mcp_test_meteringoperator0000000000000000';
const ADMIN = 'admin-usage-0123456789';
const ORIGIN = 'http://127.0.0.1:8787';
const loaded = loadCatalogue(await encodeCatalogue(statusCatalogue()));
const app = createApp(loaded);

let db: D1Database;
const envWith = (extra: Partial<Env> = {}): Env => ({
  KEYS: bindings.KEYS,
  KEY_RATE_LIMITER: bindings.KEY_RATE_LIMITER,
  UPSTREAM_URL: inject('upstreamUrl'),
  CREDENTIAL_MODE: 'key',
  API_KEY: OPERATOR,
  ADMIN_TOKEN: ADMIN,
  USAGE: db,
  USAGE_FLUSH_MS: '0',
  ...extra,
});

beforeEach(async () => {
  db = await freshUsageDb();
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());

/** One request with an execution context, as the runtime gives it; resolves after its waitUntil work (the flush). */
async function send(e: Env, path: string, init: RequestInit = {}, target = app): Promise<{ status: number; text: string; headers: Headers }> {
  const ctx = createExecutionContext();
  const res = await target.fetch(new Request(ORIGIN + path, init), e, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, text, headers: res.headers };
}

interface CallAnswer {
  status: number;
  result?: { isError?: boolean; structuredContent?: Record<string, unknown>; content?: Array<{ text?: string }> };
  error?: { code: number; message: string };
}

async function call(e: Env, key: string, name: string, args: Record<string, unknown>, path = '/mcp'): Promise<CallAnswer> {
  const res = await send(e, path, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  if (res.status !== 200) return { status: res.status };
  const body = (await rpcBody(new Response(res.text))) as Omit<CallAnswer, 'status'>;
  return { status: res.status, ...body };
}

const admin = (e: Env, query = '', token = ADMIN) => send(e, `/admin/usage${query}`, { headers: { authorization: `Bearer ${token}` } });
const line = (r: UsageReport, key: string, tool: string): UsageLine | undefined => r.rows.find((l) => l.key === key && l.tool === tool);
const operatorId = async () => `key:${(await sha256Hex(OPERATOR)).slice(0, 8)}`;

describe('metering on the call path', () => {
  it('counts every outcome per key and tool, from tools/call and discovery alike, and rate-limit refusals', async () => {
    const e = envWith();
    const customer = await makeKey({ rate: { limit: 2, period: 'minute' } });
    const op = await operatorId();

    expect((await call(e, OPERATOR, 'echo_get', { id: 'a' })).result?.isError).toBeFalsy();
    expect((await call(e, OPERATOR, 'echo_old_name', { id: 'b' })).result?.isError).toBeFalsy(); // an alias counts as its tool
    expect((await call(e, OPERATOR, 'echo_get', { limit: 500 })).result?.isError).toBe(true);
    expect((await call(e, OPERATOR, 'status_get', { code: '500' })).result?.isError).toBe(true);
    expect((await call(e, OPERATOR, 'status_get', { code: '404' })).result?.isError).toBe(true);
    expect((await call(e, OPERATOR, 'status_get', { code: '7' })).result?.isError).toBe(true);
    const viaDiscovery = await call(e, OPERATOR, 'call_tool', { name: 'echo_get', arguments: { id: 'c' } }, '/mcp/discover');
    expect(viaDiscovery.result?.isError).toBeFalsy();
    expect((await call(e, OPERATOR, 'no_such_tool', {})).error?.code).toBe(-32602); // not a tool call: not counted

    expect((await call(e, customer.key, 'echo_get', { id: 'd' })).status).toBe(200);
    expect((await call(e, customer.key, 'echo_get', { id: 'e' })).status).toBe(200);
    expect((await call(e, customer.key, 'echo_get', { id: 'f' })).status).toBe(429);
    expect((await call(e, customer.key, 'status_get', { code: '500' })).status).toBe(429);

    const report = await readUsage(db, { since: '1h' });
    expect(report.rows.map((l) => `${l.key} ${l.tool}`).sort()).toEqual([`${op} echo_get`, `${op} status_get`, `key:${customer.record.id} `, `key:${customer.record.id} echo_get`].sort());
    expect(line(report, op, 'echo_get')).toMatchObject({ calls: 4, ok: 3, errors: 1, errorsByKind: { invalid_arguments: 1 }, rateLimited: 0 });
    expect(line(report, op, 'status_get')).toMatchObject({ calls: 3, ok: 0, errorsByKind: { upstream_5xx: 1, upstream_4xx: 1, invalid_arguments: 1 } });
    expect(line(report, `key:${customer.record.id}`, 'echo_get')).toMatchObject({ calls: 2, ok: 2, rateLimited: 0 });
    expect(line(report, `key:${customer.record.id}`, '')).toMatchObject({ calls: 0, rateLimited: 2, resultBytes: 0, latencyMs: { p50: null } });
    expect(report.totals).toMatchObject({ calls: 9, ok: 5, errors: 4, rateLimited: 2 });
    expect(line(report, op, 'echo_get')!.resultBytes).toBeGreaterThan(0);
    expect(line(report, op, 'echo_get')!.latencyMs.p50).not.toBeNull();
  });

  it('counts a call outside the key scope as out_of_scope (tools/call and call_tool), apart from calls and errors', async () => {
    const e = envWith();
    const scoped = await makeKey({ toolsets: ['echo'] });
    const id = `key:${scoped.record.id}`;
    const direct = await call(e, scoped.key, 'echo_remove', { id: 'x' });
    expect(direct.result?.isError).toBe(true);
    expect(JSON.stringify(direct.result)).toContain('not available with this key: its scope is toolsets echo');
    expect((await call(e, scoped.key, 'call_tool', { name: 'echo_remove', arguments: { id: 'y' } }, '/mcp/discover')).result?.isError).toBe(true);
    expect((await call(e, scoped.key, 'echo_get', { id: 'z' })).result?.isError).toBeFalsy();

    const report = await readUsage(db, { since: '1h', key: id });
    expect(line(report, id, 'echo_remove')).toMatchObject({ calls: 0, ok: 0, errors: 0, outOfScope: 2, rateLimited: 0, resultBytes: 0, latencyMs: { p50: null } });
    expect(line(report, id, 'echo_get')).toMatchObject({ calls: 1, ok: 1, outOfScope: 0 });
    expect(report.totals).toMatchObject({ calls: 1, ok: 1, errors: 0, outOfScope: 2 });
  });

  it('USAGE_METERING=off records nothing and changes no answer', async () => {
    const e = envWith({ USAGE_METERING: 'off' });
    const before = isolateUsageStats()?.written.calls ?? 0;
    expect((await call(e, OPERATOR, 'echo_get', { id: 'off' })).result?.structuredContent).toMatchObject({ url: '/echo/off' });
    expect((await call(e, OPERATOR, 'echo_get', {})).result?.isError).toBe(true);
    expect(await db.prepare('SELECT count(*) AS n FROM usage').first('n')).toBe(0);
    expect(isolateUsageStats()?.written.calls ?? 0).toBe(before);
  });

  it('store unavailable: every call still succeeds, the loss is counted, shown by /admin/usage and stored once it is back', async () => {
    const e = envWith();
    const op = await operatorId();
    await call(e, OPERATOR, 'echo_get', { id: 'warm' }); // the isolate's aggregator exists and the store works
    const start = isolateUsageStats()!;
    await db.exec('ALTER TABLE usage RENAME TO usage_offline');
    // Each request's flush fails; a cell is dropped on its fifth failed flush (docs/usage.md, failure model).
    for (let i = 0; i < 5; i++) {
      const r = await call(e, OPERATOR, 'echo_get', { id: `down-${i}` });
      expect(r.status).toBe(200);
      expect(r.result?.isError).toBeFalsy();
      expect(r.result?.structuredContent).toMatchObject({ url: `/echo/down-${i}` });
    }
    const down = isolateUsageStats()!;
    expect(down.lost.calls - start.lost.calls).toBe(5);
    expect(down.failedFlushes - start.failedFlushes).toBe(5);
    expect(down.pending.calls).toBe(0);
    expect(down.lastError?.message).toMatch(/no such table: usage/);

    const seen = await admin(e);
    expect(seen.status).toBe(503);
    const body = JSON.parse(seen.text) as { error: string; message: string; isolate: { lost: { calls: number }; unreportedLoss: { calls: number } } };
    expect(body.error).toBe('usage_store_unavailable');
    expect(body.message).toContain('wrangler d1 migrations apply USAGE --remote');
    expect(body.isolate.unreportedLoss.calls).toBeGreaterThanOrEqual(5);

    await db.exec('ALTER TABLE usage_offline RENAME TO usage');
    expect((await call(e, OPERATOR, 'echo_get', { id: 'back' })).result?.isError).toBeFalsy();
    const report = JSON.parse((await admin(e, '?since=1h')).text) as UsageReport & { isolate: { unreportedLoss: { calls: number } } };
    expect(report.lost.calls).toBe(down.unreportedLoss.calls);
    expect(report.isolate.unreportedLoss.calls).toBe(0);
    expect(line(report, op, 'echo_get')).toMatchObject({ ok: 2 }); // 'warm' and 'back'
  });
});

describe('/admin/usage', () => {
  it('needs ADMIN_TOKEN', async () => {
    expect((await admin(envWith())).status).toBe(200);
    expect((await admin(envWith(), '', 'wrong')).status).toBe(401);
    expect((await admin(envWith(), '', OPERATOR)).status).toBe(401);
    const unset = await admin(envWith({ ADMIN_TOKEN: undefined }));
    expect(unset.status).toBe(401);
    expect(unset.text).toMatch(/ADMIN_TOKEN/);
  });

  it('returns the report the CLI prints with --json, plus this isolate’s counters; bad filters are a 400', async () => {
    const e = envWith();
    await call(e, OPERATOR, 'echo_get', { id: 'x' });
    await call(e, OPERATOR, 'status_get', { code: '503' });
    const filters = { key: (await operatorId()).slice(0, 8), since: '2026-01-01', until: new Date(Date.now() + 3_600_000).toISOString().slice(0, 13) + ':00Z', by: 'tool' };
    const res = await admin(e, `?${new URLSearchParams(filters)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { isolate, ...report } = JSON.parse(res.text) as UsageReport & { isolate: Record<string, unknown> };
    expect(report).toEqual(await readUsage(db, filters));
    expect(report.totals).toMatchObject({ calls: 2, ok: 1, errorsByKind: { upstream_5xx: 1 } });
    expect(isolate).toMatchObject({ pending: { calls: 0 }, lost: expect.any(Object), written: expect.any(Object) });

    const bad = await admin(e, '?since=yesterday');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toEqual({ error: 'invalid_query', message: 'since: "yesterday" is neither a duration (7d, 24h, 90m) nor a date (2026-11-01, 2026-11-01T12:00Z)' });
    expect(JSON.parse((await admin(e, '?by=week')).text).message).toBe('by must be "tool" or "day", not "week"');
  });

  it('names the customer of each key, from the key records (a revoked key keeps its name)', async () => {
    const e = envWith();
    const acme = await makeKey({ customer: { id: 'acme', name: 'Acme Corp' } });
    await call(e, acme.key, 'echo_get', { id: 'acme' });
    await call(e, OPERATOR, 'echo_get', { id: 'op' });
    // Revoking keeps the record (with revokedAt), so last month's usage still has a name.
    const revoked = { ...acme.record, revokedAt: new Date().toISOString() };
    await bindings.KEYS.put(`key:${acme.hash}`, JSON.stringify(revoked), { metadata: metadataOf(revoked) });
    const report = JSON.parse((await admin(e, '?since=1h')).text) as UsageReport;
    expect(report.rows.find((l) => l.key === `key:${acme.record.id}`)?.customer).toBe('Acme Corp');
    const op = await operatorId();
    expect(report.rows.find((l) => l.key === op)?.customer).toBe('(API_KEY, the deployment’s own key)');
  });

  it('without a USAGE binding answers 503 and says what is missing', async () => {
    const res = await admin(envWith({ USAGE: undefined }));
    expect(res.status).toBe(503);
    expect(JSON.parse(res.text)).toMatchObject({ error: 'usage_unavailable' });
  });
});

describe('the catalogue page', () => {
  it('never shows usage: rendered with usage stored, it is byte for byte the page of a server without any', async () => {
    const e = envWith();
    const customer = await makeKey({ customer: { id: 'page-co', name: 'Page Co' } });
    await call(e, customer.key, 'echo_get', { id: 'page' });
    await call(e, OPERATOR, 'status_get', { code: '500' });
    expect((await readUsage(db, { since: '1h' })).totals.calls).toBe(2);

    const metered = await send(e, '/', {}, createApp(loaded));
    const unmetered = await send(envWith({ USAGE: undefined, USAGE_METERING: 'off' }), '/', {}, createApp(loaded));
    expect(metered.status).toBe(200);
    expect(metered.text).toBe(unmetered.text);
    for (const hidden of [customer.record.id, await operatorId(), 'page-co', '/admin/usage']) expect(metered.text).not.toContain(hidden);
    const tool = await send(e, '/catalogue/tools/echo_get.json', {}, createApp(loaded));
    expect(tool.text).not.toContain(customer.record.id);
    expect(Object.keys(JSON.parse(tool.text) as object)).not.toContain('usage');
  });
});
