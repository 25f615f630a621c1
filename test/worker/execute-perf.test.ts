// Truncation cost on a body near the 10 MiB limit.
import { expect, inject, it } from 'vitest';
import type { CatalogueTool } from '../../src/catalogue/types.ts';
import { executeTool } from '../../src/upstream/execute.ts';

it('a ~9 MB JSON list is shortened to the default budget quickly', async () => {
  const t: CatalogueTool = {
    name: 'big_list',
    title: 'big',
    description: 'big',
    inputSchema: { type: 'object', properties: { n: { type: 'integer' }, page: { type: 'integer' } } },
    outputSchema: { type: 'object', properties: { items: { type: 'array', items: { type: 'object' } } } },
    annotations: { title: 'big', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    toolsets: ['test'],
    http: { method: 'GET', path: '/json/big', params: [{ arg: 'n', name: 'n', in: 'query', style: 'form', explode: true, required: true }], accept: ['application/json'] },
  };
  const lines: Array<Record<string, unknown>> = [];
  const r = await executeTool(t, { n: 75_000 }, { upstreamUrl: inject('upstreamUrl'), log: (l) => lines.push(l) });
  expect(r.isError).toBeUndefined();
  const s = r.structuredContent as { items: unknown[]; truncated: string };
  expect(s.truncated).toMatch(/kept \d+ of 75000 items/);
  const b = r.content[0];
  expect(b?.type === 'text' && b.text.length <= 100_000).toBe(true);
  console.log('latency', lines[0]?.latencyMs, 'bodyBytes', lines[0]?.bodyBytes, 'kept', s.items.length);
  expect(lines[0]?.latencyMs as number).toBeLessThan(5000);
});
