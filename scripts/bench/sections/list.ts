// tools/list cost vs pre-serialised bytes: the live endpoint against the same body replayed from a cache.
import { gzipSync } from 'node:zlib';
import type { BenchContext } from '../context.ts';
import type { Req } from '../http.ts';
import { SLICE } from '../plan.ts';
import type { Server } from '../servers.ts';
import { fmtBytes, fmtInt, fmtMs, fmtRatio, ratio, summarize, verdict } from '../stats.ts';
import { expectOk, interleaved, type Wire } from '../wire.ts';

export async function benchList(ctx: BenchContext, worker: Server, wire: Wire, era: string): Promise<void> {
  const { plan, results, http } = ctx;
  const { countTokens } = await import('gpt-tokenizer');
  const { modelVisible } = await import('../../catalog/token-report.ts');
  const raw: Record<string, unknown> = {};
  results.raw.list = raw;
  for (const [label, path, iters] of [
    ['full catalogue', '/mcp/x/all', plan.n.listIters.all],
    [`toolset ${SLICE}`, `/mcp/x/${SLICE}`, plan.n.listIters.slice],
  ] as const) {
    const live: Req = { ...wire.list, path };
    const pre: Req = { ...wire.list, path: `/__bench/prebaked${path}` };
    const a = await http.send(worker.url, live);
    expectOk(`tools/list ${path}`, a.status, a.body, '"tools"');
    const b = await http.send(worker.url, pre); // first call fills the cache from the real app
    const b2 = await http.send(worker.url, pre);
    const same = a.body.equals(b2.body) && b.body.equals(b2.body);
    const body = a.body.toString('utf8');
    const parsed = JSON.parse(body) as { result: { tools: Array<{ name: string; inputSchema: unknown; outputSchema?: unknown }> } };
    const tools = parsed.result.tools.length;
    // What a model is handed (name, title, description, inputSchema); the outputSchemas are counted in bytes, apart.
    const tokens = countTokens(JSON.stringify(parsed.result.tools.map(modelVisible)));
    const outputBytes = parsed.result.tools.reduce((n, t) => n + (t.outputSchema ? JSON.stringify(t.outputSchema).length : 0), 0);
    ctx.log(`list ${path}: ${tools} tools, ${fmtBytes(a.body.length)}; ${iters} interleaved rounds`);
    const samples = await interleaved(http, worker.url, { live, pre }, iters, plan.n.listWarm);
    const sl = summarize(samples.live!);
    const sp = summarize(samples.pre!);
    const r = ratio(sl.p50, sp.p50);
    raw[path] = { tools, bytes: a.body.length, gzipBytes: gzipSync(a.body).length, tokens, outputBytes, live: sl, prebaked: sp, ratioP50: r, sameBytes: same };
    results.row({
      section: 'list',
      measure: `tools/list ${label} (${path}, ${tools} tools)`,
      result: `p50 ${fmtMs(sl.p50)} vs pre-serialised ${fmtMs(sp.p50)} · ratio ${fmtRatio(r)} · p99 ${fmtMs(sl.p99)} vs ${fmtMs(sp.p99)}`,
      target: 'ratio ≤ 1.5',
      verdict: same ? verdict(r, 1.5) : 'INVALID (bytes differ)',
      reproduce: plan.reproduce('list'),
    });
    results.row({
      section: 'list',
      measure: `tools/list ${label} payload`,
      result: `${fmtBytes(a.body.length)} (${fmtInt(a.body.length)} B; gzip ${fmtBytes(gzipSync(a.body).length)}), of which outputSchemas ${fmtBytes(outputBytes)} · ${fmtInt(tokens)} model-visible tokens`,
      reproduce: plan.reproduce('list'),
    });
  }
  results.note('list', `Latency: interleaved rounds at concurrency 1 (${plan.n.listIters.all} for the full catalogue, ${plan.n.listIters.slice} for the toolset, after ${plan.n.listWarm} warm-up rounds) of the real tools/list request (the bytes the v2 client sent, ${era}) against the live endpoint and against \`/__bench/prebaked/<same path>\`, which answers with the body the live endpoint produced on its first call, kept as bytes. The bench checks the two bodies are byte-identical. Payload: the JSON-RPC response body as sent (responseMode json). Tokens: \`countTokens\` from gpt-tokenizer 4.0.0 (o200k_base, the GPT-4o/GPT-5 encoding) over each tool's name, title, description and inputSchema as compact JSON — what a client hands a model; the outputSchemas' JSON bytes are given apart.`);
}
