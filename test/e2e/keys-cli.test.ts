// Keys made with `npm run keys -- … --local` work against a real `wrangler dev` sharing the same state directory:
// scope, read-only, rate limit, revoke (picked up within KEY_CACHE_TTL_SECONDS), last-used day, and the
// per-customer upstream credential encrypted by the CLI and decrypted by the Worker.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWranglerDev, type RunningWorker } from '../../scripts/lib/wrangler.ts';
import { startUpstream } from '../support/upstream-server.ts';
import { connectV1, connectV2, keysCli } from './helpers.ts';

const ENCRYPTION_SECRET = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64');
const CUSTOMER_CREDENTIAL = 'cust-e2e-credential-7d1f0a';

async function create(state: string, ...args: string[]): Promise<{ key: string; id: string; stdout: string }> {
  const out = await keysCli(['create', '--persist-to', state, ...args], { CUSTOMER_CRED: CUSTOMER_CREDENTIAL, CREDENTIAL_ENCRYPTION_KEY: ENCRYPTION_SECRET });
  expect(out.stderr).toBe('');
  expect(out.code).toBe(0);
  const key = /^key: (mcp_test_[A-Za-z0-9]{40})$/m.exec(out.stdout)?.[1];
  const id = /^id: ([0-9a-f]{12})$/m.exec(out.stdout)?.[1];
  expect(key).toBeTruthy();
  // Printed once, and never in the summary lines.
  expect(out.stdout.split(key!).length - 1).toBe(1);
  expect(out.stdout).not.toContain(CUSTOMER_CREDENTIAL);
  return { key: key!, id: id!, stdout: out.stdout };
}

function rpc(endpoint: string, key: string, body: unknown): Promise<Response> {
  return fetch(endpoint, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(body),
  });
}
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

describe('keys CLI against wrangler dev', () => {
  let state: string;
  let customerState: string | undefined;
  let worker: RunningWorker | undefined;
  let customerWorker: RunningWorker | undefined;
  let upstream: { url: string; close: () => Promise<void> };
  let scoped: { key: string; id: string };
  let limited: { key: string; id: string };
  let doomed: { key: string; id: string };
  let revokedBefore: { key: string; id: string };
  let withCredential: { key: string; id: string };

  beforeAll(async () => {
    state = await mkdtemp(join(tmpdir(), 'mcp-keys-e2e-'));
    upstream = await startUpstream();
    // One at a time: each is a wrangler process opening the same local state.
    scoped = await create(state, '--name', 'Scoped Co', '--toolsets', 'gists', '--readonly');
    limited = await create(state, '--name', 'Limited Co', '--rate', '3/min');
    doomed = await create(state, '--name', 'Doomed Co');
    revokedBefore = await create(state, '--name', 'Gone Co');
    withCredential = await create(state, '--name', 'Cred Co', '--toolsets', 'meta', '--upstream-credential-env', 'CUSTOMER_CRED');
    const revoked = await keysCli(['revoke', revokedBefore.id, '--persist-to', state]);
    expect(revoked.code).toBe(0);
    const common = { UPSTREAM_URL: upstream.url, KEY_CACHE_TTL_SECONDS: '1' };
    // Two workerd processes opening one SQLite-backed state dir at once can fail with SQLITE_BUSY at start-up,
    // so the customer-mode worker gets its own copy of the state (same key records).
    customerState = `${state}-customer`;
    await cp(state, customerState, { recursive: true });
    worker = await startWranglerDev({ persistTo: state, vars: { ...common, CREDENTIAL_MODE: 'key' } });
    customerWorker = await startWranglerDev({ persistTo: customerState, vars: { ...common, CREDENTIAL_MODE: 'customer', CREDENTIAL_ENCRYPTION_KEY: ENCRYPTION_SECRET } });
  });

  afterAll(async () => {
    await worker?.stop();
    await customerWorker?.stop();
    await upstream?.close();
    if (state) await rm(state, { recursive: true, force: true });
    if (customerState) await rm(customerState, { recursive: true, force: true });
  });

  it('a scoped read-only key sees only the read-only tools of its toolset (v1 and v2 clients)', async () => {
    for (const connect of [connectV1, connectV2]) {
      const client = await connect(worker!.endpoint, { Authorization: `Bearer ${scoped.key}` });
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names.length).toBe(11);
      expect(names.every((n) => n.startsWith('gists_'))).toBe(true);
      expect(names).not.toContain('gists_delete');
      const refused = await client.callTool({ name: 'gists_delete', arguments: { gist_id: 'x' } });
      expect(refused.isError).toBe(true);
      expect((refused.content as Array<{ text: string }>)[0]!.text).toMatch(/^gists_delete changes data, and this key is read-only \(its scope: toolsets gists, read-only\)/);
      await client.close();
    }
  });

  it('unknown and revoked keys are refused with 401 and a challenge', async () => {
    for (const key of [revokedBefore.key, 'mcp_test_' + 'A'.repeat(40)]) {
      const res = await rpc(worker!.endpoint, key, initialize);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
      expect(await res.json()).toMatchObject({ error: 'invalid_token', error_description: 'The API key is invalid, expired or revoked.' });
    }
  });

  it('the rate limit from --rate trips with 429 and Retry-After', async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 5; i++) {
      const res = await rpc(worker!.endpoint, limited.key, initialize);
      statuses.push(res.status);
      if (res.status === 429) retryAfter = res.headers.get('retry-after');
      await res.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });

  it('a key revoked with the CLI while wrangler dev runs is refused within the cache TTL', async () => {
    expect((await rpc(worker!.endpoint, doomed.key, initialize)).status).toBe(200);
    const out = await keysCli(['revoke', doomed.id.slice(0, 8), '--persist-to', state]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`revoked ${doomed.id}`);
    await new Promise((r) => setTimeout(r, 1200));
    expect((await rpc(worker!.endpoint, doomed.key, initialize)).status).toBe(401);
  });

  it('customer mode: the credential the CLI encrypted reaches the upstream, and never the tool result', async () => {
    const client = await connectV1(customerWorker!.endpoint, { Authorization: `Bearer ${withCredential.key}` });
    const result = await client.callTool({ name: 'meta_get_zen', arguments: {} });
    expect(JSON.stringify(result)).not.toContain(CUSTOMER_CREDENTIAL);
    await client.close();
    const seen = (await (await fetch(`${upstream.url}/__last?path=/zen`)).json()) as { headers: Record<string, string> };
    expect(seen.headers.authorization).toBe(`Bearer ${CUSTOMER_CREDENTIAL}`);
    // A key with no stored credential is refused in customer mode rather than calling the upstream bare.
    expect((await rpc(customerWorker!.endpoint, scoped.key, initialize)).status).toBe(403);
  });

  it('list shows ids, status and the last-used day, never a key; logs never contain a key', async () => {
    const out = await keysCli(['list', '--all', '--json', '--persist-to', state]);
    expect(out.code).toBe(0);
    const rows = JSON.parse(out.stdout) as Array<{ id: string; status: string; lastUsed?: string }>;
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(revokedBefore.id)?.status).toBe('revoked');
    expect(byId.get(doomed.id)?.status).toBe('revoked');
    expect(byId.get(scoped.id)?.status).toBe('active');
    expect(byId.get(scoped.id)?.lastUsed).toBe(new Date().toISOString().slice(0, 10));
    const table = await keysCli(['list', '--persist-to', state]);
    for (const k of [scoped, limited, doomed, revokedBefore, withCredential]) {
      expect(out.stdout + table.stdout).not.toContain(k.key);
      expect(worker!.child.tail() + customerWorker!.child.tail()).not.toContain(k.key);
    }
    expect(customerWorker!.child.tail()).not.toContain(CUSTOMER_CREDENTIAL);
    expect(customerWorker!.child.tail()).not.toContain(ENCRYPTION_SECRET);
  });
});
