// `npm run serve -- --spec <file>` on a spec the product has never embedded: banner, tools/list, a tool call
// against the Prism mock (whose security requirements are stripped), code mode over the spec, and a clean stop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { serveState, startState } from '../../scripts/lib/local-state.ts';
import { freePort, repoRoot } from '../../scripts/lib/proc.ts';
import { LOCAL_KEY } from '../../scripts/lib/serve.ts';
import type { UsageReport } from '../../src/usage/query.ts';
import { connectV1, keysCli, npmUntilBanner, textOf, type BannerChild } from './helpers.ts';

const SPEC = 'node_modules/@readme/oas-examples/3.0/json/petstore.json';
let served: BannerChild | undefined;
let port: number;

beforeAll(async () => {
  port = await freePort();
  served = await npmUntilBanner(['run', 'serve', '--', '--spec', SPEC, '--port', String(port)], { PORT: undefined, MCP_PERSIST_TO: '' });
});

afterAll(async () => {
  await served?.child.stop();
  await rm(serveState(join(repoRoot, SPEC), {}), { recursive: true, force: true });
});

describe('npm run serve', () => {
  it('prints endpoint: and key: lines and the snippet', () => {
    expect(served!.endpoint).toBe(`http://127.0.0.1:${port}/mcp`);
    expect(served!.key).toBe(LOCAL_KEY);
    expect(served!.snippet).toMatchObject({ mcpServers: { swagger_petstore: { url: served!.endpoint } } });
  });

  it('answers tools/list with the spec’s operations and calls one against the mock', async () => {
    const client = await connectV1(served!.endpoint, { Authorization: `Bearer ${served!.key}` });
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names.length).toBe(20);
      expect(names).toContain('get_pet_by_id');
      // get_pet_by_id requires an api_key in the spec; the mock ignores security so the call reaches it.
      const result = await client.callTool({ name: 'get_pet_by_id', arguments: { petId: 1 } });
      expect(result.isError, textOf(result)).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('keeps its own local state: its calls are in `keys usage --spec <spec>`, never in npm start\'s report', async () => {
    expect(served!.stdout()).toContain(`local state: ${relative(repoRoot, serveState(join(repoRoot, SPEC), {}))} (keys and usage: npm run keys -- list --spec ${SPEC}, npm run keys -- usage --spec ${SPEC})`);
    expect(serveState(join(repoRoot, SPEC), {})).not.toBe(startState({}));
    const client = await connectV1(served!.endpoint, { Authorization: `Bearer ${served!.key}` });
    try {
      expect((await client.callTool({ name: 'get_pet_by_id', arguments: { petId: 2 } })).isError).toBeFalsy();
    } finally {
      await client.close();
    }
    // The isolate writes its batch USAGE_FLUSH_MS (5 s) after the call.
    let tools: string[] = [];
    for (let i = 0; i < 12 && !tools.includes('get_pet_by_id'); i++) {
      const out = await keysCli(['usage', '--spec', SPEC, '--json'], { MCP_PERSIST_TO: '', INIT_CWD: repoRoot });
      expect(out.code, out.stderr).toBe(0);
      tools = (JSON.parse(out.stdout) as UsageReport).rows.map((r) => r.tool ?? '');
      if (!tools.includes('get_pet_by_id')) await new Promise((r) => setTimeout(r, 2000));
    }
    expect(tools).toContain('get_pet_by_id');
    // npm start's state (the CLI's default): either never created on this machine, or without this spec's tools.
    const start = await keysCli(['usage', '--json'], { MCP_PERSIST_TO: '', INIT_CWD: repoRoot });
    if (start.code === 0) expect((JSON.parse(start.stdout) as UsageReport).rows.map((r) => r.tool)).not.toContain('get_pet_by_id');
    else expect(start.stderr).toMatch(/the usage tables do not exist there yet/);
  });

  it('serves code mode for the spec: its own declarations, and a program calling its operations', async () => {
    const client = await connectV1(served!.endpoint.replace(/\/mcp$/, '/mcp/code'), { Authorization: `Bearer ${served!.key}` });
    try {
      const found = textOf(await client.callTool({ name: 'search', arguments: { query: 'pet inventories by status' } }));
      // A typed map keeps no value schema in the outputSchema (values drift), so its declaration is an open record.
      expect(found).toMatch(/^type GetInventoryResult = Record<string, unknown>;$/m);
      expect(found).toMatch(/^ {2}function get_inventory\(args\?: GetInventoryArgs\): Promise<GetInventoryResult>;$/m);
      const code = 'const inventory = await api.get_inventory();\nreturn Object.values(inventory).every((n) => typeof n === "number");';
      const result = await client.callTool({ name: 'execute', arguments: { code } });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(textOf(result)).toBe('true');
    } finally {
      await client.close();
    }
  });

  it('rejects a bad invocation with usage and exit code 2', async () => {
    const { spawnSync } = await import('node:child_process');
    const { childEnv, repoRoot } = await import('../../scripts/lib/proc.ts');
    const r = spawnSync('npm', ['run', '--silent', 'serve', '--', '--port', '1'], { cwd: repoRoot, env: childEnv(), encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--spec is required/);
    expect(r.stderr).toMatch(/usage: npm run serve/);
    // Port 1 is free to bind but fetch() refuses it ("bad port"): refused up front, with the reason.
    const bad = spawnSync('npm', ['run', '--silent', 'serve', '--', '--spec', 'x.json', '--port', '1'], { cwd: repoRoot, env: childEnv(), encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--port 1 is one of the ports fetch\(\) refuses to connect to .*choose another, such as 8787/);
    const start = spawnSync('npm', ['start', '--silent'], { cwd: repoRoot, env: childEnv({ PORT: 'eighty' }), encoding: 'utf8' });
    expect(start.status).toBe(2);
    expect(start.stderr).toMatch(/PORT must be a TCP port number from 1 to 65535, not "eighty"/);
  });
});
