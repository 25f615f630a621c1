// The local mock's copy of a spec: documented framing headers (Content-Length, Transfer-Encoding, …) would make
// Prism send answers no HTTP client can parse, and `security` would make it answer 401; both go, the rest stays.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { mockableSpec, startPrism, type Running } from '../../scripts/lib/prism.ts';

const framed = (headers: Record<string, unknown>) => ({
  openapi: '3.0.3',
  info: { title: 'Framed', version: '1' },
  paths: {
    '/things': {
      get: {
        operationId: 'listThings',
        responses: {
          '200': {
            description: 'ok',
            headers,
            content: { 'application/json': { schema: { type: 'object', properties: { n: { type: 'integer' } } }, example: { n: 1 } } },
          },
        },
      },
    },
  },
});
const HEADERS = { 'Content-Length': { schema: { type: 'integer' } }, 'transfer-encoding': { schema: { type: 'string' } }, Connection: { schema: { type: 'string' } }, 'X-Rate': { schema: { type: 'integer' } } };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-mockable-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('mockableSpec', () => {
  it('drops documented framing headers from every response (JSON and YAML), keeping the API\'s own', async () => {
    for (const [file, text] of [['a.json', JSON.stringify(framed(HEADERS))], ['b.yaml', stringify(framed(HEADERS))]] as const) {
      await writeFile(join(dir, file), text);
      const out = await mockableSpec(join(dir, file), dir);
      expect(out).not.toBe(join(dir, file));
      const copy = JSON.parse(await readFile(out, 'utf8'));
      expect(Object.keys(copy.paths['/things'].get.responses['200'].headers)).toEqual(['X-Rate']);
    }
  });

  it('returns a spec that needs no change as it is', async () => {
    await writeFile(join(dir, 'plain.json'), JSON.stringify(framed({ 'X-Rate': { schema: { type: 'integer' } } })));
    expect(await mockableSpec(join(dir, 'plain.json'), dir)).toBe(join(dir, 'plain.json'));
  });

  it('Prism mocking the copy answers in a form fetch can read', async () => {
    await writeFile(join(dir, 'live.json'), JSON.stringify(framed(HEADERS)));
    let prism: Running | undefined;
    try {
      prism = await startPrism({ spec: await mockableSpec(join(dir, 'live.json'), dir), dynamic: false });
      const res = await fetch(`${prism.url}/things`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ n: 1 });
      expect(res.headers.get('x-rate')).not.toBeNull();
    } finally {
      await prism?.stop();
    }
  });
});
