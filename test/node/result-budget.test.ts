// The fitting steps in tokens (src/results/budget.ts, shrink-json.ts, within-budget.ts): what each returns is within
// its budget by the estimate, and by the real o200k count (gpt-tokenizer) for CJK, mixed scripts and base64.
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../../src/lib/tokens.ts';
import { fitNote, resultBudget } from '../../src/results/budget.ts';
import { pagingArgs, shrinkJson, truncationNote } from '../../src/results/shrink-json.ts';
import { fittedToBudget, withinBudget } from '../../src/results/within-budget.ts';

const o200k = (text: string) => encode(text).length;
const CJK = '结果超过了令牌预算，因此只返回能够容纳的部分。日本語の文も混ざります。한국어 문장도 있습니다。';
const text = (r: { content: Array<{ type: string; text?: string }> }) => r.content.map((b) => b.text ?? '').join('\n');

describe('shrinkJson, in tokens', () => {
  it('returns undefined when the value fits', () => {
    expect(shrinkJson({ a: [1, 2, 3] }, 100)).toBeUndefined();
  });

  it('cuts the dominant array, keeps valid JSON under the budget, records the cut', () => {
    const v = { total: 1000, items: Array.from({ length: 1000 }, (_, i) => ({ id: i, name: `n${i}` })) };
    const out = shrinkJson(v, 2000)!;
    const json = JSON.stringify(out.value);
    expect(estimateTokens(json)).toBeLessThanOrEqual(2000);
    expect(o200k(json)).toBeLessThanOrEqual(2000);
    expect(JSON.parse(json)).toMatchObject({ total: 1000 });
    expect(out.arrayCuts).toEqual([{ path: '$.items', kept: (out.value as { items: unknown[] }).items.length, total: 1000 }]);
    expect(v.items).toHaveLength(1000); // input untouched
  });

  it('cuts a nested array that dominates instead of the one-element outer array', () => {
    const v = [{ children: Array.from({ length: 500 }, (_, i) => i * 1000) }];
    const out = shrinkJson(v, 500)!;
    expect((out.value as unknown[]).length).toBe(1);
    expect(out.arrayCuts[0]?.path).toBe('$[0].children');
  });

  it('omits base64-like strings whole and cuts prose at a safe boundary', () => {
    const v = { img: 'QUJD'.repeat(1000), prose: '😀'.repeat(2000) };
    const out = shrinkJson(v, 1500)!;
    const o = out.value as { img: string; prose: string };
    expect(o.img).toMatch(/^\[4000 characters omitted \(binary\/base64 data\)\]$/);
    expect(o200k(JSON.stringify(o))).toBeLessThanOrEqual(1500);
    // No lone surrogate at the cut.
    expect(o.prose).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(out.stringsCut).toBe(2);
  });

  it('cuts a CJK string to the budget by the real count, keeping what fits', () => {
    const out = shrinkJson({ id: 1, body: CJK.repeat(200) }, 2000)!;
    const o = out.value as { body: string };
    expect(o.body).toMatch(/… \[\d+ characters cut\]$/);
    expect(o200k(JSON.stringify(o))).toBeLessThanOrEqual(2000);
    expect(o200k(JSON.stringify(o))).toBeGreaterThan(1200);
  });

  it('a CJK object of 100,000 characters (about 70,000 tokens) is cut to the data room of the 25,000-token budget', () => {
    const budget = resultBudget(25_000);
    const v = { id: 1, title: CJK.slice(0, 30), body: CJK.repeat(2_000).slice(0, 100_000), labels: ['バグ', 'ошибка', 'خطأ', '👍'] };
    expect(o200k(JSON.stringify(v))).toBeGreaterThan(60_000);
    const json = JSON.stringify(shrinkJson(v, budget.dataTokens)!.value);
    expect(o200k(json)).toBeLessThanOrEqual(budget.dataTokens);
    expect(o200k(json)).toBeGreaterThan(15_000);
  });

  it('notes mention paging arguments when the tool has them', () => {
    const out = shrinkJson({ items: Array.from({ length: 100 }, (_, i) => i) }, 50)!;
    const paging = pagingArgs({ type: 'object', properties: { per_page: {}, page: {}, q: {} } });
    expect(paging).toEqual(['per_page', 'page']);
    expect(truncationNote(out, 25000, paging)).toMatch(/^Result shortened to fit the ~25000-token budget\. \$\.items: kept \d+ of 100 items\. To see the rest, call again with the pagination arguments \(per_page, page\)/);
  });
});

describe('withinBudget, the last bound, in tokens', () => {
  const budget = resultBudget(25_000);

  it('a CJK error text of 40,000 characters (over 25,000 tokens, under the old 100,000-character bound) is cut to the budget', () => {
    const error = { content: [{ type: 'text' as const, text: `Could not reach the upstream: ${CJK.repeat(1_000).slice(0, 40_000)}` }], isError: true };
    expect(o200k(text(error))).toBeGreaterThan(25_000);
    const cut = withinBudget(error, budget);
    expect(text(cut)).toMatch(/ … \([\d,]+ characters cut: the text was over the 25,000-token result budget\)$/);
    expect(o200k(text(cut))).toBeLessThanOrEqual(25_000);
    expect(cut.isError).toBe(true);
  });

  it('several text blocks share the budget; a block with no room left is emptied', () => {
    const r = { content: [{ type: 'text' as const, text: CJK.repeat(400) }, { type: 'text' as const, text: CJK.repeat(400) }], isError: true };
    const cut = withinBudget(r, resultBudget(1_000));
    expect(o200k(text(cut))).toBeLessThanOrEqual(1_000);
    expect((cut.content[0] as { text: string }).text.length).toBeGreaterThan(100);
  });

  it('a success whose structuredContent is over the budget (a meta-tool answer) is shortened like an upstream result', () => {
    const answer = { name: 't', title: 't', description: CJK.repeat(1_000), inputSchema: { type: 'object', properties: { a: { enum: ['x', 'y'] } } } };
    const r = { content: [{ type: 'text' as const, text: JSON.stringify(answer) }], structuredContent: answer };
    const cut = withinBudget(r, budget);
    const sc = cut.structuredContent as typeof answer;
    expect(sc.inputSchema).toEqual(answer.inputSchema);
    expect(sc.description).toMatch(/characters cut\]$/);
    expect(JSON.parse((cut.content[0] as { text: string }).text)).toEqual(sc);
    expect((cut.content[1] as { text: string }).text).toMatch(/^Result shortened to fit the ~25000-token budget/);
    expect(o200k(text(cut))).toBeLessThanOrEqual(25_000);
    expect(o200k(JSON.stringify(sc))).toBeLessThanOrEqual(25_000);
  });

  it('a result its maker fitted is passed as it is, without measuring', () => {
    const r = fittedToBudget({ content: [{ type: 'text' as const, text: CJK.repeat(5_000) }] });
    expect(withinBudget(r, budget)).toBe(r);
  });

  it('a note is cut to its room in tokens', () => {
    const note = fitNote(CJK.repeat(100), budget);
    expect(note.endsWith('…')).toBe(true);
    expect(estimateTokens(note)).toBeLessThanOrEqual(budget.noteTokens);
    expect(fitNote('Showing 3 of 9 items.', budget)).toBe('Showing 3 of 9 items.');
  });
});
