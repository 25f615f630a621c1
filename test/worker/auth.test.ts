// Customer keys end to end inside workerd: refusals, scopes through real MCP clients, rate limits, revocation,
// and that no secret reaches a log line. Upstream credential modes and timing: auth-credentials.test.ts.
import { describe, expect, it } from 'vitest';
import { metadataOf, newKey, RECORD_PREFIX, USED_PREFIX } from '../../src/auth/keys-core.ts';
import {
  baseEnv,
  callEcho,
  captureLogs,
  env,
  expectChallenge,
  fetcher,
  initialize,
  KEYS,
  logLines,
  makeKey,
  OPERATOR_KEY,
  ORIGIN,
  post,
  rpcBody,
  secrets,
  sleep,
  unique,
  upstreamSaw,
  URL_MCP,
  v1,
  v2,
} from './fixtures/auth-harness.ts';

const textOf = (r: unknown) => ((r as { content?: Array<{ text?: string }> }).content ?? [])[0]?.text;

captureLogs();

describe('refusals are 401 with a Bearer challenge', () => {
  it('no key', async () => {
    const res = await post(undefined, initialize);
    const challenge = expectChallenge(res);
    expect(challenge).not.toContain('error='); // RFC 6750 §3.1: no error code when no credentials were sent
    expect(await res.json()).toMatchObject({ error: 'missing_token' });
  });

  it('not a Bearer header', async () => {
    const res = await fetcher(env)(URL_MCP, { method: 'POST', headers: { authorization: 'Basic dXNlcjpwYXNz', 'content-type': 'application/json' }, body: '{}' });
    expectChallenge(res);
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('a malformed key says it is malformed', async () => {
    for (const bad of ['mcp_live_short', 'sk_live_0123456789abcdef0123456789abcdef', 'mcp_prod_0123456789abcdef0123456789abcdef']) {
      const res = await post(bad, initialize);
      expect(expectChallenge(res)).toContain('error="invalid_token"');
      const body = await res.text();
      expect(body).toContain('malformed');
      expect(body).not.toContain(bad);
    }
  });

  it('unknown, expired and revoked keys get the same answer', async () => {
    const unknown = (await newKey({ prefix: 'mcp_live_', customer: { id: 'x', name: 'x' } })).key;
    const expired = await makeKey({ expiresAt: new Date(Date.now() - 1000).toISOString() });
    const revoked = await makeKey({ mutate: (r) => (r.revokedAt = new Date().toISOString()) });
    const answers: string[] = [];
    for (const key of [unknown, expired.key, revoked.key]) {
      const res = await post(key, initialize);
      expect(expectChallenge(res)).toContain('error="invalid_token"');
      const body = await res.text();
      expect(body).not.toContain(key);
      answers.push(`${res.headers.get('www-authenticate')} ${body}`);
    }
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toContain('invalid, expired or revoked');
  });

  it('a key that has not yet expired works', async () => {
    const { key } = await makeKey({ expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await post(key, initialize)).status).toBe(200);
  });

  it('protected-resource metadata is served', async () => {
    const res = await fetcher(env)(`${ORIGIN}/.well-known/oauth-protected-resource`);
    expect(await res.json()).toMatchObject({ resource: URL_MCP, bearer_methods_supported: ['header'] });
  });
});

describe('operator key (API_KEY) stays valid beside customer keys', () => {
  it('both kinds work when both are configured', async () => {
    const { key } = await makeKey();
    expect((await post(OPERATOR_KEY, initialize)).status).toBe(200);
    expect((await post(key, initialize)).status).toBe(200);
  });

  it('API_KEY alone works without a KEYS binding, in any format', async () => {
    const e = baseEnv({ KEYS: undefined, API_KEY: 'local-dev' });
    expect((await post('local-dev', initialize, e)).status).toBe(200);
    expect((await post(OPERATOR_KEY, initialize, e)).status).toBe(401);
  });
});

describe('scope', () => {
  it('a key limited to a toolset sees only that toolset (v1 and v2 clients)', async () => {
    const { key } = await makeKey({ toolsets: ['echo'] });
    for (const client of [await v1(key), await v2(key)]) {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo_get']);
      expect(client.getInstructions()).toContain("This key's scope is toolsets echo: calls of other tools are refused");
      // The catalogue is public: the refusal names the key's scope, as a result the model can act on.
      const refused = await client.callTool({ name: 'echo_remove', arguments: { id: 'x' } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe('echo_remove is not available with this key: its scope is toolsets echo. Use one of the listed tools instead. A wider scope needs another key from the API\'s operator.');
      await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool: no_such_tool/);
      await client.close();
    }
  });

  it('the key scope intersects the URL slice; a URL cannot widen it', async () => {
    const { key } = await makeKey({ toolsets: ['echo'] });
    const client = await v1(key, env, `${ORIGIN}/mcp/x/admin`);
    expect((await client.listTools()).tools).toEqual([]);
    await client.close();
  });

  it('at bare /mcp a scoped key sees its own scope, not the default toolsets; ?tools= picks from the whole catalogue', async () => {
    const withDefaults = baseEnv({ DEFAULT_TOOLSETS: 'echo' });
    const scoped = await makeKey({ toolsets: ['admin'] });
    const client = await v1(scoped.key, withDefaults);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo_remove']);
    await client.close();
    const unscoped = await v1(OPERATOR_KEY, withDefaults);
    expect((await unscoped.listTools()).tools.map((t) => t.name)).toEqual(['echo_get']);
    await unscoped.close();
    const picked = await v1(OPERATOR_KEY, withDefaults, `${URL_MCP}?tools=echo_remove`);
    expect((await picked.listTools()).tools.map((t) => t.name)).toEqual(['echo_remove']);
    await picked.close();
  });

  it('a key limited to tools sees only those tools', async () => {
    const { key } = await makeKey({ tools: ['echo_remove'] });
    const client = await v2(key);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo_remove']);
    await client.close();
  });

  it('a read-only key lists only readOnlyHint tools and cannot call a DELETE', async () => {
    const { key } = await makeKey({ readOnly: true });
    const client = await v1(key);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo_get']);
    const id = `ro-${unique()}`;
    const refused = await client.callTool({ name: 'echo_remove', arguments: { id } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^echo_remove changes data, and this key is read-only \(its scope: every tool, read-only\)/);
    expect(await upstreamSaw(`/echo/${id}`)).toBeUndefined();
    // ?readonly=0 in the URL cannot lift it either.
    const res = await post(key, callEcho(id, 'echo_remove'), env, `${URL_MCP}?readonly=0`);
    expect(JSON.stringify(await rpcBody(res))).toMatch(/this key is read-only/);
    expect(await upstreamSaw(`/echo/${id}`)).toBeUndefined();
    await client.close();
  });
});

describe('rate limits', () => {
  it('trips at the configured count with 429 + Retry-After, does not call the upstream, and resets', async () => {
    const { key } = await makeKey({ rate: { limit: 3, period: 'second' } });
    // Let a fresh window start on a whole request burst.
    for (let i = 0; i < 3; i++) expect((await post(key, callEcho(`rl-ok-${i}`))).status).toBe(200);
    const id = `rl-${unique()}`;
    const refused = await post(key, callEcho(id));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ error: 'rate_limited' });
    expect(await upstreamSaw(`/echo/${id}`)).toBeUndefined();
    await sleep(1100);
    const again = await post(key, callEcho(id));
    expect(again.status).toBe(200);
    expect(await upstreamSaw(`/echo/${id}`)).toBeDefined();
  });

  it('per-minute limits count exactly and say how long to wait', async () => {
    const { key } = await makeKey({ rate: { limit: 5, period: 'minute' } });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await post(key, initialize)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const res = await post(key, initialize);
    const wait = Number(res.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(55);
    expect(wait).toBeLessThanOrEqual(60);
  });

  it('limits are per key', async () => {
    const a = await makeKey({ rate: { limit: 1, period: 'minute' } });
    const b = await makeKey({ rate: { limit: 1, period: 'minute' } });
    expect((await post(a.key, initialize)).status).toBe(200);
    expect((await post(a.key, initialize)).status).toBe(429);
    expect((await post(b.key, initialize)).status).toBe(200);
  });
});

describe('revocation and propagation', () => {
  it('a revoke written by another isolate (the CLI) is seen here within the cache TTL, and an older copy cannot undo it', async () => {
    const e = baseEnv({ KEY_CACHE_TTL_SECONDS: '1' });
    const made = await makeKey();
    expect((await post(made.key, initialize, e)).status).toBe(200);
    const record = { ...made.record, revokedAt: new Date().toISOString() };
    await KEYS.put(RECORD_PREFIX + made.hash, JSON.stringify(record), { metadata: metadataOf(record) });
    // Still cached here: this is the documented propagation delay.
    expect((await post(made.key, initialize, e)).status).toBe(200);
    await sleep(1100);
    expect((await post(made.key, initialize, e)).status).toBe(401);
    // A stale KV edge read returning the pre-revocation record after the cache TTL does not revive the key.
    await KEYS.put(RECORD_PREFIX + made.hash, JSON.stringify(made.record));
    await sleep(1100);
    expect((await post(made.key, initialize, e)).status).toBe(401);
  });

  it('records the last-used day without blocking the request', async () => {
    const made = await makeKey();
    expect((await post(made.key, initialize)).status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    for (let i = 0; i < 50 && (await KEYS.get(USED_PREFIX + made.hash)) !== today; i++) await sleep(20);
    expect(await KEYS.get(USED_PREFIX + made.hash)).toBe(today);
    // The record itself is never rewritten by the Worker (a stale read could otherwise undo a revoke).
    expect(await KEYS.get(RECORD_PREFIX + made.hash)).toBe(JSON.stringify(made.record));
  });
});

describe('secrets stay out of logs', () => {
  it('no captured log line contains a key, an upstream credential or the encryption secret', () => {
    expect(logLines.length).toBeGreaterThan(0);
    const joined = logLines.join('\n');
    for (const s of secrets) expect(joined).not.toContain(s);
  });
});
