// The official MCP conformance suite's input-required-result scenarios against a real `wrangler dev` serving the
// fixture catalogue built from test/support/input-required-api.json: three destructive tools named as the suite
// expects, each confirmed before it runs (docs/confirmation.md). The loopback upstream records every request, so
// the test also checks that no refused retry reached it.
//
// Scenarios that apply to this server (it asks only yes/no confirmations, by elicitation, and only on tools/call):
// result-type, request-state, tampered-state, missing-input-response, validate-input and unsupported-methods. Not
// applicable, and why (docs/confirmation.md, "Conformance"): basic-elicitation wants the answer under the key
// `user_name` with a name in it (a server that asks for data); ignore-extra-params accepts an answer sent without
// the requestState, which a confirmation refuses (it would confirm no particular call); basic-sampling,
// basic-list-roots, multiple-input-requests and capability-check want sampling or roots requests; multi-round wants a
// second question; non-tool-request wants prompts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../scripts/catalog/build.ts';
import { startUpstream } from '../support/upstream-server.ts';
import { startWorker, type WranglerDev } from '../support/wrangler-dev.ts';
import { authProxy, runConformance } from './helpers.ts';

export const INPUT_REQUIRED_SCENARIOS = [
  'input-required-result-result-type',
  'input-required-result-request-state',
  'input-required-result-tampered-state',
  'input-required-result-missing-input-response',
  'input-required-result-validate-input',
  'input-required-result-unsupported-methods',
];

let upstream: Awaited<ReturnType<typeof startUpstream>>;
let worker: WranglerDev;
let proxy: Awaited<ReturnType<typeof authProxy>>;

beforeAll(async () => {
  upstream = await startUpstream();
  const { catalogue } = await buildCatalogue('test/support/input-required-api.json', { sweep: false });
  worker = await startWorker({ upstream: upstream.url, catalogue });
  proxy = await authProxy(worker.url, `Bearer ${worker.apiKey}`);
}, 240_000);

afterAll(async () => {
  await proxy?.close();
  await worker?.stop();
  await upstream?.close();
});

const saw = async (fixture: string) => ((await (await fetch(`${upstream.url}/__requests?prefix=/echo/input-required/${fixture}`)).json()) as Array<{ method: string }>).map((r) => r.method);

describe('conformance: input-required-result scenarios', () => {
  it(`pass: ${INPUT_REQUIRED_SCENARIOS.join(', ')}`, async () => {
    const report: string[] = [];
    const failed: string[] = [];
    for (const scenario of INPUT_REQUIRED_SCENARIOS) {
      const run = await runConformance(`${proxy.url}/mcp`, scenario);
      for (const c of run.checks) report.push(`${scenario}: ${c.id} ${c.status}`);
      const bad = run.checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
      if (run.code !== 0 || !run.checks.length || bad.length) failed.push(`${scenario} (exit ${run.code}):\n${run.output.slice(-3000)}`);
    }
    console.log(report.join('\n'));
    expect(failed, failed.join('\n\n')).toEqual([]);
    // The tampered retry never reached the upstream; request-state's accepted retry did, once per run.
    expect(await saw('tampered-state')).toEqual([]);
    expect(await saw('request-state')).toEqual(['DELETE']);
  });
});
