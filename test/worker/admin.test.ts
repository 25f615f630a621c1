// /admin/*: one gate (the Host/Origin guard, then the ADMIN_TOKEN bearer) for every operator route; and
// /admin/schema-health: per-tool mismatch counts, drop list state.
import { describe, expect, inject, it } from 'vitest';
import { DROPS_KEY } from '../../src/catalogue/schema-drop-list.ts';
import { createApp } from '../../src/app.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { recordSchemaMismatch } from '../../src/upstream/execute.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';

const ADMIN = 'admin-secret-0123456789';
const kvValues = new Map<string, string>();
const kv = { get: async (k: string) => kvValues.get(k) ?? null };
const app = createApp(loadCatalogue(await encodeCatalogue(fixtureCatalogue())));
const env = { API_KEY: 'mcp_test_0123456789abcdef0123456789abcdef', UPSTREAM_URL: inject('upstreamUrl'), ADMIN_TOKEN: ADMIN, CONFIG: kv, SCHEMA_DROPS_TTL_SECONDS: '0' };
const get = (headers: Record<string, string> = {}, e: object = env, q = '') => app.fetch(new Request(`http://127.0.0.1:8787/admin/schema-health${q}`, { headers }), e as never);

describe('the /admin/* gate', () => {
  const at = (path: string, headers: Record<string, string> = {}, url = 'http://127.0.0.1:8787') => app.fetch(new Request(`${url}${path}`, { headers }), env as never);
  const routes = ['/admin/schema-health', '/admin/usage', '/admin/grants?key=abcdefabcdef', '/admin/anything'];

  it('refuses another site\'s page (Origin) and a foreign Host with 403, even with the right token', async () => {
    for (const path of routes) {
      expect((await at(path, { authorization: `Bearer ${ADMIN}`, origin: 'https://evil.example' })).status, path).toBe(403);
      expect((await at(path, { authorization: `Bearer ${ADMIN}` }, 'http://rebound.evil.example')).status, path).toBe(403);
    }
  });

  it('answers 401 with the admin challenge before any route, known or not; with the token an unknown route is 404', async () => {
    for (const path of routes) {
      const res = await at(path, { authorization: 'Bearer wrong' });
      expect(res.status, path).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="admin"');
      expect((await at(path, { authorization: `Basic ${btoa(`admin:${ADMIN}`)}` })).status, path).toBe(401);
    }
    expect((await at('/admin/anything', { authorization: `Bearer ${ADMIN}` })).status).toBe(404);
  });
});

describe('/admin/schema-health', () => {
  it('is 401 without, or with a wrong, bearer and when ADMIN_TOKEN is unset', async () => {
    expect((await get()).status).toBe(401);
    expect((await get({ authorization: 'Bearer nope' })).status).toBe(401);
    expect((await get({ authorization: `Bearer ${env.API_KEY}` })).status).toBe(401);
    const unset = await get({ authorization: `Bearer ${ADMIN}` }, { ...env, ADMIN_TOKEN: undefined });
    expect(unset.status).toBe(401);
    expect(((await unset.json()) as { message: string }).message).toMatch(/ADMIN_TOKEN/);
  });

  it('reports per-tool mismatch counts and the runtime drop list', async () => {
    recordSchemaMismatch('echo_get');
    recordSchemaMismatch('echo_get');
    kvValues.set(DROPS_KEY, JSON.stringify({ tools: { echo_get: { reason: 'sweep', at: '2026-11-30' }, gone: { reason: 'x' } } }));
    const res = await get({ authorization: `Bearer ${ADMIN}` });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    const echo = body.tools.find((t: any) => t.name === 'echo_get');
    expect(echo.mismatches).toBeGreaterThanOrEqual(2);
    expect(echo.outputSchema).toBe('dropped_runtime');
    expect(echo.dropReason).toBe('sweep');
    expect(body.drops).toMatchObject({ key: DROPS_KEY, binding: 'CONFIG', count: 2, unknownTools: ['gone'], ttlSeconds: 0 });
    expect(body.tools.some((t: any) => t.name === 'echo_remove')).toBe(false);
    const all = (await (await get({ authorization: `Bearer ${ADMIN}` }, env, '?all=1')).json()) as any;
    expect(all.tools.map((t: any) => t.name).sort()).toEqual(['echo_get', 'echo_remove']);
  });
});
