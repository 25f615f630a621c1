// The drift check end to end: a real spec server on loopback whose document changes under a running `wrangler dev`,
// the cron handler triggered through wrangler's GET /__scheduled, and /healthz read back. First through
// `npm run serve -- --spec <url>` itself (the operator's path), then a worker with tight limits for every way the
// spec can fail to arrive (down, reset, malformed, too large, too slow), with conditional requests and /admin.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { buildCatalogue } from '../../scripts/catalog/build.ts';
import { writeCatalogueDir } from '../../scripts/catalog/catalogue-files.ts';
import { withSpecOperations } from '../../scripts/catalog/spec-operations-asset.ts';
import { freePort } from '../../scripts/lib/proc.ts';
import { startWorker, type WranglerDev } from '../support/wrangler-dev.ts';
import { connectV2, npmUntilBanner, type BannerChild } from './helpers.ts';

type Mode = 'ok' | 'down' | 'reset' | 'malformed' | 'huge' | 'huge-chunked' | 'hang';

/** A spec server: /openapi.json and /openapi.yaml serve `doc`, as `mode` says; ETag support can be switched on. */
async function specServer() {
  const state = { doc: JSON.parse(readFileSync('node_modules/@readme/oas-examples/3.0/json/petstore.json', 'utf8')) as any, mode: 'ok' as Mode, etags: false, requests: [] as IncomingHttpHeaders[] };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/openapi.json' && path !== '/openapi.yaml') {
      res.writeHead(404).end();
      return;
    }
    state.requests.push(req.headers);
    const text = path.endsWith('.yaml') ? YAML.stringify(state.doc) : JSON.stringify(state.doc, null, 2);
    const type = path.endsWith('.yaml') ? 'application/yaml' : 'application/json';
    const etag = `"${createHash('sha256').update(text).digest('hex').slice(0, 16)}"`;
    switch (state.mode) {
      case 'down':
        res.writeHead(503, { 'content-type': 'text/plain' }).end('maintenance');
        return;
      case 'reset':
        req.socket.destroy();
        return;
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(state.doc).slice(0, 200));
        return;
      case 'huge':
      case 'huge-chunked': {
        const big = JSON.stringify({ ...state.doc, info: { ...state.doc.info, description: 'x'.repeat(300_000) } });
        res.writeHead(200, { 'content-type': type, ...(state.mode === 'huge' ? { 'content-length': Buffer.byteLength(big) } : {}) });
        res.end(big);
        return;
      }
      case 'hang':
        res.on('close', () => {});
        return; // never answers; the worker's deadline ends it
      case 'ok':
        if (state.etags && req.headers['if-none-match'] === etag) {
          res.writeHead(304, { etag }).end();
          return;
        }
        res.writeHead(200, { 'content-type': type, ...(state.etags ? { etag } : {}) }).end(text);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { state, url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** One added operation, one removed. */
function moveOperations(doc: any): void {
  doc.paths['/owners'] = { get: { operationId: 'listOwners', summary: 'List owners', responses: { 200: { description: 'ok' } } } };
  delete doc.paths['/store/inventory'];
}

const drift = async (base: string) => ((await (await fetch(`${base}/healthz`)).json()) as { status: string; specDrift: Record<string, unknown> });
const scheduled = async (base: string) => {
  const res = await fetch(`${base}/__scheduled`);
  expect(res.status).toBe(200);
  await res.text();
};

describe('npm run serve -- --spec <url>', () => {
  let spec: Awaited<ReturnType<typeof specServer>>;
  let served: BannerChild | undefined;
  let base: string;

  beforeAll(async () => {
    spec = await specServer();
    const port = await freePort();
    served = await npmUntilBanner(['run', 'serve', '--', '--spec', `${spec.url}/openapi.json`, '--upstream', spec.url, '--port', String(port)], { PORT: undefined });
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await served?.child.stop();
    await spec?.close();
  });

  it('shows the live spec as current after start (serve runs a first check)', async () => {
    const { status, specDrift } = await drift(base);
    expect(status).toBe('ok');
    expect(specDrift).toEqual({ enabled: true, stale: false, checkedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), source: `${spec.url}/openapi.json`, added: 0, removed: 0, changed: 0 });
  });

  it('reports stale with one operation added and one removed after the served spec changes and /__scheduled runs', async () => {
    const before = (await drift(base)).specDrift;
    moveOperations(spec.state.doc);
    await scheduled(base);
    const after = (await drift(base)).specDrift;
    expect(after).toMatchObject({ enabled: true, stale: true, source: `${spec.url}/openapi.json`, added: 1, removed: 1, changed: 0 });
    expect(after.error).toBeUndefined();
    expect(String(after.checkedAt) > String(before.checkedAt)).toBe(true);
    // A schema two operations return (placeOrder, getOrderById) changes: both count as changed.
    spec.state.doc.components.schemas.Order.properties.note = { type: 'string' };
    await scheduled(base);
    expect((await drift(base)).specDrift).toMatchObject({ stale: true, added: 1, removed: 1, changed: 2 });
  });

  it('keeps serving the catalogue it has', async () => {
    const client = await connectV2(`${base}/mcp`, { Authorization: 'Bearer anything' });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('get_inventory');
    } finally {
      await client.close();
    }
  });
});

describe('a drift check that cannot read the spec, and conditional requests', () => {
  let spec: Awaited<ReturnType<typeof specServer>>;
  let worker: WranglerDev | undefined;
  let dir: string;
  const ADMIN = 'drift-admin-0123456789abcdef';

  beforeAll(async () => {
    spec = await specServer();
    dir = await mkdtemp(join(tmpdir(), 'mcp-drift-e2e-'));
    const built = await buildCatalogue(`${spec.url}/openapi.json`, { sweep: false });
    await writeCatalogueDir(dir, { text: built.text, shards: withSpecOperations(built.shards, built.specOperations) });
    // Built from the JSON, watched as YAML (the same document, so the same digest); the query is sent, never shown.
    worker = await startWorker({
      upstream: spec.url,
      catalogueDir: dir,
      // The usage tables exist, as under npm start, so the usage cleanup on the same cron run succeeds too.
      usage: true,
      vars: { SPEC_URL: `${spec.url}/openapi.yaml?sig=s3cret`, SPEC_MAX_BYTES: '200000', SPEC_CHECK_TIMEOUT_MS: '1500', ADMIN_TOKEN: ADMIN },
    });
  });
  afterAll(async () => {
    await worker?.stop();
    await spec?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('has not checked yet', async () => {
    expect((await drift(worker!.url)).specDrift).toEqual({ enabled: true, stale: false, checkedAt: null, source: `${spec.url}/openapi.yaml`, added: 0, removed: 0, changed: 0 });
  });

  const failures: Array<[Mode, RegExp]> = [
    ['down', /^the spec answered HTTP 503/],
    ['reset', /^cannot fetch the spec/],
    ['malformed', /^not valid JSON/],
    ['huge', /^the spec is larger than SPEC_MAX_BYTES \(200000 bytes\)/],
    ['huge-chunked', /^the spec is larger than SPEC_MAX_BYTES \(200000 bytes\)/],
    ['hang', /^no complete answer within 1500 ms/],
  ];
  for (const [mode, error] of failures) {
    it(`reports a spec that is ${mode}, never marks the catalogue stale and keeps answering`, async () => {
      spec.state.mode = mode;
      await scheduled(worker!.url);
      const { status, specDrift } = await drift(worker!.url);
      expect(status).toBe('ok');
      expect(specDrift).toMatchObject({ stale: false, added: 0, removed: 0, changed: 0, error: expect.stringMatching(error) });
      expect(JSON.stringify(specDrift)).not.toContain('s3cret');
    });
  }

  it('reads a YAML spec: the same document is current, and a moved one is stale', async () => {
    spec.state.mode = 'ok';
    await scheduled(worker!.url);
    expect((await drift(worker!.url)).specDrift).toEqual({ enabled: true, stale: false, checkedAt: expect.any(String), source: `${spec.url}/openapi.yaml`, added: 0, removed: 0, changed: 0 });
    moveOperations(spec.state.doc);
    await scheduled(worker!.url);
    expect((await drift(worker!.url)).specDrift).toMatchObject({ stale: true, added: 1, removed: 1, changed: 0 });
  });

  it('asks conditionally and keeps the comparison on HTTP 304; a later failure keeps stale: true', async () => {
    spec.state.etags = true;
    await scheduled(worker!.url); // 200 with an ETag
    const first = (await drift(worker!.url)).specDrift;
    spec.state.requests.length = 0;
    await scheduled(worker!.url); // 304
    expect(spec.state.requests).toHaveLength(1);
    expect(spec.state.requests[0]!['if-none-match']).toMatch(/^"[0-9a-f]{16}"$/);
    const second = (await drift(worker!.url)).specDrift;
    expect(second).toMatchObject({ stale: true, added: 1, removed: 1, changed: 0 });
    expect(second.error).toBeUndefined();
    expect(String(second.checkedAt) > String(first.checkedAt)).toBe(true);
    spec.state.mode = 'down';
    await scheduled(worker!.url);
    expect((await drift(worker!.url)).specDrift).toMatchObject({ stale: true, added: 1, removed: 1, error: expect.stringMatching(/HTTP 503/) });
  });

  it('names the operations and digests in /admin/schema-health, and MCP still works', async () => {
    const res = await fetch(`${worker!.url}/admin/schema-health`, { headers: { authorization: `Bearer ${ADMIN}` } });
    const body = (await res.json()) as { specDrift: Record<string, any> };
    expect(body.specDrift).toMatchObject({ stale: true, added: 1, removed: 1, baseline: 'asset', operations: { added: ['GET /owners'], removed: ['GET /store/inventory'], changed: [] } });
    expect(body.specDrift.catalogueDigest).toMatch(/^[0-9a-f]{16}$/);
    expect(body.specDrift.digest).not.toBe(body.specDrift.catalogueDigest);
    const client = await connectV2(worker!.endpoint, worker!.auth);
    try {
      expect((await client.listTools()).tools.length).toBe(20);
    } finally {
      await client.close();
    }
  });
});
