// The one auth core (issue 27, "two copies of auth"): one bearer parser for /mcp, OAuth tokens and /admin; one
// key-to-caller check whose digests compare in constant time; one challenge builder. Units here, plus the parser
// seen through each route, so the routes cannot drift apart again.
import { env as bindings } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { hasOAuthTokenShape, parseBearer } from '../../src/auth/bearer-header.ts';
import { bearerChallenge } from '../../src/auth/challenge.ts';
import { keyStatus } from '../../src/auth/key-caller.ts';
import { metadataOf, newKey, RECORD_PREFIX } from '../../src/auth/keys-core.ts';
import { clearKeyCache } from '../../src/auth/store.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { readConfig, type Env } from '../../src/config.ts';
import { sha256Hex } from '../../src/lib/bytes.ts';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';

const loaded = loadCatalogue(await encodeCatalogue(fixtureCatalogue()));

describe('parseBearer', () => {
  it('reads "Bearer <token>" in any case, with spaces or tabs, and nothing else', () => {
    expect(parseBearer(null)).toEqual({ kind: 'missing' });
    expect(parseBearer('')).toEqual({ kind: 'missing' });
    for (const header of ['Bearer abc', 'bearer abc', 'BEARER\tabc', 'Bearer   abc  ']) expect(parseBearer(header), header).toEqual({ kind: 'token', token: 'abc' });
    for (const header of ['Basic abc', 'Bearer', 'Bearer ', 'Bearer a b', 'Bearerabc', 'Bearer ab\u00e9', 'Bearer a\nb', 'Token abc']) expect(parseBearer(header), header).toEqual({ kind: 'malformed' });
  });

  it('tells the OAuth token shape from a key', () => {
    expect(hasOAuthTokenShape('user:grant:secret')).toBe(true);
    for (const t of ['mcp_live_abc', 'a:b', 'a:b:c:d', ':b:c', 'a::c']) expect(hasOAuthTokenShape(t), t).toBe(false);
    // A part no KV key could hold (it made /mcp answer 500 before authentication): a malformed key instead.
    for (const t of [`${'a'.repeat(600)}:b:c`, `a:${'b'.repeat(600)}:c`]) expect(hasOAuthTokenShape(t)).toBe(false);
  });
});

describe('bearerChallenge', () => {
  it('builds every challenge the server sends, quoting nothing that would break the header', () => {
    expect(bearerChallenge({ realm: 'admin' })).toBe('Bearer realm="admin"');
    expect(bearerChallenge({ realm: 'mcp', resourceMetadata: 'https://x/.well-known/oauth-protected-resource' })).toBe('Bearer realm="mcp", resource_metadata="https://x/.well-known/oauth-protected-resource"');
    expect(bearerChallenge({ realm: 'mcp', error: 'invalid_token', description: 'say "hi"\\\n', scope: 'toolset:a toolset:b' })).toBe('Bearer realm="mcp", error="invalid_token", error_description="say \'hi\'\' ", scope="toolset:a toolset:b"');
  });
});

describe('keyStatus', () => {
  const config = readConfig({ API_KEY: 'mcp_test_authcoreoperator00000000000000000' }, 'http://127.0.0.1:9');
  const env: Env = { KEYS: bindings.KEYS };

  it('refuses a record whose own hash is not the one it was found under (a tampered or misfiled record)', async () => {
    const made = await newKey({ prefix: 'mcp_test_', customer: { id: 'c', name: 'C' } });
    const other = await newKey({ prefix: 'mcp_test_', customer: { id: 'c', name: 'C' } });
    await bindings.KEYS.put(RECORD_PREFIX + made.hash, JSON.stringify({ ...made.record, hash: other.hash }), { metadata: metadataOf(made.record) });
    clearKeyCache(bindings.KEYS);
    expect(await keyStatus({ kind: 'record', hash: made.hash }, config, env)).toMatchObject({ ok: false, reason: 'unknown' });
    await bindings.KEYS.put(RECORD_PREFIX + made.hash, JSON.stringify(made.record), { metadata: metadataOf(made.record) });
    clearKeyCache(bindings.KEYS);
    expect(await keyStatus({ kind: 'record', hash: made.hash }, config, env)).toMatchObject({ ok: true });
  });

  it('knows the operator key by its digest only, and refuses anything that is not a SHA-256 hex', async () => {
    expect(await keyStatus({ kind: 'operator', hash: await sha256Hex(config.apiKey!) }, config, env)).toEqual({ ok: true });
    expect(await keyStatus({ kind: 'operator', hash: await sha256Hex('mcp_test_rotatedaway0000000000000000000000') }, config, env)).toMatchObject({ ok: false, reason: 'operator_key_changed' });
    expect(await keyStatus({ kind: 'operator', hash: 'not-hex' }, config, env)).toMatchObject({ ok: false });
    expect(await keyStatus({ kind: 'record', hash: 'A'.repeat(64) }, config, env)).toMatchObject({ ok: false, reason: 'unknown' });
  });
});

describe('one parser behind every route', () => {
  const ADMIN = 'admin-core-0123456789abcdef';
  const KEY = 'mcp_test_authcoreroutes00000000000000000000';
  const app = createApp(loaded);
  const env: Env = { API_KEY: KEY, ADMIN_TOKEN: ADMIN, UPSTREAM_URL: 'http://127.0.0.1:9' };
  const mcp = (authorization: string) =>
    app.fetch(new Request('http://127.0.0.1:8787/mcp', { method: 'POST', headers: { authorization, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) }), env);
  const admin = (authorization: string) => app.fetch(new Request('http://127.0.0.1:8787/admin/schema-health', { headers: { authorization } }), env);

  it('takes the same header forms on /mcp and /admin, and refuses the same ones', async () => {
    for (const form of ['Bearer ', 'bearer ', 'BEARER\t']) {
      expect((await mcp(`${form}${KEY}`)).status, form).toBe(200);
      expect((await admin(`${form}${ADMIN}`)).status, form).toBe(200);
    }
    for (const bad of [`Basic ${KEY}`, `Bearer ${KEY} extra`, `Bearer${KEY}`]) {
      expect((await mcp(bad)).status, bad).toBe(401);
      expect((await admin(bad.replace(KEY, ADMIN))).status, bad).toBe(401);
    }
  });
});
