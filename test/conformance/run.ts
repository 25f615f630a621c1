// The official MCP conformance suite (@modelcontextprotocol/conformance) against the worker, offline, as .ci/run runs
// it (`npm run conformance`): the server scenarios of the 2026-07-28 and 2025-11-25 requirement sets, each at its own
// wire, judged against test/conformance/expected-failures.yml, and the authorization-server scenarios.
//
// The worker runs under `wrangler dev` as `npm start` runs it (key mode, OAuth on, the Workers-sized heap) with a
// fixture catalogue built from fixture-api.json: the tools the suite calls by name (test_simple_text, …), each an
// operation of the loopback upstream (test/support/upstream-server.ts) whose answer is the content the suite expects.
// The suite's client sends no credentials, so a loopback proxy adds the bearer (test/e2e/helpers.ts, authProxy).
// Reports go to test-results/conformance/. Exit 1 on any unexpected failure, or on a baselined one that now passes.
import { spawn } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { buildCatalogue } from '../../scripts/catalog/build.ts';
import { binDir, childEnv, freePort, repoRoot } from '../../scripts/lib/proc.ts';
import { WORKERS_HEAP_V8_FLAGS } from '../../scripts/lib/wrangler.ts';
import { authProxy } from '../e2e/helpers.ts';
import { ConsentSession } from '../support/oauth-consent.ts';
import { startUpstream } from '../support/upstream-server.ts';
import { startWorker, type WranglerDev } from '../support/wrangler-dev.ts';

const FIXTURE_SPEC = new URL('./fixture-api.json', import.meta.url).pathname;
const EXPECTED_FAILURES = new URL('./expected-failures.yml', import.meta.url).pathname;
const OUT = join(repoRoot, 'test-results', 'conformance');
const REVISIONS = ['2026-07-28', '2025-11-25'];

interface Cli {
  code: number;
  output: string;
}

/** Runs the conformance CLI, printing its output as it comes; `onLine` sees each line (the OAuth flow reads one). */
function conformance(args: string[], onLine?: (line: string) => void): Promise<Cli> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(binDir, 'conformance'), args, { cwd: repoRoot, env: childEnv({ FORCE_COLOR: '0' }), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let partial = '';
    const take = (chunk: Buffer) => {
      const text = chunk.toString();
      process.stdout.write(text);
      output += text;
      partial += text;
      const lines = partial.split('\n');
      partial = lines.pop()!;
      for (const line of lines) onLine?.(line);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/**
 * Both authorization-server scenarios in one run (the code grant reads the metadata the first one fetched): a client
 * registered for the suite's callback, and the consent page answered with the key, as a person would.
 */
async function authorizationServer(worker: WranglerDev): Promise<Cli> {
  const port = await freePort();
  const registered = await fetch(`${worker.url}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'MCP conformance suite', redirect_uris: [`http://127.0.0.1:${port}/callback`], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }),
  });
  if (registered.status !== 201) throw new Error(`client registration answered ${registered.status}: ${await registered.text()}`);
  const { client_id } = (await registered.json()) as { client_id: string };
  let consent: Promise<void> | undefined;
  const cli = await conformance(['authorization', '--url', worker.url, '--client-id', client_id, '--port', String(port), '--resource', worker.endpoint, '-o', join(OUT, 'authorization')], (line) => {
    // The suite prints the authorization URL for a person to open.
    if (consent || !line.startsWith(`${worker.url}/authorize?`)) return;
    consent = (async () => {
      const session = await new ConsentSession(fetch, line.trim()).open();
      const approved = await session.consent(worker.apiKey);
      const location = approved.headers.get('location');
      if (approved.status !== 302 || !location) throw new Error(`consent answered ${approved.status}`);
      await (await fetch(location)).text();
    })();
    consent.catch((e: Error) => console.error(`conformance: the consent flow failed: ${e.message}`));
  });
  await consent?.catch(() => undefined);
  return cli;
}

async function main(): Promise<number> {
  await rm(OUT, { recursive: true, force: true });
  await mkdir(OUT, { recursive: true });
  const built = await buildCatalogue(FIXTURE_SPEC);
  const upstream = await startUpstream();
  let worker: WranglerDev | undefined;
  let proxy: Awaited<ReturnType<typeof authProxy>> | undefined;
  const verdicts: string[] = [];
  try {
    worker = await startWorker({ upstream: upstream.url, catalogue: built.text, env: { MINIFLARE_WORKERD_V8_FLAGS: WORKERS_HEAP_V8_FLAGS.join(' ') } });
    proxy = await authProxy(worker.url, `Bearer ${worker.apiKey}`);
    console.log(`conformance: ${built.catalogue.tools.length} fixture tools on ${worker.endpoint} (wrangler dev in ${worker.startMs} ms), bearer added by ${proxy.url}`);
    for (const revision of REVISIONS) {
      console.log(`\n== server scenarios required by ${revision}`);
      const run = await conformance(['server', '--url', `${proxy.url}/mcp`, '--requirements', revision, '--expected-failures', EXPECTED_FAILURES, '-o', join(OUT, `server-${revision}`)]);
      verdicts.push(`server ${revision}: ${run.code === 0 ? 'as expected' : `FAILED (exit ${run.code})`}`);
    }
    console.log('\n== authorization server scenarios');
    verdicts.push(`authorization server: ${authorizationVerdict(await authorizationServer(worker))}`);
  } finally {
    await proxy?.close();
    await worker?.stop();
    await upstream.close();
  }
  console.log(`\nconformance:\n${verdicts.map((v) => `  ${v}`).join('\n')}`);
  return verdicts.every((v) => !v.includes('FAILED')) ? 0 : 1;
}

/** The authorization command takes no baseline: every check must pass (a WARNING is reported, not failed). */
function authorizationVerdict(run: Cli): string {
  const failures = run.output.split('\n').filter((l) => /\]\s+FAILURE\b/.test(l));
  return run.code === 0 && failures.length === 0 ? 'passed' : `FAILED (exit ${run.code}${failures.length ? `; ${failures.join('; ')}` : ''})`;
}

process.exitCode = await main();
