// The embedded GitHub catalogue in a real `wrangler dev`, with a Prism mock of the GitHub spec upstream,
// driven by the strict v1 client and the v2 client pinned to 2026-07-28.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GITHUB_SPEC, startPrism, type Running } from '../../scripts/lib/prism.ts';
import type { Catalogue } from '../../src/catalogue/types.ts';
import { startWorker, type WranglerDev } from '../support/wrangler-dev.ts';
import { connectV1, connectV2, embeddedCatalogue, textOf } from './helpers.ts';

let prism: Running | undefined;
let worker: WranglerDev | undefined;
let catalogue: Catalogue;
const READ_TOOL = 'repos_get';

beforeAll(async () => {
  catalogue = await embeddedCatalogue();
  prism = await startPrism({ spec: GITHUB_SPEC });
  worker = await startWorker({ upstream: prism.url });
  console.log(`prism ready in ${prism.startMs} ms, wrangler dev in ${worker.startMs} ms`);
});

afterAll(async () => {
  await worker?.stop();
  await prism?.stop();
});

describe('embedded GitHub catalogue over wrangler dev', () => {
  it('has the read-only tool this test calls', () => {
    const tool = catalogue.tools.find((t) => t.name === READ_TOOL);
    expect(tool?.annotations.readOnlyHint).toBe(true);
    expect(tool?.outputSchema).toBeDefined();
    expect(catalogue.tools.length).toBeGreaterThan(1000);
  });

  it('v1 client (Ajv-validating) lists every tool in one call and calls repos_get against the mock', async () => {
    const client = await connectV1(`${worker!.endpoint}/x/all`, worker!.auth);
    try {
      const listed = await client.listTools();
      expect(listed.nextCursor).toBeUndefined();
      expect(listed.tools.length).toBe(catalogue.tools.length);
      expect(new Set(listed.tools.map((t) => t.name))).toEqual(new Set(catalogue.tools.map((t) => t.name)));
      // Prism answers with random data drawn from the schema; several calls give the validation several chances to fail.
      for (let i = 0; i < 3; i++) {
        const result = await client.callTool({ name: READ_TOOL, arguments: { owner: 'octocat', repo: `hello-world-${i}` } });
        expect(result.isError, textOf(result)).toBeFalsy();
        expect(result.structuredContent).toBeTypeOf('object');
        expect(JSON.parse(textOf(result) ?? 'null')).toEqual(result.structuredContent);
      }
    } finally {
      await client.close();
    }
  });

  it('v2 client pinned to 2026-07-28 lists every tool in one call and calls repos_get', async () => {
    const client = await connectV2(`${worker!.endpoint}/x/all`, worker!.auth);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const listed = await client.listTools();
      expect(listed.nextCursor).toBeUndefined();
      expect(listed.tools.length).toBe(catalogue.tools.length);
      const result = await client.callTool({ name: READ_TOOL, arguments: { owner: 'octocat', repo: 'hello-world' } });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(result.structuredContent).toBeTypeOf('object');
      expect(JSON.parse(textOf(result) ?? 'null')).toEqual(result.structuredContent);
    } finally {
      await client.close();
    }
  });

  it('answers 401 without the key, and with a wrong key', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
    const none = await fetch(worker!.endpoint, { method: 'POST', headers, body });
    expect(none.status).toBe(401);
    const wrong = await fetch(worker!.endpoint, { method: 'POST', headers: { ...headers, authorization: 'Bearer mcp_test_wrongwrongwrongwrongwrongwrongwron' }, body });
    expect(wrong.status).toBe(401);
  });

  it('reports version and catalogue hash on /healthz', async () => {
    const res = await fetch(`${worker!.url}/healthz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { version?: string; catalogue?: { hash?: string; tools?: number } };
    expect(body.version).toMatch(/\d+\.\d+\.\d+/);
    expect(body.catalogue?.hash).toBe(catalogue.hash);
    expect(body.catalogue?.tools).toBe(catalogue.tools.length);
  });
});
