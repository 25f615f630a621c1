// The offline upstream of `npm run serve` (scripts/lib/spec-mock.ts): when Prism does not start in time, the built-in
// mock answers from the spec's response schemas, so a spec that builds is always served.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSpecMock } from '../../scripts/lib/spec-mock.ts';
import { MINI } from './fixtures/mini-spec.ts';

describe('the offline upstream', () => {
  it('falls back to the built-in mock when Prism does not start, and says so', async () => {
    const lines: string[] = [];
    const mock = await startSpecMock(MINI, mkdtempSync(join(tmpdir(), 'spec-mock-')), (l) => lines.push(l), 1);
    try {
      expect(mock.prism).toBeUndefined();
      expect(mock.label).toMatch(/built-in mock/);
      expect(lines.join('\n')).toMatch(/^Prism did not start \(.*\); the built-in mock answers instead/m);
      const res = await fetch(`${mock.url}/counts`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/json/);
      // The spec's response schema for GET /counts is an integer.
      expect(await res.json()).toBeTypeOf('number');
    } finally {
      await mock.stop();
    }
  }, 60_000);
});
