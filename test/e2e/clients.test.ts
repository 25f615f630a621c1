// Real clients against a real `wrangler dev`: the mcp-remote bridge (exactly the Claude Desktop snippet the page
// and README print), inspector-cli over HTTP, the TypeScript SDK snippets (v2 and v1), and the conformance
// suite's server scenarios that apply to a tools-only server.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binDir, childEnv, repoRoot } from '../../scripts/lib/proc.ts';
import { MCP_REMOTE, snippets } from '../../src/page/snippets.ts';
import { startUpstream } from '../support/upstream-server.ts';
import { startWorker, type WranglerDev } from '../support/wrangler-dev.ts';
import { fixtureCatalogue } from '../worker/fixtures/catalogue.ts';

const run = promisify(execFile);
// inspector-cli 1.0.3 only starts when `../package.json` exists relative to its cwd (see stdio.test.ts).
const INSPECTOR_CWD = join(repoRoot, 'node_modules', '@modelcontextprotocol', 'inspector-cli', 'build');
/** Conformance server scenarios that apply to a server offering only tools (no prompts, resources, logging, sampling). */
const CONFORMANCE_SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

let upstream: Awaited<ReturnType<typeof startUpstream>>;
let worker: WranglerDev;
let stateDir: string;
const timings: Record<string, number> = {};

beforeAll(async () => {
  upstream = await startUpstream();
  stateDir = await mkdtemp(join(tmpdir(), 'mcp-clients-e2e-'));
  worker = await startWorker({ upstream: upstream.url, catalogue: fixtureCatalogue() });
  timings.wranglerStartMs = worker.startMs;
}, 240_000);

afterAll(async () => {
  await worker?.stop();
  await upstream?.close();
  if (stateDir) await rm(stateDir, { recursive: true, force: true });
  console.log(`clients e2e timings: ${JSON.stringify(timings)}`);
});

function plainEnv(extra: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(childEnv(extra)).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as Array<{ type: string; text?: string }>).find((b) => b.type === 'text')?.text ?? '';
}

describe('client setups against wrangler dev', () => {
  it('mcp-remote (the Claude Desktop snippet) bridges stdio with the Authorization header; a stdio client lists and calls', async () => {
    const snippet = snippets(worker.endpoint, worker.apiKey).find((s) => s.id === 'claude-desktop')!;
    const server = (JSON.parse(snippet.text) as { mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }> }).mcpServers.catalogue!;
    // The snippet runs `npx -y mcp-remote@<version> …`; run the same pinned version from node_modules (offline).
    expect(server.command).toBe('npx');
    expect(server.args.slice(0, 2)).toEqual(['-y', MCP_REMOTE]);
    const transport = new StdioClientTransport({
      command: join(binDir, 'mcp-remote'),
      args: server.args.slice(2),
      env: plainEnv({ ...server.env, MCP_REMOTE_CONFIG_DIR: stateDir }),
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const client = new ClientV1({ name: 'claude-desktop-like', version: '1.0.0' });
    const t0 = Date.now();
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      timings.mcpRemoteConnectListMs = Date.now() - t0;
      expect(tools.map((t) => t.name)).toEqual(['echo_get', 'echo_remove']);
      const result = await client.callTool({ name: 'echo_get', arguments: { id: 'bridged', limit: 2 } });
      expect(result.isError, textOf(result as { content?: unknown })).toBeFalsy();
      // The worker answers 401 without the bearer, so a successful call proves the bridge sent the header.
      expect(result.structuredContent).toMatchObject({ method: 'GET', url: '/echo/bridged?limit=2' });
      // OAuth is advertised here (wrangler.toml OAUTH=on), yet the configured header was never challenged, so the
      // bridge never registered or opened a consent page.
      const md = (await (await fetch(`${worker.url}/.well-known/oauth-protected-resource`)).json()) as { authorization_servers?: string[] };
      expect(md.authorization_servers).toEqual([worker.url]);
      expect(worker.logs()).not.toMatch(/POST \/register|\/authorize/);
    } catch (err) {
      throw new Error(`${String(err)}\nmcp-remote stderr:\n${stderr.slice(-3000)}\nworker:\n${worker.logs()}`);
    } finally {
      await client.close();
    }
  });

  it('mcp-remote without the header gets 401 with a resource_metadata challenge (what clients use for OAuth discovery)', async () => {
    const res = await fetch(worker.endpoint, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource"/);
  });

  it('inspector-cli --cli lists and calls tools over HTTP with the header', async () => {
    const base = [worker.endpoint, '--transport', 'http', '--header', `Authorization: Bearer ${worker.apiKey}`];
    const opts = { cwd: INSPECTOR_CWD, env: childEnv(), maxBuffer: 16 << 20 };
    const t0 = Date.now();
    const list = await run(join(binDir, 'mcp-inspector-cli'), ['--cli', ...base, '--method', 'tools/list'], opts);
    timings.inspectorHttpListMs = Date.now() - t0;
    expect((JSON.parse(list.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(['echo_get', 'echo_remove']);
    const call = await run(join(binDir, 'mcp-inspector-cli'), ['--cli', ...base, '--method', 'tools/call', '--tool-name', 'echo_remove', '--tool-arg', 'id=gone'], opts);
    const result = JSON.parse(call.stdout) as { isError?: boolean; content: Array<{ type: string; text: string }> };
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(result.content[0]!.text)).toMatchObject({ method: 'DELETE', url: '/echo/gone' });
  });

  it('the TypeScript SDK v2 snippet connects, lists and calls', async () => {
    const client = new ClientV2({ name: 'my-app', version: '1.0.0' });
    await client.connect(new TransportV2(new URL(worker.endpoint), { requestInit: { headers: { Authorization: `Bearer ${worker.apiKey}` } } }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['echo_get', 'echo_remove']);
      const result = await client.callTool({ name: tools[0]!.name, arguments: { id: 'v2' } });
      expect(result.structuredContent).toMatchObject({ url: '/echo/v2' });
    } finally {
      await client.close();
    }
  });

  it('the TypeScript SDK v1 snippet connects, lists and calls', async () => {
    const client = new ClientV1({ name: 'my-app', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(worker.endpoint), { requestInit: { headers: { Authorization: `Bearer ${worker.apiKey}` } } }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['echo_get', 'echo_remove']);
      const result = await client.callTool({ name: 'echo_get', arguments: { id: 'v1' } });
      expect(result.structuredContent).toMatchObject({ url: '/echo/v1' });
    } finally {
      await client.close();
    }
  });

  it(`conformance server scenarios for a tools-only server pass: ${CONFORMANCE_SCENARIOS.join(', ')}`, async () => {
    // The conformance client sends no credentials; a loopback proxy adds the bearer and forwards everything else
    // untouched (Host and Origin included, so the DNS-rebinding scenario still reaches the worker's guard).
    const target = new URL(worker.url);
    const proxy: Server = createServer((req, res) => {
      const up = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${worker.apiKey}` } },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      up.on('error', (e) => {
        res.writeHead(502);
        res.end(String(e));
      });
      req.pipe(up);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
    const failures: string[] = [];
    const t0 = Date.now();
    try {
      for (const scenario of CONFORMANCE_SCENARIOS) {
        const out = await run(join(binDir, 'conformance'), ['server', '--url', url, '--scenario', scenario], { cwd: repoRoot, env: childEnv(), maxBuffer: 16 << 20 }).then(
          (r) => ({ code: 0, text: r.stdout + r.stderr }),
          (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, text: e.stdout + e.stderr }),
        );
        if (out.code !== 0 || !/\b0 failed\b/.test(out.text)) failures.push(`${scenario} (exit ${out.code}):\n${out.text.slice(-2000)}`);
      }
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
    timings.conformanceMs = Date.now() - t0;
    expect(failures, failures.join('\n\n')).toEqual([]);
  });
});
