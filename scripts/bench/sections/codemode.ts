// Wall time of a code-mode execute making 1 and 5 api calls, against the same calls made as plain tools/call
// requests (one after another, as a client without code mode must): what the sandbox costs per execute. With
// --baseline <ref>, the same tools/call and 5-call execute against that commit's worker too, in the same interleaved
// rounds: what a change (the host-side budgets of issue 36, say) costs an ordinary request.
import type { BenchContext } from '../context.ts';
import type { Req } from '../http.ts';
import { TOOL } from '../plan.ts';
import type { Server } from '../servers.ts';
import { fmtMs, fmtRatio, ratio, summarize } from '../stats.ts';
import { captureToolCall, expectOk, type Era } from '../wire.ts';

const call = `api.${TOOL.ours}(${JSON.stringify(TOOL.args)})`;
const PROGRAMS = {
  1: `return (await ${call}).login;`,
  5: `const logins = [];\nfor (let i = 0; i < 5; i++) logins.push((await ${call}).login);\nreturn logins;`,
};

/** Another commit's bench worker, served beside this tree's (scripts/bench/baseline.ts). */
export interface Baseline {
  server: Server;
  /** What the rows call it: the ref and its commit. */
  label: string;
}

export async function benchCodeMode(ctx: BenchContext, worker: Server, era: Era, baseline?: Baseline): Promise<void> {
  const { plan, results, http } = ctx;
  const requests = async (url: string) => {
    const execute5 = await captureToolCall(url, era, 'execute', { code: PROGRAMS[5] }, { path: '/mcp/code', structured: false });
    const r = await http.send(url, execute5);
    expectOk('execute (5 calls)', r.status, r.body, '\\"octocat\\",\\"octocat\\",\\"octocat\\",\\"octocat\\",\\"octocat\\"');
    return { plain: await captureToolCall(url, era, TOOL.ours, TOOL.args), execute1: await captureToolCall(url, era, 'execute', { code: PROGRAMS[1] }, { path: '/mcp/code', structured: false }), execute5 };
  };
  const ours = await requests(worker.url);
  const plain = ours.plain;
  const execute = { 1: ours.execute1, 5: ours.execute5 };
  const base = baseline ? await requests(baseline.server.url) : undefined;
  /** One sample: `n` requests one after another, request start of the first to last body byte of the last. */
  const timed = async (req: Req, n: number, url = worker.url): Promise<number> => {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const res = await http.send(url, req);
      if (res.status !== 200 || res.body.includes('"isError":true')) throw new Error(`HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
    }
    return performance.now() - t0;
  };
  const targets: Record<string, () => Promise<number>> = {
    'tools/call ×1': () => timed(plain, 1),
    'execute, 1 api call': () => timed(execute[1], 1),
    'tools/call ×5': () => timed(plain, 5),
    'execute, 5 api calls': () => timed(execute[5], 1),
    ...(base && baseline
      ? { 'baseline tools/call ×1': () => timed(base.plain, 1, baseline.server.url), 'baseline execute, 5 api calls': () => timed(base.execute5, 1, baseline.server.url) }
      : {}),
  };
  const names = Object.keys(targets);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  const { codeIters, codeWarm } = plan.n;
  ctx.log(`codemode: ${codeIters} interleaved rounds of ${names.join(', ')}`);
  for (let i = 0; i < codeWarm + codeIters; i++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(i + j) % names.length]!;
      const ms = await targets[name]!();
      if (i >= codeWarm) samples[name]!.push(ms);
    }
  }
  const s = Object.fromEntries(names.map((n) => [n, summarize(samples[n]!)]));
  results.raw.codemode = s;
  const reproduce = plan.reproduce('codemode');
  for (const [calls, plainName, execName] of [[1, 'tools/call ×1', 'execute, 1 api call'], [5, 'tools/call ×5', 'execute, 5 api calls']] as const) {
    const p = s[plainName]!;
    const e = s[execName]!;
    results.row({ section: 'codemode', measure: `${calls} × ${TOOL.ours} as plain tools/call (${calls === 1 ? 'one request' : 'five requests in a row'})`, result: `p50 ${fmtMs(p.p50)} · p99 ${fmtMs(p.p99)}`, reproduce });
    results.row({
      section: 'codemode',
      measure: `the same in one execute (${calls} api call${calls === 1 ? '' : 's'})`,
      result: `p50 ${fmtMs(e.p50)} · p99 ${fmtMs(e.p99)} · ratio p50 ${fmtRatio(ratio(e.p50, p.p50))}`,
      reproduce,
    });
  }
  if (baseline) {
    for (const [measure, mine, theirs] of [
      [`1 × ${TOOL.ours} as plain tools/call`, 'tools/call ×1', 'baseline tools/call ×1'],
      ['execute, 5 api calls', 'execute, 5 api calls', 'baseline execute, 5 api calls'],
    ] as const) {
      const a = s[mine]!;
      const b = s[theirs]!;
      results.row({ section: 'codemode', measure: `${measure}: this tree against ${baseline.label}`, result: `p50 ${fmtMs(a.p50)} against ${fmtMs(b.p50)} · ratio p50 ${fmtRatio(ratio(a.p50, b.p50))} · p99 ${fmtMs(a.p99)} against ${fmtMs(b.p99)}`, reproduce: `${reproduce} --baseline ${baseline.label.split(' ')[0]}` });
    }
  }
  results.note(
    'codemode',
    `${codeIters} rounds after ${codeWarm} warm-up rounds, the ${names.length} targets interleaved in rotating order at concurrency 1 over one keep-alive socket. A plain sample is ${TOOL.ours} sent as tools/call once, or five times one after another (first request start to last body byte). An execute sample is one tools/call of execute on /mcp/code whose program makes the same call once or five times in a loop (sequentially) and returns only the logins: each execute compiles the program, starts a fresh Dynamic Worker and calls back into the worker over RPC for each api call. All requests are the exact bytes the v2 client sent in this run. Local workerd, not Cloudflare: starting a sandbox there is a local isolate start.${baseline ? ` The baseline rows: the same bytes sent to ${baseline.label}'s bench worker, bundled from that commit (git archive) over the same catalogue and served by a second wrangler dev at the same time, its targets interleaved with this tree's in the same rounds.` : ''}`,
  );
}
