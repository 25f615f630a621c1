// /admin/grants: the grants made from one key, and revoking one of them, through the library's own API behind
// ADMIN_TOKEN. A revoked grant's access token is refused at once; the key's other grants keep working.
import { env as bindings } from 'cloudflare:workers';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { describe, expect, it } from 'vitest';
import { metadataOf, newKey, RECORD_PREFIX } from '../../src/auth/keys-core.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';
import { harness, issueTokens, oauthEnv } from './fixtures/oauth.ts';

const ADMIN = 'admin-grants-secret-0123456789';
const h = harness(loadCatalogue(await encodeCatalogue(fixtureCatalogue())), oauthEnv({ ADMIN_TOKEN: ADMIN }));
const admin = (path: string, init: RequestInit = {}, token = ADMIN) => h.fetch(path, { ...init, headers: { authorization: `Bearer ${token}` } });
const initialize = (bearer: string) =>
  h.fetch('/mcp', {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });

interface Listed {
  key: string;
  grants: Array<{ id: string; clientId: string; scope: string[]; createdAt: string; expiresAt: string | null }>;
}

describe('/admin/grants', () => {
  it('lists the grants made from a key and revokes one, whose token then stops at once', async () => {
    const made = await newKey({ prefix: 'mcp_test_', customer: { id: 'hooli', name: 'Hooli' } });
    await bindings.KEYS.put(RECORD_PREFIX + made.hash, JSON.stringify(made.record), { metadata: metadataOf(made.record) });
    const first = await issueTokens(h, made.key, { toolsets: ['echo'] });
    const second = await issueTokens(h, made.key);

    const listed = (await (await admin(`/admin/grants?key=${made.record.id}`)).json()) as Listed;
    expect(listed.key).toBe(made.record.id);
    const firstId = first.access_token.split(':')[1]!;
    expect(listed.grants.map((g) => g.id).sort()).toEqual([firstId, second.access_token.split(':')[1]!].sort());
    expect(listed.grants.find((g) => g.id === firstId)).toMatchObject({ clientId: first.clientId, scope: ['toolset:echo'] });
    expect(JSON.stringify(listed)).not.toContain(made.key);

    const revoked = await admin(`/admin/grants/${firstId}?key=${made.record.id}`, { method: 'DELETE' });
    expect(revoked.status).toBe(200);
    expect(((await revoked.json()) as { revoked: { id: string } }).revoked.id).toBe(firstId);
    expect((await initialize(first.access_token)).status).toBe(401);
    expect((await initialize(second.access_token)).status).toBe(200);
    expect((await admin(`/admin/grants/${firstId}?key=${made.record.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('is 401 without ADMIN_TOKEN, 400 without a key id, and 404 with OAuth off', async () => {
    expect((await admin('/admin/grants?key=abcdefabcdef', {}, 'nope')).status).toBe(401);
    expect((await admin('/admin/grants?key=mcp_test_notanid')).status).toBe(400);
    const off = harness(loadCatalogue(await encodeCatalogue(fixtureCatalogue())), oauthEnv({ ADMIN_TOKEN: ADMIN, OAUTH: 'off' }));
    expect((await off.fetch('/admin/grants?key=abcdefabcdef', { headers: { authorization: `Bearer ${ADMIN}` } })).status).toBe(404);
  });
});
