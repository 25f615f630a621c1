// The token report's result section (npm run catalog -- --report): for every tool whose spec gives a response
// example, the example's tokens as a result raw (as sent before compaction existed), compacted (the default) and
// with a typical 5-field projection, through the worker's own shaping code (src/results). Also checks every shaped
// result: valid JSON, valid against the tool's outputSchema, and never an item cut in half (at the default budget
// and at a tight one that forces pages to be cut).
import { isDeepStrictEqual } from 'node:util';
import { toolsOf } from './catalogue-files.ts';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { LoadedCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { CatalogueTool } from '../../src/catalogue/types.ts';
import { validate } from '../../src/catalogue/validator.ts';
import { LIMIT_DEFAULTS } from '../../src/limit-defaults.ts';
import { estimateTokens } from '../../src/lib/tokens.ts';
import { resultOptions, type ResultOptions } from '../../src/results/options.ts';
import { resultBudget } from '../../src/results/budget.ts';
import { planResult, shapeResult } from '../../src/results/shape.ts';
import { convertResponse } from '../../src/upstream/response.ts';
import { isObj } from '../lib/is-object.ts';
import { responseExample } from './examples.ts';
import { typicalProjection } from './typical-projection.ts';

export const RESULT_TARGETS = { compactedRatio: 3, projectedRatio: 10 };
/** The second, labelled measure: tools whose raw example is at least this many tokens (results worth shaping). */
export const LARGE_RAW_TOKENS = 500;

interface Stat {
  median: number;
  p90: number;
}

interface Group {
  name: string;
  tools: number;
  raw: Stat;
  compacted: Stat;
  projected: Stat;
}

export interface ResultSection {
  examples: number;
  /** Examples that do not match their own tool's outputSchema (the worker would report a schema mismatch). */
  offSchema: number;
  groups: Group[];
  all: Group;
  /** Reported beside (never instead of) all tools: the tools whose raw example is ≥ LARGE_RAW_TOKENS, where shaping matters most. */
  large: Group;
  /**
   * Why the catalogue-wide medians stop where they do. `cheapest`: tokens of the cheapest possible 5-field
   * projection (the 5 top-level fields of the items that cost least), so raw median / cheapest median bounds any
   * 5-field projection. `projectionBound`: tools whose raw example is under 10× even that. `dense`: tools where
   * compaction removes under 10% (nothing null, empty, linked or embedded), and `compactBound`: tools compacted to
   * more than a third of raw.
   */
  bounds: { cheapest: Stat; projectionBound: number; dense: number; compactBound: number };
  /** Shaped results checked, and how many cut an item, were not JSON, or failed the outputSchema. */
  checks: { results: number; cutItems: number; brokenJson: number; schemaInvalid: number; /** Shaped values the outputSchema rejected (the worker then sends the unshaped result). */ shapeRejected: number };
}

const tokens = (text: string) => encode(text).length;

function stat(xs: number[]): Stat {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? 0;
  // The median of an even count is the mean of the middle two.
  const median = s.length ? (s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : 0;
  return { median, p90: at(0.9) };
}

/** The value the worker validates and shapes: structuredContent when the tool has an outputSchema, else the JSON. */
function asStructured(tool: CatalogueTool, example: unknown): unknown {
  if (!tool.outputSchema) return example;
  return tool.outputWrapped || !isObj(example) ? { result: example } : example;
}

function itemsOf(tool: CatalogueTool, value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  const key = tool.result?.items ?? (tool.outputWrapped ? 'result' : undefined);
  return key && isObj(value) && Array.isArray(value[key]) ? value[key] : undefined;
}

interface Measured {
  text: string;
  items?: unknown[];
}

export function resultSection(loaded: LoadedCatalogue, doc: unknown): ResultSection {
  const { catalogue } = loaded;
  const options: ResultOptions = resultOptions(catalogue, catalogue.defaultUpstream, true);
  const budget = LIMIT_DEFAULTS.maxResultTokens;
  const ops = new Map<string, Record<string, unknown>>();
  for (const [path, item] of Object.entries(isObj(doc) && isObj(doc.paths) ? doc.paths : {})) {
    if (!isObj(item)) continue;
    for (const [m, op] of Object.entries(item)) if (isObj(op)) ops.set(`${m.toUpperCase()} ${path}`, op);
  }
  const checks = { results: 0, cutItems: 0, brokenJson: 0, schemaInvalid: 0, shapeRejected: 0 };
  const rows: Array<{ tool: CatalogueTool; raw: number; compacted: number; projected: number; cheapest: number }> = [];
  let offSchema = 0;

  for (const tool of toolsOf(loaded)) {
    const op = ops.get(`${tool.http.method} ${tool.http.path}`);
    const example = op && responseExample(doc, op);
    if (!example) continue;
    const value = asStructured(tool, example.value);
    if (tool.outputSchema && !validate(tool.outputSchema, value).valid) {
      offSchema++;
      continue;
    }
    // One result exactly as the worker builds it from this body (src/upstream/response.ts with src/results).
    const bytes = new TextEncoder().encode(JSON.stringify(example.value));
    const run = (args: Record<string, unknown>, budgetTokens: number): Measured | undefined => {
      const budget = resultBudget(budgetTokens);
      const planned = planResult(tool, args, options, budget);
      if ('error' in planned) return undefined;
      const { result, validation } = convertResponse(tool, tool.outputSchema, bytes, {
        status: 200,
        statusText: 'OK',
        contentType: 'application/json',
        method: tool.http.method,
        path: tool.http.path,
        budget,
        maxBinaryBytes: LIMIT_DEFAULTS.maxBinaryBytes,
        shape: (v: unknown) => {
          const shaped = shapeResult(v, planned.plan);
          if (tool.outputSchema && !validate(tool.outputSchema, shaped.value).valid) checks.shapeRejected++;
          return shaped;
        },
      });
      if (result.isError || validation === 'mismatch') return undefined;
      const texts = result.content.map((b) => (b.type === 'text' ? b.text : ''));
      checks.results++;
      let data: unknown;
      try {
        data = JSON.parse(texts[0] ?? '');
      } catch {
        checks.brokenJson++;
      }
      if (tool.outputSchema && !(result.structuredContent && validate(tool.outputSchema, result.structuredContent).valid)) checks.schemaInvalid++;
      return { text: texts.join('\n'), items: itemsOf(tool, data) };
    };
    // Shown items must equal the same items shaped without any budget: whole, never cut.
    const checkWhole = (m: Measured | undefined, full: Measured | undefined) => {
      if (!m?.items || !full?.items) return;
      if (m.items.length > full.items.length || m.items.some((x, i) => !isDeepStrictEqual(x, full.items![i]))) {
        checks.cutItems++;
        if (process.env.RESULT_REPORT_DEBUG) process.stderr.write(`cut: ${tool.name}\n`);
      }
    };
    const unlimited = Number.MAX_SAFE_INTEGER;
    const fieldsArg = tool.result?.fields;
    const typical = fieldsArg ? typicalProjection(tool) : [];
    const compactedFull = run({}, unlimited);
    const compacted = run({}, budget);
    checkWhole(compacted, compactedFull);
    if (compactedFull?.items && compactedFull.items.length > 1) checkWhole(run({}, Math.floor(estimateTokens(compactedFull.text) / 2) + 300), compactedFull);
    const projArgs = fieldsArg && typical.length ? { [fieldsArg]: typical.join(',') } : undefined;
    const projected = projArgs ? run(projArgs, budget) : undefined;
    if (projArgs) checkWhole(projected, run(projArgs, unlimited));
    // An example off its own schema comes back unshaped, beside the schema with a mismatch note: counted apart, not measured.
    if (!compacted) continue;
    const raw = tokens(JSON.stringify(value));
    const c = tokens(compacted.text);
    const cheap = fieldsArg ? cheapestFields(tool, value) : [];
    const cheapest = cheap.length ? run({ [fieldsArg!]: cheap.join(',') }, budget) : undefined;
    const p = projected ? tokens(projected.text) : c;
    rows.push({ tool, raw, compacted: c, projected: p, cheapest: cheapest ? Math.min(p, tokens(cheapest.text)) : p });
  }

  const group = (name: string, rs: typeof rows): Group => ({
    name,
    tools: rs.length,
    raw: stat(rs.map((r) => r.raw)),
    compacted: stat(rs.map((r) => r.compacted)),
    projected: stat(rs.map((r) => r.projected)),
  });
  const groups = Object.keys(catalogue.toolsets)
    .map((ts) => group(ts, rows.filter((r) => r.tool.toolsets.includes(ts))))
    .filter((g) => g.tools > 0);
  const bounds = {
    cheapest: stat(rows.map((r) => r.cheapest)),
    projectionBound: rows.filter((r) => r.raw < RESULT_TARGETS.projectedRatio * r.cheapest).length,
    dense: rows.filter((r) => r.compacted >= 0.9 * r.raw).length,
    compactBound: rows.filter((r) => r.compacted * RESULT_TARGETS.compactedRatio > r.raw).length,
  };
  const large = group(`raw ≥ ${LARGE_RAW_TOKENS} tokens`, rows.filter((r) => r.raw >= LARGE_RAW_TOKENS));
  return { examples: rows.length, offSchema, groups, all: group('all', rows), large, bounds, checks };
}

/** The 5 top-level fields of the result items that cost fewest tokens: the floor of any 5-field projection. */
function cheapestFields(tool: CatalogueTool, value: unknown, n = 5): string[] {
  const items = itemsOf(tool, value) ?? [tool.outputWrapped && isObj(value) ? value.result : value];
  const cost = new Map<string, number>();
  for (const item of items) if (isObj(item)) for (const [k, v] of Object.entries(item)) cost.set(k, (cost.get(k) ?? 0) + tokens(JSON.stringify({ [k]: v })));
  return [...cost.entries()].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n).map(([k]) => k);
}

const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);

export function resultTargets(s: ResultSection): Array<{ target: string; ok: boolean; measured: string }> {
  const c = ratio(s.all.raw.median, s.all.compacted.median);
  const p = ratio(s.all.raw.median, s.all.projected.median);
  const bad = s.checks.cutItems + s.checks.brokenJson + s.checks.schemaInvalid + s.checks.shapeRejected;
  const lc = ratio(s.large.raw.median, s.large.compacted.median);
  const lp = ratio(s.large.raw.median, s.large.projected.median);
  return [
    { target: `results: median ≥ ${RESULT_TARGETS.compactedRatio}× fewer tokens than raw by default`, ok: c >= RESULT_TARGETS.compactedRatio, measured: `${c.toFixed(2)}× (${s.all.raw.median} → ${s.all.compacted.median})` },
    { target: `results: median ≥ ${RESULT_TARGETS.projectedRatio}× fewer with a 5-field projection`, ok: p >= RESULT_TARGETS.projectedRatio, measured: `${p.toFixed(2)}× (${s.all.raw.median} → ${s.all.projected.median})` },
    { target: `results of ≥ ${LARGE_RAW_TOKENS} tokens raw: median ≥ ${RESULT_TARGETS.compactedRatio}× fewer by default`, ok: lc >= RESULT_TARGETS.compactedRatio, measured: `${lc.toFixed(2)}× (${s.large.raw.median} → ${s.large.compacted.median}, ${s.large.tools} tools)` },
    { target: `results of ≥ ${LARGE_RAW_TOKENS} tokens raw: median ≥ ${RESULT_TARGETS.projectedRatio}× fewer with a 5-field projection`, ok: lp >= RESULT_TARGETS.projectedRatio, measured: `${lp.toFixed(2)}× (${s.large.raw.median} → ${s.large.projected.median}, ${s.large.tools} tools)` },
    { target: 'results: 0 items cut in half, 0 broken JSON, 0 schema-invalid', ok: bad === 0, measured: `${s.checks.cutItems} cut, ${s.checks.brokenJson} broken, ${s.checks.schemaInvalid} invalid, ${s.checks.shapeRejected} shaped values rejected by the schema, of ${s.checks.results} shaped results` },
  ];
}

export function formatResultSection(s: ResultSection, defaults: string[]): string {
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  const x = (a: number, b: number) => `${ratio(a, b).toFixed(1)}×`;
  const row = (g: Group) =>
    `| ${g.name} | ${g.tools} | ${n(g.raw.median)} | ${n(g.raw.p90)} | ${n(g.compacted.median)} | ${n(g.compacted.p90)} | ${x(g.raw.median, g.compacted.median)} | ${n(g.projected.median)} | ${n(g.projected.p90)} | ${x(g.raw.median, g.projected.median)} |`;
  const out = [
    '## Results (response examples)',
    '',
    `Tokens (o200k_base) of each tool's response example as a result, for the ${s.examples} tools whose spec gives one that matches the tool's outputSchema (${s.offSchema} do not, and are left out): raw (the JSON as sent before compaction), compacted (the default) and with a typical 5-field projection (scripts/catalog/typical-projection.ts). Median and p90 per toolset; × is raw median / median.`,
    '',
    '| toolset | tools | raw median | raw p90 | compacted median | p90 | × | projected median | p90 | × |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    row(s.all),
    row(s.large),
    ...s.groups.filter((g) => defaults.includes(g.name)).map(row),
    ...s.groups.filter((g) => !defaults.includes(g.name)).sort((a, b) => b.raw.median - a.raw.median).map(row),
    '',
    `The row "${s.large.name}" covers the ${s.large.tools} tools whose raw example is at least ${LARGE_RAW_TOKENS} tokens, where shaping matters most. ` +
      `Why the catalogue-wide medians stop where they do: ${s.bounds.dense} of ${s.examples} examples lose under 10% to compaction (dense objects with nothing null, empty, linked or embedded), and ${s.bounds.compactBound} are compacted to more than a third of raw; ` +
      `the cheapest possible 5-field projection (the 5 fields of the example that cost fewest tokens) has a median of ${n(s.bounds.cheapest.median)} tokens, so no 5-field projection can cut the all-tools median of ${n(s.all.raw.median)} by more than about ${x(s.all.raw.median, s.bounds.cheapest.median)}, and ${s.bounds.projectionBound} examples are under ${RESULT_TARGETS.projectedRatio}× even that floor.`,
    '',
    `Checked ${s.checks.results} shaped results (default budget, a tight budget that cuts pages, projections): ${s.checks.cutItems} cut an item, ${s.checks.brokenJson} broke JSON, ${s.checks.schemaInvalid} failed their outputSchema, ${s.checks.shapeRejected} shaped values were rejected by it (the worker would send those unshaped).`,
  ];
  return out.join('\n') + '\n';
}
