// props → Caller for OAuth access tokens (src/oauth/grant-caller.ts): the key record decides on every request, as
// for a static key. Scope intersection, revoked/expired/unknown keys, the key's rate limit, customer-mode
// credentials (decrypted from the record, never carried in the grant), and malformed props.
import { env as bindings } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { importEncryptionKey, metadataOf, newKey, RECORD_PREFIX, type NewKeyOptions } from '../../src/auth/keys-core.ts';
import { clearKeyCache } from '../../src/auth/store.ts';
import { readConfig, type Config } from '../../src/config.ts';
import { bytesToBase64, sha256Hex } from '../../src/lib/bytes.ts';
import { keyStatus } from '../../src/auth/key-caller.ts';
import { callerFromGrant } from '../../src/oauth/grant-caller.ts';
import type { GrantProps } from '../../src/oauth/grant.ts';
import { oauthEnv, RESOURCE, revokeStoredKey } from './fixtures/oauth.ts';

const ENC_SECRET = bytesToBase64(crypto.getRandomValues(new Uint8Array(32)));
const env = oauthEnv({ API_KEY: 'mcp_test_grantoperator00000000000000000000', CREDENTIAL_ENCRYPTION_KEY: ENC_SECRET });
const config: Config = readConfig(env, 'http://127.0.0.1:9');
const TOKEN = 'user:grant:accesstokensecret';
const request = () => new Request(RESOURCE, { method: 'POST' });

async function makeKey(opts: Partial<NewKeyOptions> = {}) {
  const made = await newKey({ prefix: 'mcp_test_', customer: { id: 'globex', name: 'Globex' }, ...opts });
  await bindings.KEYS!.put(RECORD_PREFIX + made.hash, JSON.stringify(made.record), { metadata: metadataOf(made.record) });
  return made;
}

const propsFor = (made: { hash: string; record: { id: string } }, scope: GrantProps['scope'] = {}): GrantProps => ({ v: 1, key: { kind: 'record', hash: made.hash, id: made.record.id }, scope });

describe('callerFromGrant', () => {
  it("intersects the key's scope with the narrowing and names the caller by key id", async () => {
    const made = await makeKey({ toolsets: ['echo', 'admin'], tools: ['echo_get', 'echo_remove'] });
    const outcome = await callerFromGrant(request(), propsFor(made, { toolsets: ['echo'], readOnly: true }), TOKEN, config, { env });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.caller).toMatchObject({ id: `key:${made.record.id}`, customerId: 'globex', scope: { toolsets: ['echo'], tools: ['echo_get', 'echo_remove'], readOnly: true } });
    expect(outcome.caller.secrets).toContain(TOKEN);
    expect(outcome.caller.secrets).not.toContain(made.key);
  });

  it('never widens a read-only key, whatever the grant says', async () => {
    const made = await makeKey({ readOnly: true });
    const outcome = await callerFromGrant(request(), propsFor(made, { readOnly: false }), TOKEN, config, { env });
    expect(outcome.ok && outcome.caller.scope.readOnly).toBe(true);
  });

  it('refuses revoked, expired and unknown keys with a 401 invalid_token challenge naming the resource metadata', async () => {
    const revoked = await makeKey();
    expect((await callerFromGrant(request(), propsFor(revoked), TOKEN, config, { env })).ok).toBe(true);
    await revokeStoredKey(bindings.KEYS!, revoked.record);
    const expired = await makeKey({ expiresAt: new Date(Date.now() - 1000).toISOString() });
    const unknown = { hash: 'ab'.repeat(32), record: { id: 'abababababab' } };
    for (const made of [revoked, expired, unknown]) {
      const outcome = await callerFromGrant(request(), propsFor(made), TOKEN, config, { env });
      expect(outcome.ok).toBe(false);
      if (outcome.ok) continue;
      expect(outcome.response.status).toBe(401);
      expect(outcome.response.headers.get('www-authenticate')).toMatch(/^Bearer realm="mcp", error="invalid_token", .*resource_metadata="http:\/\/127\.0\.0\.1:8787\/\.well-known\/oauth-protected-resource"$/);
    }
    expect(await keyStatus(propsFor(revoked).key!, config, env)).toMatchObject({ ok: false, reason: 'revoked' });
    expect(await keyStatus(propsFor(expired).key!, config, env)).toMatchObject({ ok: false, reason: 'expired' });
  });

  it("applies the key's own rate limit, shared with its static use", async () => {
    clearKeyCache(bindings.KEYS);
    const made = await makeKey({ rate: { limit: 2, period: 'minute' } });
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await callerFromGrant(request(), propsFor(made), TOKEN, config, { env }));
    expect(results.map((r) => r.ok)).toEqual([true, true, false]);
    const last = results[2]!;
    if (!last.ok) {
      expect(last.response.status).toBe(429);
      expect(Number(last.response.headers.get('retry-after'))).toBeGreaterThan(0);
      // Named for the pipeline, which counts the refusal in usage against the key (as for a static key).
      expect(last.rateLimitedKey).toBe(`key:${made.record.id}`);
    }
  });

  it('decrypts the customer-mode credential from the key record per request', async () => {
    const customer = { ...config, credentialMode: 'customer' as const };
    const made = await makeKey({ upstreamCredential: 'globex-upstream-token', encryptionKey: await importEncryptionKey(ENC_SECRET) });
    const outcome = await callerFromGrant(request(), propsFor(made), TOKEN, customer, { env });
    expect(outcome.ok && outcome.caller.upstream).toEqual({ single: 'globex-upstream-token' });
    expect(outcome.ok && outcome.caller.secrets).toEqual([TOKEN, 'globex-upstream-token']);
    const bare = await makeKey();
    const refused = await callerFromGrant(request(), propsFor(bare), TOKEN, customer, { env });
    expect(refused.ok ? 0 : refused.response.status).toBe(403);
  });

  it('gives an operator grant the narrowing only, while API_KEY is unchanged', async () => {
    const hash = await sha256Hex(env.API_KEY!);
    const props: GrantProps = { v: 1, key: { kind: 'operator', hash, id: hash.slice(0, 8) }, scope: { toolsets: ['echo'] } };
    const outcome = await callerFromGrant(request(), props, TOKEN, config, { env });
    expect(outcome.ok && outcome.caller).toMatchObject({ id: `key:${hash.slice(0, 8)}`, scope: { toolsets: ['echo'], readOnly: false } });
    expect((await callerFromGrant(request(), props, TOKEN, { ...config, apiKey: undefined }, { env })).ok).toBe(false);
  });

  it('refuses props it does not recognise, and every grant in passthrough mode', async () => {
    const made = await makeKey();
    for (const bad of [undefined, {}, { v: 2, key: propsFor(made).key, scope: {} }, { v: 1, key: { kind: 'record', hash: 'nothex', id: 'x' }, scope: {} }, { v: 1, key: propsFor(made).key, scope: { toolsets: 'echo' } }]) {
      expect((await callerFromGrant(request(), bad, TOKEN, config, { env })).ok).toBe(false);
    }
    expect((await callerFromGrant(request(), propsFor(made), TOKEN, { ...config, credentialMode: 'passthrough' }, { env })).ok).toBe(false);
  });
});
