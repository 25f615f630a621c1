// `npm run keys -- update` changes a key in place while `wrangler dev` serves it: the same key string gains write
// tools and another toolset, then a rate limit, within KEY_CACHE_TTL_SECONDS; mistakes get a suggestion.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWranglerDev, type RunningWorker } from '../../scripts/lib/wrangler.ts';
import { startUpstream } from '../support/upstream-server.ts';
import { connectV2, keysCli } from './helpers.ts';

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const settle = () => new Promise((r) => setTimeout(r, 1200));

describe('keys update against wrangler dev', () => {
  let state: string;
  let worker: RunningWorker | undefined;
  let upstream: { url: string; close: () => Promise<void> };
  let key: string;
  let id: string;

  beforeAll(async () => {
    state = await mkdtemp(join(tmpdir(), 'mcp-keys-update-'));
    upstream = await startUpstream();
    const made = await keysCli(['create', '--persist-to', state, '--name', 'Growing Co', '--toolsets', 'gists', '--readonly']);
    expect(made.code).toBe(0);
    key = /^key: (mcp_test_[A-Za-z0-9]{40})$/m.exec(made.stdout)![1]!;
    id = /^id: ([0-9a-f]{12})$/m.exec(made.stdout)![1]!;
    worker = await startWranglerDev({ persistTo: state, vars: { UPSTREAM_URL: upstream.url, CREDENTIAL_MODE: 'key', KEY_CACHE_TTL_SECONDS: '1', USAGE_METERING: 'off' } });
  });

  afterAll(async () => {
    await worker?.stop();
    await upstream?.close();
    if (state) await rm(state, { recursive: true, force: true });
  });

  const toolNames = async () => {
    const client = await connectV2(worker!.endpoint, { Authorization: `Bearer ${key}` });
    const names = (await client.listTools()).tools.map((t) => t.name);
    await client.close();
    return names;
  };

  it('scope and read-only change for the same key, then a rate limit trips', async () => {
    const before = await toolNames();
    expect(before.every((n) => n.startsWith('gists_'))).toBe(true);
    expect(before).not.toContain('gists_delete');

    const widened = await keysCli(['update', id.slice(0, 8), '--persist-to', state, '--toolsets', 'gists,meta', '--no-readonly']);
    expect(widened.stderr).toBe('');
    expect(widened.code).toBe(0);
    expect(widened.stdout).toContain(`updated ${id} (Growing Co); the key itself is unchanged`);
    expect(widened.stdout).toContain('toolsets: gists → gists, meta');
    expect(widened.stdout).toContain('read-only: yes → no');
    expect(widened.stdout).not.toContain(key);
    await settle();
    const after = await toolNames();
    expect(after).toContain('gists_delete');
    expect(after).toContain('meta_get_zen');

    const limited = await keysCli(['update', id, '--persist-to', state, '--rate', '2/min']);
    expect(limited.code).toBe(0);
    expect(limited.stdout).toContain('rate: none → 2/min');
    await settle();
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(worker!.endpoint, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(initialize),
      });
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('refuses an update that changes nothing, names an unknown toolset, or mistypes a flag, with a hint', async () => {
    const empty = await keysCli(['update', id, '--persist-to', state]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('update needs at least one of --rate');
    const typo = await keysCli(['update', id, '--persist-to', state, '--toolsets', 'gist']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown toolset: gist. Did you mean gists or git?');
    const flag = await keysCli(['update', id, '--persist-to', state, '--rat', '5/min']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('unknown option --rat. Did you mean --rate?');
  });
});
