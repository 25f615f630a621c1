// The stdio package as a customer runs it: `npm pack`, then `npx -y ./<tarball>`, driven by the v1 SDK's
// StdioClientTransport and by `mcp-inspector-cli --cli`. Tools call a loopback upstream that records requests.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../scripts/catalog/build.ts';
import { readCatalogueDir } from '../../scripts/catalog/catalogue-files.ts';
import { binDir, childEnv, repoRoot } from '../../scripts/lib/proc.ts';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { startUpstream } from '../support/upstream-server.ts';
import { fixtureCatalogue } from '../worker/fixtures/catalogue.ts';

const run = promisify(execFile);
const TOKEN = 'tok_stdio_e2e_123';
const BIN = join(repoRoot, 'bin', 'mcp-catalogue.js');
// inspector-cli 1.0.3 checks `existsSync('../package.json')` against the cwd but imports it relative to its own
// module, so it only starts when the cwd's parent holds a package.json; its own build/ directory satisfies both.
const INSPECTOR_CWD = join(repoRoot, 'node_modules', '@modelcontextprotocol', 'inspector-cli', 'build');

let upstream: Awaited<ReturnType<typeof startUpstream>>;
let dir: string;
let tarball: string;
let absoluteTarball: string;
let cataloguePath: string;
const timings: Record<string, number> = {};

function env(extra: Record<string, string>): Record<string, string> {
  const base = childEnv(extra) as Record<string, string | undefined>;
  // The SDK's env option wants plain strings.
  return Object.fromEntries(Object.entries(base).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

async function connect(command: string, args: string[], extra: Record<string, string>) {
  const transport = new StdioClientTransport({ command, args, cwd: dir, env: env(extra), stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const client = new Client({ name: 'stdio-e2e', version: '1.0.0' });
  const t0 = Date.now();
  try {
    await client.connect(transport);
  } catch (err) {
    throw new Error(`connect failed: ${String(err)}\nstderr:\n${stderr}`);
  }
  return { client, connectMs: Date.now() - t0, stderr: () => stderr };
}

beforeAll(async () => {
  upstream = await startUpstream();
  dir = await mkdtemp(join(tmpdir(), 'mcp-stdio-e2e-'));
  cataloguePath = join(dir, 'catalog.txt');
  await writeFile(cataloguePath, await encodeCatalogue(fixtureCatalogue()));
  const t0 = Date.now();
  // prepack bundles src/stdio into dist/stdio/main.mjs with esbuild.
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: repoRoot, env: childEnv(), maxBuffer: 16 << 20 });
  timings.packMs = Date.now() - t0;
  const info = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string; size: number; files: Array<{ path: string }> }>;
  // npx treats `./x.tgz` as a package spec; an absolute path would be run as a command. cwd is `dir`.
  tarball = `./${info[0]!.filename}`;
  timings.tarballBytes = info[0]!.size;
  expect(info[0]!.files.map((f) => f.path).sort()).toEqual(['README.md', 'bin/mcp-catalogue.js', 'catalog/catalog.txt', 'dist/stdio/main.mjs', 'package.json']);
  absoluteTarball = join(dir, info[0]!.filename);
}, 180_000);

afterAll(async () => {
  await upstream?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  console.log(`stdio e2e timings: ${JSON.stringify(timings)}`);
});

describe('stdio package', () => {
  it('npx -y <tarball>: the v1 stdio client lists and calls tools; the credential reaches the upstream', async () => {
    const { client, connectMs } = await connect('npx', ['-y', tarball], { MCP_CATALOG: cataloguePath, UPSTREAM_URL: upstream.url, API_KEY: TOKEN });
    timings.npxConnectMs = connectMs;
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['echo_get', 'echo_remove']);
      const result = await client.callTool({ name: 'echo_get', arguments: { id: 'abc', limit: 5 } });
      expect(result.isError).toBeFalsy();
      const structured = result.structuredContent as { method: string; url: string; headers: Record<string, string> };
      expect(structured).toMatchObject({ method: 'GET', url: '/echo/abc?limit=5' });
      // The upstream got the token; the result, which echoes it, has it redacted (credentials never reach results).
      expect(structured.headers.authorization).toBe('Bearer [redacted]');
      expect(((await (await fetch(`${upstream.url}/__last?path=/echo/abc`)).json()) as { headers: Record<string, string> }).headers.authorization).toBe(`Bearer ${TOKEN}`);
      const text = (result.content as Array<{ type: string; text?: string }>).find((b) => b.type === 'text')?.text;
      expect(JSON.parse(text ?? 'null')).toEqual(structured);
      // Argument errors come back as tool results the model can act on.
      const bad = await client.callTool({ name: 'echo_get', arguments: { limit: 500 } });
      expect(bad.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('the package is self-contained: no runtime dependencies to install, and the bundle imports only Node built-ins', async () => {
    const { stdout } = await run('tar', ['-xOzf', absoluteTarball, 'package/package.json']);
    const pkg = JSON.parse(stdout) as Record<string, unknown>;
    for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies', 'bundleDependencies']) expect(pkg[field], field).toBeUndefined();
    const bundle = (await run('tar', ['-xOzf', absoluteTarball, 'package/dist/stdio/main.mjs'], { maxBuffer: 64 << 20 })).stdout;
    const specifiers = new Set([...bundle.matchAll(/(?:^|[;\s])(?:import\s[^;'"]*?from|import\s*\(|__require\()\s*["']([@\w][\w@/.:-]*)["']/gm)].map((m) => m[1]!));
    const foreign = [...specifiers].filter((s) => !s.startsWith('node:') && s !== 'cloudflare:sockets');
    expect(foreign).toEqual([]);
  });

  it('npx -y --package <absolute path> mcp-catalogue works from any folder (a bare absolute path would be run as a command)', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'mcp-stdio-elsewhere-'));
    try {
      const transport = new StdioClientTransport({
        command: 'npx',
        args: ['-y', '--package', absoluteTarball, 'mcp-catalogue'],
        cwd: elsewhere,
        env: env({ MCP_CATALOG: cataloguePath, UPSTREAM_URL: upstream.url, API_KEY: TOKEN }),
        stderr: 'pipe',
      });
      const client = new Client({ name: 'stdio-e2e-abs', version: '1.0.0' });
      await client.connect(transport);
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo_get', 'echo_remove']);
      } finally {
        await client.close();
      }
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('UPSTREAM_TOKEN and MCP_UPSTREAM_URL are honoured too; MCP_TOOLSETS slices the list', async () => {
    const { client } = await connect('node', [BIN], { MCP_CATALOG: cataloguePath, MCP_UPSTREAM_URL: upstream.url, UPSTREAM_TOKEN: 'other_token', MCP_TOOLSETS: 'admin' });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['echo_remove']);
      const result = await client.callTool({ name: 'echo_remove', arguments: { id: 'z' } });
      expect(result.structuredContent ?? JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ method: 'DELETE', headers: { authorization: 'Bearer [redacted]' } });
      expect(((await (await fetch(`${upstream.url}/__last?path=/echo/z`)).json()) as { headers: Record<string, string> }).headers.authorization).toBe('Bearer other_token');
      // Outside the slice: refused by name, saying which toolsets this server serves.
      const outside = await client.callTool({ name: 'echo_get', arguments: { id: 'x' } });
      expect(outside.isError).toBe(true);
      expect((outside.content as Array<{ text: string }>)[0]!.text).toBe('echo_get is outside this endpoint, which serves the toolsets admin. Use one of the listed tools instead. It belongs to the toolset echo.');
      await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
    } finally {
      await client.close();
    }
  });

  it('the packed catalogue (every tool) passes the strict v1 client listTools', async () => {
    const embedded = await readCatalogueDir(join(repoRoot, 'catalog'));
    const { client } = await connect('npx', ['-y', tarball], { UPSTREAM_URL: upstream.url, MCP_TOOLSETS: 'all' });
    try {
      const t0 = Date.now();
      const { tools } = await client.listTools();
      timings.fullListToolsMs = Date.now() - t0;
      expect(tools.length).toBe(embedded.tools.length);
    } finally {
      await client.close();
    }
    // Without MCP_TOOLSETS the package serves the catalogue's default toolsets, like bare /mcp.
    const defaults = await connect('npx', ['-y', tarball], { UPSTREAM_URL: upstream.url });
    try {
      const expected = embedded.tools.filter((t) => t.toolsets.some((s) => embedded.defaultToolsets!.includes(s))).length;
      expect(expected).toBeLessThan(embedded.tools.length);
      expect((await defaults.client.listTools()).tools.length).toBe(expected);
    } finally {
      await defaults.client.close();
    }
  });

  it('UPSTREAM_AUTH_HEADER sends the token as-is in another header', async () => {
    const { client } = await connect('node', [BIN], { MCP_CATALOG: cataloguePath, UPSTREAM_URL: upstream.url, API_KEY: 'raw_key', UPSTREAM_AUTH_HEADER: 'X-Api-Key' });
    try {
      const result = await client.callTool({ name: 'echo_get', arguments: { id: 'h' } });
      const headers = (result.structuredContent as { headers: Record<string, string> }).headers;
      expect(headers['x-api-key']).toBe('raw_key');
      expect(headers.authorization).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('mcp-inspector-cli --cli lists and calls tools over stdio', async () => {
    const base = [
      '--cli', 'node', BIN,
      '-e', `MCP_CATALOG=${cataloguePath}`, '-e', `UPSTREAM_URL=${upstream.url}`, '-e', `API_KEY=${TOKEN}`,
      '--',
    ];
    const t0 = Date.now();
    const list = await run(join(binDir, 'mcp-inspector-cli'), [...base, '--method', 'tools/list'], { cwd: INSPECTOR_CWD, env: childEnv(), maxBuffer: 16 << 20 });
    timings.inspectorListMs = Date.now() - t0;
    const listed = JSON.parse(list.stdout) as { tools: Array<{ name: string }> };
    expect(listed.tools.map((t) => t.name)).toEqual(['echo_get', 'echo_remove']);
    const call = await run(join(binDir, 'mcp-inspector-cli'), [...base, '--method', 'tools/call', '--tool-name', 'echo_get', '--tool-arg', 'id=inspected', 'limit=3'], {
      cwd: INSPECTOR_CWD,
      env: childEnv(),
      maxBuffer: 16 << 20,
    });
    const result = JSON.parse(call.stdout) as { isError?: boolean; structuredContent: { url: string; headers: Record<string, string> } };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.url).toBe('/echo/inspected?limit=3');
    expect(result.structuredContent.headers.authorization).toBe('Bearer [redacted]');
    expect(((await (await fetch(`${upstream.url}/__last?path=/echo/inspected`)).json()) as { headers: Record<string, string> }).headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('switches take the same words as the Worker URL: MCP_READONLY=yes, on or TRUE serves read-only tools only', async () => {
    for (const value of ['yes', 'on', 'TRUE']) {
      // Other programs' MCP_* variables (Claude Code's MCP_TIMEOUT) are left alone.
      const { client } = await connect('node', [BIN], { MCP_CATALOG: cataloguePath, UPSTREAM_URL: upstream.url, MCP_READONLY: value, MCP_TIMEOUT: '30000' });
      try {
        expect((await client.listTools()).tools.map((t) => t.name), value).toEqual(['echo_get']);
      } finally {
        await client.close();
      }
    }
  });

  it('a switch with another value, a list naming nothing or a misspelt MCP_* variable exits with status 2 naming what is valid', async () => {
    const fail = (extra: Record<string, string>) => run('node', [BIN], { cwd: repoRoot, env: childEnv({ MCP_CATALOG: cataloguePath, ...extra }) }).catch((e: { code: number; stderr: string }) => e);
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ MCP_READONLY: 'maybe' }, /MCP_READONLY must be one of 1, 0, true, false, yes, no, on, off \(any case\); got "maybe"/],
      [{ COMPACT_RESULTS: 'of' }, /COMPACT_RESULTS must be one of/],
      [{ MCP_READONY: '1' }, /MCP_READONY is not a variable this server reads; did you mean MCP_READONLY\? Valid: MCP_UPSTREAM_URL, MCP_TOOLSETS, MCP_TOOLS, MCP_READONLY, MCP_CATALOG/],
      [{ mcp_readonly: 'yes' }, /mcp_readonly is not a variable this server reads; did you mean MCP_READONLY\?/],
      [{ MCP_READ_ONLY: 'yes' }, /did you mean MCP_READONLY\?/],
      [{ MCP_TOOLSET: 'echo' }, /MCP_TOOLSET is not a variable this server reads; did you mean MCP_TOOLSETS\?/],
      [{ MCP_TOOLS: ' , ' }, /MCP_TOOLS names nothing/],
    ];
    for (const [extra, message] of cases) {
      const err = (await fail(extra)) as { code: number; stderr: string };
      expect(err.code, JSON.stringify(extra)).toBe(2);
      expect(err.stderr, JSON.stringify(extra)).toMatch(message);
    }
  });

  it('configuration mistakes exit with status 2 and say what is valid', async () => {
    const err = await run('node', [BIN], { cwd: repoRoot, env: childEnv({ MCP_CATALOG: cataloguePath, MCP_TOOLSETS: 'nope' }) }).catch((e: { code: number; stderr: string }) => e);
    expect((err as { code: number }).code).toBe(2);
    expect((err as { stderr: string }).stderr).toMatch(/Unknown toolset: nope.*Valid: all, admin, echo/);
    const missing = await run('node', [BIN], { cwd: repoRoot, env: childEnv({ MCP_CATALOG: join(dir, 'missing.txt') }) }).catch((e: { code: number; stderr: string }) => e);
    expect((missing as { code: number }).code).toBe(2);
    expect((missing as { stderr: string }).stderr).toMatch(/cannot read the catalogue/);
    // An OAuth client for users' own accounts needs the Worker's consent page, which stdio has none of.
    const secured = join(dir, 'secured.txt');
    await writeFile(secured, (await buildCatalogue('test/support/secured-api.json', { sweep: false })).text);
    const perUser = await run('node', [BIN], { cwd: repoRoot, env: childEnv({ MCP_CATALOG: secured, UPSTREAM_CREDENTIALS: '{"userCode": "app:s3cr3t-value"}' }) }).catch((e: { code: number; stderr: string }) => e);
    expect((perUser as { code: number }).code).toBe(2);
    expect((perUser as { stderr: string }).stderr).toContain('scheme userCode acts as each user\'s own account, which users connect on the Worker\'s OAuth consent page; the stdio server has none, so give it "Bearer <access token>" for one account');
    expect((perUser as { stderr: string }).stderr).not.toContain('s3cr3t');
  });
});
