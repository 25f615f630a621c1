// The sweep end to end on Petstore 3.0: Prism + drift proxy + wrangler dev + both strict clients.
import { describe, expect, it } from 'vitest';
import { runSweep } from '../../scripts/sweep/run.ts';

describe('npm run sweep (Petstore 3.0)', () => {
  it('lists with both clients, calls every tool, finds no protocol/transport failure and no failing schema', async () => {
    const report = await runSweep({ spec: 'node_modules/@readme/oas-examples/3.0/json/petstore.json', calls: 2 });
    expect(report.list.v1).toMatchObject({ ok: true, tools: 20 });
    expect(report.list.v2).toMatchObject({ ok: true, tools: 20 });
    expect(report.sampled).toBe(20);
    expect(report.calls).toBe(20 * 2 * 2);
    expect(report.totals.protocol_error).toBe(0);
    expect(report.totals.transport_failure).toBe(0);
    expect(report.failingSchemaTools).toEqual([]);
    expect(report.failed).toBe(false);
    expect(report.totals.ok).toBeGreaterThan(0);
    // The drift layer really changed the responses.
    expect(report.drift.matched).toBeGreaterThan(0);
    expect(report.drift.extrasAdded).toBeGreaterThan(0);
    expect(report.catalogue.keptRatio).toBeGreaterThanOrEqual(0.95);
  }, 300_000);
});
