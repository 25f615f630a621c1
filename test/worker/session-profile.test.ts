// The client profile across a 2025-era session without server state (src/profiles/session-id.ts): the answer to
// initialize carries a signed Mcp-Session-Id naming the profile, the client echoes it, and later requests (which name
// no client) follow that profile. Real v1 and v2 clients inside workerd, the embedded GitHub catalogue.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Ajv from 'ajv';
import { describe, expect, inject, it } from 'vitest';
import catalogueText from 'catalog-data';
import { createApp } from '../../src/app.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { Env } from '../../src/config.ts';
import { PROFILES } from '../../src/profiles/profiles.ts';
import { issueSessionId, profileFromSessionId } from '../../src/profiles/session-id.ts';

const KEY = 'mcp_test_0123456789abcdef0123456789abcdef';
const BASE = 'http://127.0.0.1:8787';
const env: Env = { API_KEY: KEY, UPSTREAM_URL: `${inject('upstreamUrl')}/echo`, CREDENTIAL_MODE: 'key' };
const auth = { Authorization: `Bearer ${KEY}` };
const app = createApp(loadCatalogue(catalogueText));

interface Exchange {
  method: string;
  sent: string | null;
  received: string | null;
}

/** A fetch into the app that records each JSON-RPC method with the Mcp-Session-Id sent and received. */
function recording(useEnv: Env = env) {
  const log: Exchange[] = [];
  const fetchImpl = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    const body = req.method === 'POST' ? ((await req.clone().json().catch(() => ({}))) as { method?: string }) : {};
    const res = await app.fetch(req, useEnv);
    log.push({ method: body.method ?? req.method, sent: req.headers.get('mcp-session-id'), received: res.headers.get('mcp-session-id') });
    return res;
  };
  return { log, fetchImpl };
}

const SESSION_ID = /^mcp1\.[a-z]+\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}$/;
const walk = (node: unknown, visit: (k: string, v: unknown) => void): void => {
  if (Array.isArray(node)) node.forEach((n) => walk(n, visit));
  else if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) (visit(k, v), walk(v, visit));
};

type Tool = { name: string; inputSchema: Record<string, unknown>; outputSchema?: unknown };
/** What each profile's later tools/list must show when the session carried it (bare /mcp: 101 tools). */
const EXPECT: Record<string, { profile: string; check: (tools: Tool[]) => void }> = {
  'cursor-vscode': { profile: 'cursor', check: (t) => (expect(t.length).toBeLessThanOrEqual(40), expect(t[0]!.name).toBe('search_tools')) },
  'claude-ai': { profile: 'claude', check: (t) => (expect(t).toHaveLength(101), expect(t.some((x) => x.outputSchema)).toBe(true)) },
  'openai-mcp': {
    profile: 'openai',
    check: (t) => {
      expect(t).toHaveLength(101);
      for (const x of t) expect(x.inputSchema, x.name).toMatchObject({ additionalProperties: false, required: Object.keys(x.inputSchema.properties as object) });
    },
  },
  'gemini-cli-mcp-client': {
    profile: 'gemini',
    check: (t) => {
      expect(t).toHaveLength(101);
      const keys = new Set<string>();
      walk(t, (k) => keys.add(k));
      expect(keys.has('outputSchema')).toBe(false);
    },
  },
  'Visual Studio Code': {
    profile: 'vscode',
    check: (t) => {
      expect(t).toHaveLength(101);
      const ajv = new Ajv({ strict: false });
      for (const x of t) expect(ajv.validateSchema(x.inputSchema)).toBe(true);
    },
  },
  'some-client': { profile: 'default', check: (t) => (expect(t).toHaveLength(101), expect(t.some((x) => x.outputSchema)).toBe(true)) },
};

describe('profiles across a stateless 2025-era session', () => {
  for (const [name, want] of Object.entries(EXPECT)) {
    it(`v1 client "${name}" on bare /mcp: initialize issues a session id naming ${want.profile}; later requests echo it and follow it`, async () => {
      const { log, fetchImpl } = recording();
      const client = new ClientV1({ name, version: '1.0.0' });
      const transport = new TransportV1(new URL(`${BASE}/mcp`), { fetch: fetchImpl, requestInit: { headers: auth } });
      await client.connect(transport);
      const id = log.find((e) => e.method === 'initialize')!.received!;
      expect(id).toMatch(SESSION_ID);
      expect(id.split('.')[1]).toBe(want.profile);
      expect(id).not.toContain(KEY.slice(9));
      want.check((await client.listTools()).tools as Tool[]);
      const call = await client.callTool({ name: 'repos_get', arguments: { owner: 'o', repo: 'r' } });
      if (want.profile === 'gemini') expect(call.structuredContent).toBeUndefined();
      else expect(call.structuredContent).toMatchObject({ url: '/echo/repos/o/r' });
      // Every later request carried the id; only initialize's answer issued one.
      const later = log.filter((e) => e.method === 'tools/list' || e.method === 'tools/call');
      expect(later.length).toBe(2);
      for (const e of later) expect(e).toMatchObject({ sent: id, received: null });
      await client.close();
    });
  }

  it('a tampered, foreign or malformed session id never breaks a client: the profile falls back to inference', async () => {
    const list = (sessionId: string) =>
      app.fetch(
        new Request(`${BASE}/mcp`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': sessionId },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        }),
        env,
      );
    const count = async (res: Response) => {
      expect(res.status).toBe(200);
      const data = (await res.text()).split('\n').find((l) => l.startsWith('data:'))!;
      return (JSON.parse(data.slice(5)) as { result: { tools: unknown[] } }).result.tools.length;
    };
    const genuine = await issueSessionId(PROFILES.cursor);
    expect(await count(await list(genuine))).toBe(40);
    const [v, , nonce, mac] = genuine.split('.');
    for (const bad of [`${v}.claude.${nonce}.${mac}`, `${genuine.slice(0, -2)}AA`, 'mcp1.cursor.x.y', '2b0c5a1e-8c52-4e5b-9d0a-5f1f3d0a9c11', 'mcp1.netscape.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA']) {
      expect(await profileFromSessionId(bad)).toBeUndefined();
      expect(await count(await list(bad)), bad).toBe(101);
    }
  });

  it('ids are signed with SESSION_SECRET: another secret does not read them, and the default key does not read production ids', async () => {
    const production: Env = { ...env, SESSION_SECRET: 'operator-secret-one' };
    const { log, fetchImpl } = recording(production);
    const client = new ClientV1({ name: 'cursor-vscode', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(`${BASE}/mcp`), { fetch: fetchImpl, requestInit: { headers: auth } }));
    expect((await client.listTools()).tools).toHaveLength(40);
    await client.close();
    const id = log.find((e) => e.method === 'initialize')!.received!;
    expect((await profileFromSessionId(id, 'operator-secret-one'))?.id).toBe('cursor');
    expect(await profileFromSessionId(id, 'operator-secret-two')).toBeUndefined();
    expect(await profileFromSessionId(id)).toBeUndefined();
  });

  it('?client= wins over the client\'s name, and needs no session id (the URL carries it)', async () => {
    const { log, fetchImpl } = recording();
    const client = new ClientV1({ name: 'cursor-vscode', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(`${BASE}/mcp?client=claude`), { fetch: fetchImpl, requestInit: { headers: auth } }));
    expect((await client.listTools()).tools).toHaveLength(101);
    await client.close();
    expect(log.find((e) => e.method === 'initialize')!.received).toBeNull();
  });

  it('a v2 client in the 2025 era echoes the id too; a 2026-07-28 client gets none and needs none', async () => {
    const legacy = recording();
    const old = new ClientV2({ name: 'cursor-vscode', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    await old.connect(new TransportV2(new URL(`${BASE}/mcp`), { fetch: legacy.fetchImpl, requestInit: { headers: auth } }));
    expect((await old.listTools()).tools).toHaveLength(40);
    await old.close();
    const issued = legacy.log.find((e) => e.method === 'initialize')!.received;
    expect(issued).toMatch(SESSION_ID);
    expect(legacy.log.find((e) => e.method === 'tools/list')!.sent).toBe(issued);

    const modern = recording();
    const now = new ClientV2({ name: 'cursor-vscode', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await now.connect(new TransportV2(new URL(`${BASE}/mcp`), { fetch: modern.fetchImpl, requestInit: { headers: auth } }));
    expect((await now.listTools()).tools).toHaveLength(40);
    await now.close();
    expect(modern.log.some((e) => e.method === 'initialize')).toBe(false);
    for (const e of modern.log) expect(e).toMatchObject({ sent: null, received: null });
  });
});
