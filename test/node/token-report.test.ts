// The token report (npm run catalog -- --report) on the committed GitHub catalogue: real tokenizer, targets.
import { readFileSync } from 'node:fs';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { compactOutputSchema } from '../../src/profiles/compact.ts';
import { formatReport, measure, RECOMMENDED_DEFAULTS, TARGETS, tokenReport } from '../../scripts/catalog/token-report.ts';
import { main } from '../../scripts/catalog/cli.ts';

const loaded = loadCatalogue(readFileSync(new URL('../../catalog/catalog.txt', import.meta.url), 'utf8'));
const report = tokenReport(loaded, RECOMMENDED_DEFAULTS);

describe('token report', () => {
  it('counts tokens with a real tokenizer, not bytes/4', () => {
    const m = measure([{ name: 'x', description: 'Lists pull requests in a repository.' }]);
    expect(m.tokens).toBe(encode(JSON.stringify({ tools: [{ name: 'x', description: 'Lists pull requests in a repository.' }] })).length);
    // Long runs of one character are few BPE tokens but many bytes.
    const runs = measure([{ description: '='.repeat(400) }]);
    expect(runs.tokens).toBeLessThan(runs.bytes / 8);
  });

  it('meets the GitHub targets: discovery ≤ 1.5k tokens, default toolsets ≤ 40 tools and ≤ 15k tokens, mean ≤ 250 tokens per tool', () => {
    for (const d of report.discovery) expect(d.tokens).toBeLessThanOrEqual(TARGETS.discoveryTokens);
    expect(report.defaults).toEqual(RECOMMENDED_DEFAULTS);
    for (const t of report.toolsets.filter((t) => t.isDefault)) {
      expect(t.tools, t.name).toBeLessThanOrEqual(TARGETS.toolsetTools);
      expect(t.tokens, t.name).toBeLessThanOrEqual(TARGETS.toolsetTokens);
    }
    expect(report.meanTokensPerTool).toBeLessThanOrEqual(TARGETS.meanTokensPerTool);
    expect(report.checks.every((c) => c.ok)).toBe(true);
  });

  it('covers every toolset and profile, and the compact catalogue is far smaller than the generated one', () => {
    expect(report.toolsets.map((t) => t.name).sort()).toEqual(Object.keys(loaded.catalogue.toolsets).sort());
    expect(report.profiles.map((p) => p.profile)).toEqual(['default', 'cursor', 'claude', 'openai', 'gemini', 'vscode']);
    const all = report.profiles.find((p) => p.profile === 'default')!.all;
    expect(all.tools).toBe(loaded.count);
    expect(all.tokens).toBeLessThan(report.uncompacted.tokens / 3);
    const text = formatReport(report);
    expect(text).toContain('## Discovery mode');
    expect(text).toMatch(/\| repos_core \| yes \| 32 \|/);
  });

  it('compact outputSchemas only loosen: wrapped lists keep their item property names', () => {
    const pulls = loaded.byName.get('pulls_list')!;
    const c = compactOutputSchema(pulls.outputSchema!, 2) as { properties: { result: { items: { properties: Record<string, unknown> } } } };
    expect(Object.keys(c.properties.result.items.properties)).toContain('number');
    expect(JSON.stringify(c)).not.toContain('"additionalProperties":false');
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
  });
});
