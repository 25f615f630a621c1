// A large result: a tools/call whose upstream answers with a ~9 MB JSON list (just under the 10 MiB response
// limit), which the worker reads, validates against the outputSchema and cuts to the result budget. Timed end to
// end against the passthrough floor moving the same body with no MCP.
import type { BenchContext } from '../context.ts';
import type { Req } from '../http.ts';
import { LARGE } from '../plan.ts';
import type { Server } from '../servers.ts';
import { fmtBytes, fmtMs, summarize, verdict } from '../stats.ts';
import { captureToolCall, eraName, expectOk, interleaved, type Era } from '../wire.ts';

/** The bound the large-result call must stay within, also on a loaded 2-core machine. */
const TARGET_MS = 5000;

/** The JSON-RPC result of a response sent as JSON or as one SSE event. */
function rpcResult(body: Buffer): { isError?: boolean; structuredContent?: Record<string, unknown>; content?: { type: string; text?: string }[] } {
  const text = body.toString('utf8');
  const json = text.trimStart().startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
  return (JSON.parse(json) as { result?: ReturnType<typeof rpcResult> }).result ?? {};
}

export async function benchLarge(ctx: BenchContext, worker: Server, era: Era): Promise<void> {
  const { plan, results, http } = ctx;
  const floor: Req = { method: 'GET', path: `/__bench/passthrough${LARGE.upstreamPath}`, headers: { accept: 'application/json' } };
  const call = await captureToolCall(worker.url, era, LARGE.tool, LARGE.args);
  const f = await http.send(worker.url, floor);
  expectOk('large floor', f.status, f.body, '"items"');
  const r = await http.send(worker.url, call);
  expectOk(`tools/call ${LARGE.tool}`, r.status, r.body, '"structuredContent"');
  const result = rpcResult(r.body);
  if (result.isError) throw new Error(`tools/call ${LARGE.tool} returned an error: ${r.body.toString('utf8').slice(0, 500)}`);
  const cut = /Showing (\d+) of (\d+) items/.exec(r.body.toString('utf8'));
  if (!cut) throw new Error(`tools/call ${LARGE.tool}: the ${fmtBytes(f.body.length)} result was not shortened: ${r.body.toString('utf8').slice(0, 300)}`);
  const textChars = (result.content ?? []).reduce((n, b) => n + (b.text?.length ?? 0), 0);
  const budget = /over the ~(\d+)-token result budget/.exec(r.body.toString('utf8'))?.[1];

  ctx.log(`large: ${plan.n.largeIters} interleaved rounds of floor and tools/call (${fmtBytes(f.body.length)} upstream body)`);
  const samples = await interleaved(http, worker.url, { floor, ours: call }, plan.n.largeIters, plan.n.largeWarm);
  const sf = summarize(samples.floor!);
  const so = summarize(samples.ours!);
  results.raw.large = { upstreamBytes: f.body.length, responseBytes: r.body.length, textChars, budgetTokens: Number(budget), kept: Number(cut[1]), total: Number(cut[2]), floor: sf, ours: so };
  const reproduce = plan.reproduce('large');
  results.row({ section: 'large', measure: `floor: passthrough of the same ${fmtBytes(f.body.length)} body`, result: `p50 ${fmtMs(sf.p50)} · p99 ${fmtMs(sf.p99)}`, reproduce });
  results.row({
    section: 'large',
    measure: `tools/call ${LARGE.tool}, ${fmtBytes(f.body.length)} upstream list cut to the result budget`,
    result: `p50 ${fmtMs(so.p50)} · p99 ${fmtMs(so.p99)} · response ${fmtBytes(r.body.length)}, kept ${cut[1]} of ${cut[2]} items`,
    target: `p99 ≤ ${TARGET_MS.toLocaleString('en-US')} ms`,
    verdict: verdict(so.p99, TARGET_MS, `${TARGET_MS.toLocaleString('en-US')} ms`),
    reproduce,
  });
  results.note('large', `The bench upstream answers GitHub's issue search (GET /search/issues) with GitHub's documented example item repeated ${cut[2]} times (distinct ids), ${fmtBytes(f.body.length)} of JSON that is valid against the tool's outputSchema. The worker reads it (under its response size limit), validates it, keeps the whole items that fit the default result budget (${budget ? `~${Number(budget).toLocaleString('en-US')} tokens, as its note says` : 'see its note'}) and answers; a sample is request start to last body byte of the tools/call (the exact bytes the v2 client sent for it in this run, ${eraName(era)}, \`q=is:issue\`), interleaved with the passthrough floor that streams the same body back with no MCP. ${plan.n.largeIters} rounds after ${plan.n.largeWarm} warm-up round(s), concurrency 1. The target bounds the whole call on this shared machine; it is reported, never enforced.`);
}
