// Shared pieces of the end-to-end tests: MCP clients over real HTTP, an auth-injecting proxy for the
// conformance runner, the conformance CLI itself, and an `npm` child whose banner we parse.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCatalogueDir } from '../../scripts/catalog/catalogue-files.ts';
import { binDir, childEnv, repoRoot, spawnChild, waitForLine, type Child } from '../../scripts/lib/proc.ts';
import type { Catalogue } from '../../src/catalogue/types.ts';

/** Runs `npm run keys -- <args>` the way npm does (node scripts/keys.ts, Node 22); never throws on a failing exit. */
export function keysCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(binDir, 'node'), [join(repoRoot, 'scripts', 'keys.ts'), ...args], { cwd: repoRoot, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

export async function embeddedCatalogue(): Promise<Catalogue> {
  return readCatalogueDir(join(repoRoot, 'catalog'));
}

/** The strict v1 client (@modelcontextprotocol/sdk 1.32): Ajv-validates every outputSchema and structuredContent. */
export async function connectV1(endpoint: string, headers: Record<string, string>): Promise<ClientV1> {
  const client = new ClientV1({ name: 'e2e-v1', version: '1.0.0' });
  await client.connect(new TransportV1(new URL(endpoint), { requestInit: { headers } }));
  return client;
}

/** The v2 client (@modelcontextprotocol/client 2.4) pinned to protocol 2026-07-28. */
export async function connectV2(endpoint: string, headers: Record<string, string>): Promise<ClientV2> {
  const client = new ClientV2({ name: 'e2e-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new TransportV2(new URL(endpoint), { requestInit: { headers } }));
  return client;
}

export function textOf(result: unknown): string | undefined {
  const blocks = ((result as { content?: unknown } | undefined)?.content ?? []) as Array<{ type: string; text?: string }>;
  return blocks.find((b) => b.type === 'text')?.text;
}

/**
 * A loopback proxy that adds `Authorization` to every request and otherwise forwards it unchanged —
 * Host and Origin included — so the conformance runner (which cannot send headers) exercises a worker that
 * keeps its key check on, and a rejected Host is rejected by the Host/Origin guard, not by the key check.
 */
export async function authProxy(target: string, authorization: string): Promise<{ url: string; close(): Promise<void> }> {
  const t = new URL(target);
  const server: Server = createServer((req: IncomingMessage, res) => {
    const headers = { ...req.headers, authorization };
    const up = request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    });
    up.on('error', (err) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`proxy: ${err.message}`);
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

interface ConformanceRun {
  code: number | null;
  output: string;
  checks: Array<{ id: string; status: string; errorMessage?: string }>;
}

/** Runs `conformance server --url <url> --scenario <scenario>` (the @modelcontextprotocol/conformance CLI). */
export async function runConformance(url: string, scenario: string): Promise<ConformanceRun> {
  const cwd = await mkdtemp(join(tmpdir(), 'mcp-conformance-'));
  try {
    const child = spawn(join(binDir, 'conformance'), ['server', '--url', url, '--scenario', scenario], { cwd, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    // The CLI prints one line per check: `<time> [<check id>   ] <STATUS> <description>`.
    const checks: ConformanceRun['checks'] = [];
    for (const line of output.split('\n')) {
      const m = /\[([a-z0-9-]+)\s*\]\s+(SUCCESS|FAILURE|WARNING|INFO|SKIPPED)\b\s*(.*)$/.exec(line.replace(/\u001b\[[0-9;]*m/g, ''));
      if (m) checks.push({ id: m[1]!, status: m[2]!, errorMessage: m[3] });
    }
    return { code, output, checks };
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}

export interface BannerChild {
  child: Child;
  endpoint: string;
  key: string;
  snippet: unknown;
  stdout(): string;
}

/** Runs `npm <args>` in the repo (its own process group) and waits for the `endpoint:`/`key:` banner. */
export async function npmUntilBanner(args: string[], env: Record<string, string | undefined>, timeoutMs = 170_000): Promise<BannerChild> {
  // Tests running side by side each get their own local state, unless one passes MCP_PERSIST_TO ('' = the default).
  const state = env.MCP_PERSIST_TO ?? (await mkdtemp(join(tmpdir(), 'mcp-e2e-state-')));
  const child = spawnChild(`npm ${args.join(' ')}`, 'npm', args, { env: childEnv({ ...env, MCP_PERSIST_TO: state }), tailLines: 400 });
  if (env.MCP_PERSIST_TO === undefined) void child.exited.then(() => rm(state, { recursive: true, force: true }));
  const out: string[] = [];
  child.onLine((line, stream) => {
    if (stream === 'stdout') out.push(line);
  });
  try {
    await waitForLine(child, /^key: /, timeoutMs);
  } catch (err) {
    await child.stop();
    throw err;
  }
  const endpoint = out.find((l) => l.startsWith('endpoint: '))?.slice('endpoint: '.length) ?? '';
  const key = out.find((l) => l.startsWith('key: '))?.slice('key: '.length) ?? '';
  // The snippet follows the key line; give it a moment to arrive.
  for (let i = 0; i < 50 && !out.some((l) => l.startsWith('{"mcpServers"')); i++) await new Promise((r) => setTimeout(r, 100));
  const snippetLine = out.find((l) => l.startsWith('{"mcpServers"'));
  return { child, endpoint, key, snippet: snippetLine ? JSON.parse(snippetLine) : undefined, stdout: () => out.join('\n') };
}

