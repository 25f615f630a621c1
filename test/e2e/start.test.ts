// `npm start` as a user runs it (on a free port): banner, a tool call through the Prism mock, code mode with both
// clients, the whole OAuth flow offline with both SDK clients and the documented local key, the
// @modelcontextprotocol/conformance server scenarios with the key check on, and a clean Ctrl-C.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/proc.ts';
import { LOCAL_KEY } from '../../scripts/lib/serve.ts';
import { sha256Hex } from '../../src/lib/bytes.ts';
import type { UsageReport } from '../../src/usage/query.ts';
import { authProxy, connectV1, connectV2, embeddedCatalogue, keysCli, npmUntilBanner, runConformance, textOf, type BannerChild } from './helpers.ts';
import { connectV1WithOAuth, connectV2WithOAuth, httpConsent, MemoryProvider } from './oauth-helpers.ts';

let started: BannerChild | undefined;
let proxy: { url: string; close(): Promise<void> } | undefined;
let port: number;
let state: string;

beforeAll(async () => {
  port = await freePort();
  state = await mkdtemp(join(tmpdir(), 'mcp-start-state-'));
  started = await npmUntilBanner(['start'], { PORT: String(port), UPSTREAM_URL: undefined, CREDENTIAL_MODE: undefined, API_KEY: undefined, MCP_PERSIST_TO: state });
  proxy = await authProxy(`http://127.0.0.1:${port}`, `Bearer ${LOCAL_KEY}`);
});

afterAll(async () => {
  await proxy?.close();
  await started?.child.stop();
  if (state) await rm(state, { recursive: true, force: true });
});

describe('npm start', () => {
  it('prints the endpoint, the documented local key and a ready mcpServers snippet', () => {
    expect(started!.endpoint).toBe(`http://127.0.0.1:${port}/mcp`);
    expect(started!.key).toBe(LOCAL_KEY);
    expect(LOCAL_KEY).toMatch(/^mcp_test_[A-Za-z0-9]{32}$/);
    expect(started!.snippet).toEqual({ mcpServers: { github: { url: started!.endpoint, headers: { Authorization: `Bearer ${LOCAL_KEY}` } } } });
  });

  it('serves the GitHub tools through the mock upstream', async () => {
    const client = await connectV1(started!.endpoint, { Authorization: `Bearer ${started!.key}` });
    try {
      const { tools } = await client.listTools();
      // Bare /mcp is the catalogue's default toolsets: a slice every tool-capped client (≤ 128) accepts.
      expect(tools.length).toBeGreaterThan(50);
      expect(tools.length).toBeLessThanOrEqual(128);
      expect(tools.map((t) => t.name)).toContain('repos_get');
      const result = await client.callTool({ name: 'repos_get', arguments: { owner: 'octocat', repo: 'hello-world' } });
      expect(result.isError, textOf(result)).toBeFalsy();
      // The mock answers with the spec's own example (a real GitHub answer), and the result is compacted: no links
      // back into the API, nested resources shortened to their identity.
      expect(result.structuredContent).toMatchObject({ full_name: 'octocat/Hello-World', owner: { login: 'octocat' } });
      expect(JSON.stringify(result)).not.toContain('api.github.com');
      expect(textOf(result)).toMatch(/Shortened to identifying fields/);
    } finally {
      await client.close();
    }
  });

  it('records that call where `npm run keys -- usage --local` reads it (the usage tables were created at start)', async () => {
    const keyId = `key:${(await sha256Hex(LOCAL_KEY)).slice(0, 8)}`;
    let report: UsageReport | undefined;
    // The isolate writes its batch USAGE_FLUSH_MS (5 s) after the call.
    for (let i = 0; i < 10 && !report?.rows.length; i++) {
      const out = await keysCli(['usage', '--local', '--json'], { MCP_PERSIST_TO: state });
      expect(out.code, out.stderr).toBe(0);
      report = JSON.parse(out.stdout) as UsageReport;
      if (!report.rows.length) await new Promise((r) => setTimeout(r, 2000));
    }
    expect(report!.rows).toEqual([expect.objectContaining({ key: keyId, tool: 'repos_get', calls: 1, ok: 1 })]);
  });

  for (const [name, connect] of [['v1', connectV1], ['v2', connectV2]] as const) {
    it(`serves /mcp/code to the ${name} client: search answers declarations, execute chains calls in the sandbox`, async () => {
      const client = await connect(started!.endpoint.replace(/\/mcp$/, '/mcp/code'), { Authorization: `Bearer ${started!.key}` });
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['search', 'execute']);
        const found = await client.callTool({ name: 'search', arguments: { query: 'get a repository and its languages' } });
        expect(textOf(found)).toMatch(/^ {2}function repos_get\(args: ReposGetArgs\): Promise<ReposGetResult>;$/m);
        expect(textOf(found)).toMatch(/^ {2}function repos_list_languages\(/m);
        const code = [
          'const repo = await api.repos_get({ owner: "octocat", repo: "hello-world" });',
          'const languages = await api.repos_list_languages({ owner: "octocat", repo: "hello-world" });',
          'return { id: typeof repo.id, languages: typeof languages };',
        ].join('\n');
        const result = await client.callTool({ name: 'execute', arguments: { code } });
        expect(result.isError, textOf(result)).toBeFalsy();
        expect(JSON.parse(textOf(result)!)).toEqual({ id: 'number', languages: 'object' });
        // A program that loops forever is stopped, and the server keeps serving.
        const loop = await client.callTool({ name: 'execute', arguments: { code: 'while (true) {}' } });
        expect(loop.isError).toBe(true);
        expect(textOf(loop)).toMatch(/^(Step|CPU) limit: /);
        expect(textOf(await client.callTool({ name: 'execute', arguments: { code: 'return 6 * 7' } }))).toBe('42');
      } finally {
        await client.close();
      }
    });
  }

  it('survives issue 23\'s hostile programs, and another client\'s tools/call is answered meanwhile', async () => {
    const auth = { Authorization: `Bearer ${started!.key}` };
    const code = await connectV2(started!.endpoint.replace(/\/mcp$/, '/mcp/code'), auth);
    const other = await connectV1(started!.endpoint, auth);
    try {
      const execute = async (program: string) => textOf(await code.callTool({ name: 'execute', arguments: { code: program } }))!;
      expect(await execute('return /^(a+)+$/.test("a".repeat(40) + "b");')).toBe('false');
      expect(await execute("const { exports } = process.getBuiltinModule('cloudflare:workers');\nreturn exports.default.run({ maxSteps: 1e15 });")).toMatch(/^ReferenceError: process is not defined/);
      expect(await execute('const k = []; for (let j = 0; j < 16; j++) { let s = "x" + j; for (let i = 0; i < 27; i++) s = s + s; s.indexOf("z"); k.push(s) } return k.length')).toMatch(/^Memory limit: /);
      // While one client's program computes until its CPU limit, another client's tools/call is answered: the
      // program never holds the runtime for more than its CPU limit (1 s) at a time, whatever its wall limit (30 s).
      const t0 = Date.now();
      const hog = execute('let n = 0;\nfor (;;) { if (/^(a+)+$/.test("a".repeat(31) + "b")) n++; for (let i = 0; i < 1e5; i++) n = (n * 31 + i) % 1000003; }');
      const answered = other.callTool({ name: 'repos_get', arguments: { owner: 'octocat', repo: 'hello-world' } }).then((r) => ({ r, ms: Date.now() - t0 }));
      const [hogText, { r, ms }] = await Promise.all([hog, answered]);
      expect(hogText).toMatch(/^(CPU|Step) limit: /);
      expect(r.isError, textOf(r)).toBeFalsy();
      expect(ms).toBeLessThan(15_000);
      expect(await execute('return 6 * 7')).toBe('42');
    } finally {
      await code.close();
      await other.close();
    }
  });

  it('rejects a request without the key with 401', async () => {
    const res = await fetch(started!.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(res.status).toBe(401);
  });

  it('serves the OAuth flow offline: v2 and v1 clients authorize with the local key on the consent page, list and call', async () => {
    expect(started!.stdout()).toContain(`the consent page at http://127.0.0.1:${port}/authorize takes the key`);
    for (const connect of [connectV2WithOAuth, connectV1WithOAuth]) {
      const provider = new MemoryProvider({ redirectUrl: 'http://127.0.0.1:43118/callback', authorize: httpConsent(LOCAL_KEY, { toolsets: ['repos_core'] }) });
      const client = await connect(started!.endpoint, provider);
      try {
        expect(provider.saved[0]!.scope).toBe('toolset:repos_core');
        const { tools } = await client.listTools();
        const inToolset = (await embeddedCatalogue()).tools.filter((t) => t.toolsets.includes('repos_core')).map((t) => t.name);
        expect(tools.map((t) => t.name).sort()).toEqual(inToolset.sort());
        expect(inToolset).toContain('repos_get');
        const result = await client.callTool({ name: 'repos_get', arguments: { owner: 'octocat', repo: 'hello-world' } });
        expect(result.isError, textOf(result)).toBeFalsy();
      } finally {
        await client.close();
      }
    }
  });

  for (const scenario of ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection']) {
    it(`passes the conformance scenario ${scenario}`, async () => {
      const run = await runConformance(`${proxy!.url}/mcp`, scenario);
      const failed = run.checks.filter((c) => c.status !== 'SUCCESS' && c.status !== 'INFO' && c.status !== 'SKIPPED');
      expect(failed, run.output).toEqual([]);
      expect(run.checks.length, run.output).toBeGreaterThan(0);
      expect(run.code, run.output).toBe(0);
    });
  }

  it('stops Prism and wrangler cleanly on SIGINT', async () => {
    const child = started!.child;
    process.kill(-child.proc.pid!, 'SIGINT');
    const code = await child.exited;
    // Our script exits 0; npm, which got the same Ctrl-C, re-raises it on itself.
    expect([0, 'SIGINT']).toContain(code);
    await child.stop(); // waits for the rest of the process group (the script behind npm) to finish its cleanup
    expect(child.tail()).toMatch(/SIGINT: stopping/);
    expect(child.tail()).not.toMatch(/cleanup failed|forcing exit/);
    // The worker port is free again (wrangler and workerd are gone).
    const res = await fetch(started!.endpoint, { signal: AbortSignal.timeout(2000) }).catch(() => 'down');
    expect(res).toBe('down');
  });
});
