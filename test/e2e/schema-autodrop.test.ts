// Schemas that heal themselves, end to end in `wrangler dev` (the SchemaMismatchCounter Durable Object and local KV):
// the v1 strict client sees a drifting tool's outputSchema disappear after the threshold (before it, each answer is a
// success carrying its data beside the schema with a note), and the tool then returns its data as plain JSON; /admin/schema-health and `npm run schema -- list` show the auto drop, `-- restore` undoes it.
import { spawn } from 'node:child_process';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binDir, childEnv, repoRoot } from '../../scripts/lib/proc.ts';
import { startWranglerDev, type RunningWorker } from '../../scripts/lib/wrangler.ts';
import type { Catalogue } from '../../src/catalogue/types.ts';
import { startUpstream } from '../support/upstream-server.ts';
import { fixtureCatalogue } from '../worker/fixtures/catalogue.ts';
import { connectV1, textOf } from './helpers.ts';

const KEY = 'mcp_test_autodrop0000000000000000000000000';
const ADMIN = 'admin-e2e-autodrop-0123456789';
const TOOL = 'pet_get';

function catalogue(): Catalogue {
  const c = fixtureCatalogue();
  c.tools.push({
    name: TOOL,
    title: 'Get a pet',
    description: 'Its upstream (/json/mismatch) answers {id: "not-a-number", name: 5}.',
    inputSchema: { type: 'object', properties: {} },
    outputSchema: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } },
    annotations: { title: 'Get a pet', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    toolsets: ['echo'],
    http: { method: 'GET', path: '/json/mismatch', params: [], accept: ['application/json'] },
  });
  return c;
}

function schemaCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(binDir, 'node'), [join(repoRoot, 'scripts', 'schema-drops.ts'), ...args], { cwd: repoRoot, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A success that carries a body its schema does not describe, beside the schema with the mismatch note. */
const mismatched = (r: unknown) => {
  const { isError, structuredContent } = r as { isError?: boolean; structuredContent?: { note?: string; as_returned?: unknown } };
  return !isError && structuredContent?.as_returned !== undefined && (structuredContent.note ?? '').includes('did not match the declared output schema');
};

describe('automatic schema drop in wrangler dev', () => {
  let state: string;
  let dir: string;
  let worker: RunningWorker | undefined;
  let upstream: { url: string; close: () => Promise<void> };

  beforeAll(async () => {
    [state, dir, upstream] = await Promise.all([mkdtemp(join(tmpdir(), 'autodrop-state-')), mkdtemp(join(tmpdir(), 'autodrop-cat-')), startUpstream()]);
    await writeFile(join(dir, 'catalog.txt'), await encodeCatalogue(catalogue()));
    worker = await startWranglerDev({
      catalogueDir: dir,
      persistTo: state,
      logLevel: 'log',
      vars: { UPSTREAM_URL: upstream.url, CREDENTIAL_MODE: 'key', API_KEY: KEY, ADMIN_TOKEN: ADMIN, SCHEMA_AUTODROP_THRESHOLD: '3', SCHEMA_DROPS_TTL_SECONDS: '1' },
    });
  });

  afterAll(async () => {
    await worker?.stop();
    await upstream?.close();
    await rm(state, { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
  });

  it('drops after the threshold, shows it, and restores it', async () => {
    // wrangler prints the Worker's console lines (the Durable Object's too) as they come; wait for this one.
    const dropLine = new Promise<string>((resolve, reject) => {
      worker!.child.onLine((l) => l.includes('"event":"schema_auto_drop"') && resolve(l));
      setTimeout(() => reject(new Error(`no schema_auto_drop line; wrangler said:\n${worker!.child.tail()}`)), 60_000).unref();
    });
    const client = await connectV1(worker!.endpoint, { Authorization: `Bearer ${KEY}` });
    try {
      const schemaOf = async () => (await client.listTools()).tools.find((t) => t.name === TOOL)?.outputSchema;
      expect(await schemaOf()).toBeDefined();
      for (let i = 1; i <= 3; i++) {
        const r = await client.callTool({ name: TOOL, arguments: {} });
        expect(mismatched(r)).toBe(true);
        expect(textOf(r)).toContain('did not match the declared output schema');
        if (i < 3) expect(await schemaOf()).toBeDefined(); // below the threshold nothing changes
      }
      expect(await schemaOf()).toBeUndefined();
      const after = await client.callTool({ name: TOOL, arguments: {} });
      expect(after.isError).toBeFalsy();
      expect(after.structuredContent).toBeUndefined();
      expect(JSON.parse(textOf(after)!)).toEqual({ id: 'not-a-number', name: 5 });

      // Past the drop list's TTL the isolate reads KV again: the drop is stored, not only applied where it was made.
      await sleep(1200);
      expect(await schemaOf()).toBeUndefined();

      const line = await dropLine;
      expect(JSON.parse(line.slice(line.indexOf('{')))).toMatchObject({ tool: TOOL, path: '/id', counter: 'durable_object', stored: 'written' });

      const health = (await (await fetch(`${worker!.url}/admin/schema-health`, { headers: { authorization: `Bearer ${ADMIN}` } })).json()) as any;
      expect(health.autoDrop).toMatchObject({ enabled: true, threshold: 3, counter: 'durable_object' });
      expect(health.autoDrop.tools).toEqual([expect.objectContaining({ name: TOOL, mismatchPath: '/id' })]);

      const list = await schemaCli(['list', '--local', '--persist-to', state]);
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toMatch(new RegExp(`^${TOOL}\\t\\S+\\tauto\\t/id\\t3 responses failed the outputSchema`, 'm'));

      const restore = await schemaCli(['restore', TOOL, '--local', '--persist-to', state]);
      expect(restore.code, restore.stderr).toBe(0);
      expect(restore.stdout).toContain(`restored outputSchema of ${TOOL}`);
      expect(restore.stdout).toContain('It was dropped automatically');
      await sleep(1200); // SCHEMA_DROPS_TTL_SECONDS
      expect(await schemaOf()).toBeDefined();
    } finally {
      await client.close();
    }
  });
});
