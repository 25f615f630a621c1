// The local mock behind `npm start` / `npm run serve`: Prism in static mode behind scripts/lib/examples-first.ts.
// An operation with an example in the spec answers with it; one without gets Prism's generated data.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSpecDocument, startExamplesFirst, type ExamplesFirst } from '../../scripts/lib/examples-first.ts';
import { startPrism, type Running } from '../../scripts/lib/prism.ts';

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Examples', version: '1' },
  paths: {
    '/pets/{id}': {
      get: {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' }, example: { id: 'rex-1', name: 'Rex' } } } } },
      },
    },
    '/owners/{id}': {
      get: {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { $ref: '#/components/responses/Owner' } },
      },
    },
  },
  components: {
    schemas: {
      Pet: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } }, required: ['id', 'name'] },
      Owner: { type: 'object', properties: { name: { type: 'string', minLength: 12 } }, required: ['name'] },
    },
    responses: { Owner: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Owner' } } } } },
  },
};

let dir: string;
let prism: Running;
let front: ExamplesFirst;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-examples-mock-'));
  const spec = join(dir, 'spec.json');
  await writeFile(spec, JSON.stringify(SPEC));
  prism = await startPrism({ spec, dynamic: false });
  front = await startExamplesFirst(prism.url, (await readSpecDocument(spec))!);
}, 120_000);

afterAll(async () => {
  await front?.close();
  await prism?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the examples-first mock', () => {
  it("answers an operation that has an example with the spec's example", async () => {
    const res = await fetch(`${front.url}/pets/7`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 'rex-1', name: 'Rex' });
  });

  it("answers an operation without one with generated data, not static mode's placeholder", async () => {
    const names = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${front.url}/owners/${i}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { name: string };
      expect(body.name.length).toBeGreaterThanOrEqual(12);
      names.add(body.name);
    }
    expect(names.has('string')).toBe(false);
    // Static mode would answer the same placeholder every time; generated data varies.
    expect(names.size).toBeGreaterThan(1);
  });

  it('leaves a Prefer header the caller sent alone, and passes unknown paths through to Prism', async () => {
    const res = await fetch(`${front.url}/owners/1`, { headers: { prefer: 'code=404' } });
    expect(res.status).toBe(404);
    expect((await fetch(`${front.url}/nowhere`)).status).toBe(404);
  });
});
