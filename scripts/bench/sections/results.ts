// Result tokens before and after shaping (docs/results.md): GitHub's response examples as results, raw (as sent
// before compaction), compacted (the default) and with a typical 5-field projection, through the worker's code.
// Token counts, not timings: the same on any machine, so this section is exact in --quick mode too.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatResultSection, LARGE_RAW_TOKENS, RESULT_TARGETS, resultSection } from '../../catalog/result-report.ts';
import { loadSpec } from '../../catalog/spec-loader.ts';
import { RECOMMENDED_DEFAULTS, TARGETS, tokenReport } from '../../catalog/token-report.ts';
import { GITHUB_SPEC } from '../../lib/prism.ts';
import { repoRoot } from '../../lib/proc.ts';
import { loadCatalogue } from '../../../src/catalogue/loaded-catalogue.ts';
import type { BenchContext } from '../context.ts';

export async function benchResults(ctx: BenchContext): Promise<void> {
  const loaded = loadCatalogue(readFileSync(join(repoRoot, 'catalog', 'catalog.txt'), 'utf8'));
  const s = resultSection(loaded, (await loadSpec(join(repoRoot, GITHUB_SPEC))).doc);
  const defaults = loaded.catalogue.defaultToolsets ?? [];
  const x = (a: number, b: number) => (b ? a / b : 0);
  const n = (v: number) => Math.round(v).toLocaleString('en-US');
  const reproduce = 'npm run catalog -- --report';
  const { raw, compacted, projected } = s.all;
  const c = x(raw.median, compacted.median);
  const p = x(raw.median, projected.median);
  ctx.results.raw.results = s;
  ctx.results.row({
    section: 'results',
    measure: `result tokens, GitHub response examples (${s.examples} tools): raw → compacted (default)`,
    result: `median ${n(raw.median)} → ${n(compacted.median)} (${c.toFixed(2)}×) · p90 ${n(raw.p90)} → ${n(compacted.p90)} (${x(raw.p90, compacted.p90).toFixed(2)}×)`,
    target: `median ≥ ${RESULT_TARGETS.compactedRatio}×`,
    verdict: c >= RESULT_TARGETS.compactedRatio ? `met (≥ ${RESULT_TARGETS.compactedRatio}×)` : `MISSED (< ${RESULT_TARGETS.compactedRatio}×)`,
    reproduce,
  });
  ctx.results.row({
    section: 'results',
    measure: 'result tokens, same examples: raw → typical 5-field projection',
    result: `median ${n(raw.median)} → ${n(projected.median)} (${p.toFixed(2)}×) · p90 ${n(raw.p90)} → ${n(projected.p90)} (${x(raw.p90, projected.p90).toFixed(2)}×)`,
    target: `median ≥ ${RESULT_TARGETS.projectedRatio}×`,
    verdict: p >= RESULT_TARGETS.projectedRatio ? `met (≥ ${RESULT_TARGETS.projectedRatio}×)` : `MISSED (< ${RESULT_TARGETS.projectedRatio}×)`,
    reproduce,
  });
  // A second measure beside (never instead of) the issue's: the examples large enough for shaping to matter.
  const L = s.large;
  const lc = x(L.raw.median, L.compacted.median);
  const lp = x(L.raw.median, L.projected.median);
  ctx.results.row({
    section: 'results',
    measure: `second measure: examples of ≥ ${LARGE_RAW_TOKENS} tokens raw (${L.tools} tools): raw → compacted · → 5-field projection`,
    result: `median ${n(L.raw.median)} → ${n(L.compacted.median)} (${lc.toFixed(2)}×) · → ${n(L.projected.median)} (${lp.toFixed(2)}×)`,
    target: `median ≥ ${RESULT_TARGETS.compactedRatio}× · ≥ ${RESULT_TARGETS.projectedRatio}×`,
    verdict: lc >= RESULT_TARGETS.compactedRatio && lp >= RESULT_TARGETS.projectedRatio ? 'met (both)' : 'MISSED',
    reproduce,
  });
  const bad = s.checks.cutItems + s.checks.brokenJson + s.checks.schemaInvalid + s.checks.shapeRejected;
  ctx.results.row({
    section: 'results',
    measure: 'shaped results that cut an item in half, break JSON or fail the outputSchema',
    result: `${s.checks.cutItems} cut · ${s.checks.brokenJson} broken · ${s.checks.schemaInvalid} invalid, of ${s.checks.results}`,
    target: '0',
    verdict: bad === 0 ? 'met (0)' : `MISSED (${bad})`,
    reproduce,
  });
  const served = tokenReport(loaded, RECOMMENDED_DEFAULTS);
  const why =
    `The token report's "mean per typed tool" target is ${TARGETS.meanTokensPerTool} tokens (${served.meanTokensPerTool.toFixed(1)} measured), on tools/list as served, ` +
    `because the projection argument costs ~${Math.round(served.projectionArg.perTool)} tokens per tool and cuts results ${p.toFixed(1)}× at the median.`;
  // The section's table without its heading and introduction (the note below says the same).
  const table = formatResultSection(s, defaults).split('\n').slice(4).join('\n').trim();
  ctx.results.note('results', `The token report's result section (scripts/catalog/result-report.ts) on the committed GitHub catalogue and the spec it was built from: each response example goes through src/upstream/response.ts with the shaping of src/results, at the default budget (25,000 tokens), once compacted and once with a typical 5-field projection (scripts/catalog/typical-projection.ts); tokens are o200k_base (gpt-tokenizer). ${s.offSchema} examples that fail their own tool's outputSchema are left out (the worker returns those unchanged beside a mismatch note). Before (raw) and after, all tools first, then the default toolsets, then the rest by raw median; × is raw median / median:\n\n${table}\n\n${why}`);
}
