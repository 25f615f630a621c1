// The token report (npm run catalog -- --report) on the committed GitHub catalogue: real tokenizer, targets.
import { readFileSync } from 'node:fs';
import { toolsOf } from '../../scripts/catalog/catalogue-files.ts';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import { parseDeclarations } from '../../src/codemode/declarations.ts';
import { CODE_DEFINITIONS_TARGET } from '../../scripts/catalog/token-report-code.ts';
import { cutOutputSchema } from '../../src/profiles/listing-compaction.ts';
import { PROFILES } from '../../src/profiles/profiles.ts';
import { buildView } from '../../src/profiles/view.ts';
import { formatResultSection, LARGE_RAW_TOKENS, resultSection, resultTargets } from '../../scripts/catalog/result-report.ts';
import { loadSpec } from '../../scripts/catalog/spec-loader.ts';
import { formatReport, measure, measureListing, modelVisible, RECOMMENDED_DEFAULTS, TARGETS, tokenReport } from '../../scripts/catalog/token-report.ts';
import { main } from '../../scripts/catalog/cli.ts';

const loaded = loadCatalogue(readFileSync(new URL('../../catalog/catalog.txt', import.meta.url), 'utf8'));
const declarations = parseDeclarations(readFileSync(new URL('../../catalog/declarations.txt', import.meta.url), 'utf8'));
const report = tokenReport(loaded, RECOMMENDED_DEFAULTS, declarations);

describe('token report', () => {
  it('counts tokens with a real tokenizer, not bytes/4', () => {
    const m = measure([{ name: 'x', description: 'Lists pull requests in a repository.' }]);
    expect(m.tokens).toBe(encode(JSON.stringify({ tools: [{ name: 'x', description: 'Lists pull requests in a repository.' }] })).length);
    // Long runs of one character are few BPE tokens but many bytes.
    const runs = measure([{ description: '='.repeat(400) }]);
    expect(runs.tokens).toBeLessThan(runs.bytes / 8);
  });

  it('typed lists count model-visible tokens (name, title, description, inputSchema) and outputSchema bytes apart', () => {
    const tool = { name: 'x', title: 'X', description: 'Lists pull requests.', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { n: { type: 'integer' } } }, annotations: { readOnlyHint: true } };
    const m = measureListing([tool]);
    expect(m.tokens).toBe(encode(JSON.stringify({ tools: [modelVisible(tool)] })).length);
    expect(m.outputBytes).toBe(JSON.stringify(tool.outputSchema).length);
    expect(m.bytes).toBe(JSON.stringify({ tools: [tool] }).length);
    expect(measureListing([{ ...tool, outputSchema: { type: 'object', properties: { a: { type: 'string', description: 'long '.repeat(200) } } } }]).tokens).toBe(m.tokens);
  });

  it('outputSchemas as listed: none thinned, none over the size limit, every top-level field typed, ≤ 1% of numeric properties also allow a string', () => {
    const o = report.outputs;
    expect(o.listed).toBe(toolsOf(loaded).filter((t) => t.outputSchema).length);
    expect(o.thinned).toEqual([]);
    expect(o.fallback).toEqual([]);
    expect(o.typed.topFields).toBeGreaterThan(10_000);
    expect(o.typed.topTyped).toBe(o.typed.topFields);
    expect(o.typed.typed).toBeLessThan(o.typed.fields);
    expect(o.nodes).toBeLessThan(o.fullNodes / 3);
    expect(formatReport(report)).toMatch(/- output bound \(1 level whole, 0 typed nodes below\): top-level fields typed (\d+) of \1 \(100\.0%\)/);
    expect(o.numeric).toBeGreaterThan(1000);
    expect(o.numericWithString).toBeLessThanOrEqual(o.numeric * TARGETS.numericWithStringShare);
    expect(o.distinct).toBeLessThan(o.listed);
    expect(formatReport(report)).toMatch(/- numeric properties: \d+; of them also allowing a string \(as the spec declares\): \d+ \(0\.\d+%\)/);
  });

  it('meets the GitHub targets: discovery ≤ 1.5k tokens, default toolsets ≤ 40 tools and ≤ 15k model-visible tokens, mean ≤ 250 per tool as served', () => {
    for (const d of report.discovery) expect(d.tokens).toBeLessThanOrEqual(TARGETS.discoveryTokens);
    expect(report.defaults).toEqual(RECOMMENDED_DEFAULTS);
    for (const t of report.toolsets.filter((t) => t.isDefault)) {
      expect(t.tools, t.name).toBeLessThanOrEqual(TARGETS.toolsetTools);
      expect(t.tokens, t.name).toBeLessThanOrEqual(TARGETS.toolsetTokens);
    }
    expect(report.meanTokensPerTool).toBeLessThanOrEqual(TARGETS.meanTokensPerTool);
    expect(report.checks.every((c) => c.ok)).toBe(true);
  });

  it('has a name-quality section: HTTP-verb names, titles that are not titles, acronym splits, the longest names, with targets', () => {
    const text = formatReport(report);
    expect(text).toMatch(/## Name quality \(docs\/naming.md\)\n\n- HTTP-verb names \(`post_`, `put_`, `head_`…\): 0 of 1,?223 \(0\.0%\)/);
    expect(text).toMatch(/- titles that are not titles: 0 of 1,?223 \(0\.0%\): over 12 words 0, cut 0, a sentence 0, a path echo 0, raw 0/);
    expect(text).toMatch(/- acronym splits: 0\n- longest names: \w+ \(41\)/);
    for (const target of ['HTTP-verb names ≤ 2%', 'titles that are not titles ≤ 3%', 'no acronym split in a name']) expect(text).toContain(`- ok: ${target}`);
  });

  it('code mode: both definitions for the whole catalogue within 1,000 tokens; sampled search answers measured', () => {
    expect(report.code.definitions.tools).toBe(2);
    expect(report.code.definitions.tokens).toBeLessThanOrEqual(CODE_DEFINITIONS_TARGET);
    expect(report.code.answers).toHaveLength(25);
    const sorted = report.code.answers.map((a) => a.tokens);
    expect(sorted).toEqual([...sorted].sort((a, b) => a - b));
    for (const a of report.code.answers) {
      expect(a.tools).toBe(5);
      expect(a.tokens).toBeGreaterThan(100);
    }
    const text = formatReport(report);
    expect(text).toMatch(/## Code mode \(\/mcp\/code\)\n\nTool definitions \(search and execute, whole catalogue\): [\d,]+ bytes, \d+ tokens\./);
    expect(text).toMatch(/Search answers \(limit 5; queries: the titles of 25 tools spread through the catalogue\): median [\d,]+ tokens/);
    expect(formatReport(tokenReport(loaded, RECOMMENDED_DEFAULTS))).toContain('Search answers: no declarations.txt beside the catalogue');
  });

  it('covers every toolset and profile, and what models see of the served list is far smaller than the generated catalogue', () => {
    expect(report.toolsets.map((t) => t.name).sort()).toEqual(Object.keys(loaded.catalogue.toolsets).sort());
    expect(report.profiles.map((p) => p.profile)).toEqual(['default', 'cursor', 'claude', 'openai', 'gemini', 'vscode']);
    const all = report.profiles.find((p) => p.profile === 'default')!.all;
    expect(all.tools).toBe(loaded.count);
    expect(all.tokens).toBeLessThan(report.uncompacted.tokens * 0.75);
    // Bounded outputSchemas (top level whole, deeper objects as their bare type): a fraction of the catalogue's bytes.
    expect(all.outputBytes).toBeLessThan(report.uncompacted.outputBytes! * 0.5);
    expect(all.outputBytes).toBeGreaterThan(report.uncompacted.outputBytes! * 0.1);
    const text = formatReport(report);
    expect(text).toContain('## Discovery mode');
    expect(text).toMatch(/\| repos_core \| yes \| 32 \|/);
  });

  it('the size fallback only loosens: wrapped lists cut to 2 levels keep their item property names', () => {
    const pulls = loaded.byName.get('pulls_list')!;
    const c = cutOutputSchema(pulls.outputSchema!, 2) as { properties: { result: { items: { properties: Record<string, unknown> } } } };
    expect(Object.keys(c.properties.result.items.properties)).toContain('number');
    expect(JSON.stringify(c)).not.toContain('"additionalProperties":false');
  });

  it('measures the mean per tool on tools/list as clients get it, projection argument included', () => {
    const served = buildView(loaded, sliceOf(loaded, {}), PROFILES.default).tools;
    expect(served.filter((t) => '_fields' in ((t.inputSchema as { properties?: object }).properties ?? {})).length).toBeGreaterThan(served.length / 2);
    const mean = served.reduce((n, t) => n + encode(JSON.stringify(modelVisible(t))).length, 0) / served.length;
    expect(report.meanTokensPerTool).toBeCloseTo(mean, 6);
  });

  it('measures what the projection argument adds to tools/list', () => {
    const { projectionArg } = report;
    expect(projectionArg.defaults).toBeGreaterThan(0);
    expect(projectionArg.all).toBeGreaterThan(projectionArg.defaults);
    // One short line: about 25 tokens on each of the ~930 tools with a JSON result.
    expect(projectionArg.all / toolsOf(loaded).filter((t) => t.result).length).toBeLessThan(30);
    expect(formatReport(report)).toMatch(/The projection argument \(`_fields` on every tool with a JSON result\) adds [\d,]+ tokens to the default toolsets/);
  });

  it("result section: every response example shaped by the worker's code, none cut in half, broken or off-schema", async () => {
    const doc = (await loadSpec(loaded.catalogue.source.spec)).doc;
    const s = resultSection(loaded, doc);
    expect(s.examples).toBeGreaterThan(900);
    expect(s.checks.results).toBeGreaterThan(2 * s.examples);
    expect(s.checks).toMatchObject({ cutItems: 0, brokenJson: 0, schemaInvalid: 0, shapeRejected: 0 });
    // The large results are their own row beside (never instead of) all tools, over the larger examples only.
    expect(s.large.tools).toBeGreaterThan(0);
    expect(s.large.tools).toBeLessThan(s.all.tools);
    expect(s.large.raw.median).toBeGreaterThanOrEqual(LARGE_RAW_TOKENS);
    // The floor of any 5-field projection is below the typical one, and both targets list the catalogue-wide measure first.
    expect(s.bounds.cheapest.median).toBeLessThanOrEqual(s.all.projected.median);
    expect(s.bounds.projectionBound).toBeGreaterThan(0);
    const targets = resultTargets(s).map((t) => t.target);
    expect(targets[0]).toMatch(/^results: median ≥ 3× fewer tokens than raw by default$/);
    expect(targets.filter((t) => /^results of ≥ \d+ tokens raw: /.test(t))).toHaveLength(2);
    expect(s.all.compacted.median).toBeLessThan(s.all.raw.median);
    expect(s.all.projected.median).toBeLessThan(s.all.compacted.median);
    for (const name of RECOMMENDED_DEFAULTS) expect(s.groups.find((g) => g.name === name)?.tools, name).toBeGreaterThan(0);
    expect(resultTargets(s).find((t) => /cut in half/.test(t.target))?.ok).toBe(true);
    const text = formatResultSection(s, RECOMMENDED_DEFAULTS);
    expect(text).toMatch(/^## Results \(response examples\)/);
    expect(text).toMatch(/\n\| all \| \d+ \| [\d,]+ \|/);
    expect(text).toMatch(/\n\| raw ≥ 500 tokens \| \d+ \|/);
    expect(text).toMatch(/no 5-field projection can cut the all-tools median of [\d,]+ by more than about [\d.]+×/);
  });

  it('npm run catalog -- --report prints the report and exits 0', async () => {
    const chunks: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((s: string) => (chunks.push(String(s)), true)) as typeof process.stdout.write;
    try {
      expect(await main(['--report'])).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    expect(chunks.join('')).toContain('# Token report');
    expect(chunks.join('')).toContain('## Results (response examples)');
    expect(chunks.join('')).toMatch(/Search answers \(limit 5/);
  });
});
