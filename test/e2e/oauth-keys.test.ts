// OAuth grants and the keys CLI against a real `wrangler dev` sharing its local state: `keys list` counts and lists
// the grants made from each key (and from the operator key), `revoke-grant` ends one grant at once, and revoking a
// key ends every grant made from it (tokens 401 invalid_token, refresh invalid_grant) while other keys' grants live.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWranglerDev, type RunningWorker } from '../../scripts/lib/wrangler.ts';
import { sha256Hex } from '../../src/lib/bytes.ts';
import { ConsentSession } from '../support/oauth-consent.ts';
import { startUpstream } from '../support/upstream-server.ts';
import { keysCli } from './helpers.ts';
import { initializeWith, RawOAuth } from './oauth-helpers.ts';

const OPERATOR_KEY = 'mcp_test_grantsoperator000000000000000000';

const keys = keysCli;

interface Row {
  id: string;
  status: string;
  grants: Array<{ id: string; clientId: string; userId: string }>;
}

describe('OAuth grants and the keys CLI', () => {
  let state: string;
  let worker: RunningWorker | undefined;
  let upstream: { url: string; close: () => Promise<void> };
  let raw: RawOAuth;
  const made: Record<string, { key: string; id: string }> = {};

  const list = async (): Promise<Map<string, Row>> => {
    const out = await keys(['list', '--all', '--json', '--persist-to', state]);
    expect(out.code, out.stderr).toBe(0);
    return new Map((JSON.parse(out.stdout) as Row[]).map((r) => [r.id, r]));
  };
  const mcp = (bearer: string) => initializeWith(worker!.endpoint, bearer);

  beforeAll(async () => {
    state = await mkdtemp(join(tmpdir(), 'mcp-grants-e2e-'));
    upstream = await startUpstream();
    for (const name of ['Grant Co', 'Other Co']) {
      const out = await keys(['create', '--name', name, '--persist-to', state]);
      expect(out.code, out.stderr).toBe(0);
      made[name] = { key: /^key: (\S+)$/m.exec(out.stdout)![1]!, id: /^id: (\S+)$/m.exec(out.stdout)![1]! };
    }
    worker = await startWranglerDev({ persistTo: state, vars: { UPSTREAM_URL: upstream.url, CREDENTIAL_MODE: 'key', API_KEY: OPERATOR_KEY, KEY_CACHE_TTL_SECONDS: '1' } });
    raw = new RawOAuth(worker.url);
  });

  afterAll(async () => {
    await worker?.stop();
    await upstream?.close();
    if (state) await rm(state, { recursive: true, force: true });
  });

  // Each CLI command is one to three wrangler processes (a few seconds each, more on a loaded machine).
  it('list shows the grants per key; revoke-grant ends one grant at once and leaves the others', { timeout: 300_000 }, async () => {
    const grant = made['Grant Co']!;
    const first = await raw.grant(grant.key);
    const second = await raw.grant(grant.key, { toolsets: ['repos_core'] });
    const other = await raw.grant(made['Other Co']!.key);
    const operator = await raw.grant(OPERATOR_KEY);
    for (const g of [first, second, other, operator]) expect((await mcp(g.access)).status).toBe(200);

    const rows = await list();
    expect(rows.get(grant.id)!.grants.map((g) => g.id).sort()).toEqual([first.grantId, second.grantId].sort());
    expect(rows.get(made['Other Co']!.id)!.grants.map((g) => g.id)).toEqual([other.grantId]);
    expect(rows.get(grant.id)!.grants.find((g) => g.id === first.grantId)!.clientId).toBe(first.clientId);

    const table = await keys(['list', '--grants', '--persist-to', state]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/GRANTS/);
    expect(table.stdout).toMatch(new RegExp(`^${grant.id} .* 2 +all$`, 'm'));
    expect(table.stdout).toContain(`grant ${first.grantId}  key ${grant.id}  client ${first.clientId}`);
    const operatorId = (await sha256Hex(OPERATOR_KEY)).slice(0, 8);
    expect(table.stdout).toContain(`operator key ${operatorId} (API_KEY): 1 grant`);
    for (const secret of [grant.key, first.access, first.refresh, OPERATOR_KEY]) expect(table.stdout).not.toContain(secret);

    const out = await keys(['revoke-grant', first.grantId.slice(0, 10), '--persist-to', state]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain(`revoked grant ${first.grantId} (key ${grant.id}`);
    const refused = await mcp(first.access);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await raw.refresh(first.clientId, first.refresh)).body.error).toBe('invalid_grant');
    expect((await mcp(second.access)).status).toBe(200);

    const unknown = await keys(['revoke-grant', 'zzzzzzzzzz', '--persist-to', state]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no grant matches "zzzzzzzzzz"');
  });

  it('revoking a key revokes every grant made from it: its tokens get 401 invalid_token, refresh invalid_grant', { timeout: 300_000 }, async () => {
    const grant = made['Grant Co']!;
    const live = await raw.grant(grant.key);
    expect((await mcp(live.access)).status).toBe(200);
    const out = await keys(['revoke', grant.id, '--persist-to', state]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(new RegExp(`revoked ${grant.id} \\(Grant Co\\) at \\S+, and its 2 OAuth grants`));
    const res = await mcp(live.access);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'invalid_token' });
    expect((await raw.refresh(live.clientId, live.refresh)).body.error).toBe('invalid_grant');
    const rows = await list();
    expect(rows.get(grant.id)).toMatchObject({ status: 'revoked', grants: [] });
    expect(rows.get(made['Other Co']!.id)!.grants).toHaveLength(1);
    // A new consent with the revoked key is refused on the consent page itself.
    const { url } = await raw.authorizeUrl(await raw.register());
    const session = await new ConsentSession(fetch, url).open();
    expect((await session.pasteKey(grant.key)).res.status).toBe(403);
  });
});
