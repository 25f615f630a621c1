// Arguments JSON cannot carry (src/catalogue/json-numbers.ts), quoted input cut (src/lib/cut-quote.ts) and the last
// bound on a written result (src/results/within-budget.ts), on their own; the same through the Worker is in
// test/worker/mcp-hostile-input.test.ts.
import { Validator } from '@cfworker/json-schema';
import { describe, expect, it } from 'vitest';
import { validate, validateArguments } from '../../src/catalogue/validator.ts';
import { cutQuote } from '../../src/lib/cut-quote.ts';
import { estimateTokens } from '../../src/lib/tokens.ts';
import { resultBudget } from '../../src/results/budget.ts';
import { withinBudget } from '../../src/results/within-budget.ts';

const issue = { type: 'object', properties: { issue_number: { type: 'integer' }, page: { type: ['integer', 'null'] }, ratio: { type: 'number' }, ids: { type: 'array', items: { type: 'integer' } } }, required: ['issue_number'] } as const;

describe('numbers an argument cannot be', () => {
  it('@cfworker alone takes Infinity for an integer, which is why the arguments are walked first', () => {
    expect(new Validator({ type: 'integer' } as never, '2020-12', false).validate(Infinity).valid).toBe(true);
    expect(validate(issue, { issue_number: Infinity }).valid).toBe(true);
  });

  it('Infinity, -Infinity and NaN are refused wherever they are, naming the argument', () => {
    expect(validateArguments(issue, { issue_number: Infinity }).errors).toEqual(['/issue_number: Infinity is not a number JSON can carry; send a finite number']);
    expect(validateArguments(issue, { issue_number: 1, ratio: NaN }).errors).toEqual(['/ratio: NaN is not a number JSON can carry; send a finite number']);
    expect(validateArguments(issue, { issue_number: 1, ids: [1, -Infinity] }).errors).toEqual(['/ids/1: -Infinity is not a number JSON can carry; send a finite number']);
    expect(validateArguments(issue, { issue_number: 1, other: { deep: [NaN] } }).errors).toEqual(['/other/deep/0: NaN is not a number JSON can carry; send a finite number']);
  });

  it('an integer past 2^53 is refused where the schema says integer, and kept where it says number', () => {
    const over = 2 ** 53 + 2;
    expect(validateArguments(issue, { issue_number: over }).errors[0]).toMatch(/^\/issue_number: 9007199254740994 is outside the exact integer range \(±9007199254740991\)/);
    expect(validateArguments(issue, { issue_number: 1, page: -over }).errors[0]).toMatch(/^\/page: -9007199254740994 is outside/);
    expect(validateArguments(issue, { issue_number: 1, ids: [over] }).errors[0]).toMatch(/^\/ids\/0: /);
    expect(validateArguments(issue, { issue_number: 1, ratio: 1e300 }).valid).toBe(true);
    expect(validateArguments(issue, { issue_number: Number.MAX_SAFE_INTEGER, page: -Number.MAX_SAFE_INTEGER }).valid).toBe(true);
  });

  it('arguments nested 100,000 deep are walked without a stack overflow', () => {
    let deep: unknown = Infinity;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const errors = validateArguments(issue, { issue_number: 1, deep }).errors;
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^\/deep\/0\/0\/0.*… \(\d{3},\d{3} characters cut\): Infinity is not/);
  });
});

describe('quoted input and written results are bounded', () => {
  it('cutQuote keeps 200 characters, never half a surrogate pair, and says how much went', () => {
    expect(cutQuote('a'.repeat(200))).toBe('a'.repeat(200));
    expect(cutQuote('a'.repeat(3_900_000))).toBe(`${'a'.repeat(200)}… (3,899,800 characters cut)`);
    expect(cutQuote(`${'a'.repeat(199)}😀😀`)).toBe(`${'a'.repeat(199)}… (4 characters cut)`);
  });

  it('an error text over the budget is cut to it with a note; fitting results are left alone', () => {
    const budget = resultBudget(25_000);
    const small = { content: [{ type: 'text' as const, text: 'fine' }], isError: true };
    expect(withinBudget(small, budget)).toBe(small);
    const big = { content: [{ type: 'text' as const, text: 'x'.repeat(3_900_000) }], isError: true };
    const cut = withinBudget(big, budget);
    const text = (cut.content[0] as { text: string }).text;
    expect(estimateTokens(text)).toBeLessThanOrEqual(budget.tokens);
    expect(text).toMatch(/x … \(3,8\d\d,\d{3} characters cut: the text was over the 25,000-token result budget\)$/);
    const structured = { content: [{ type: 'text' as const, text: 'y'.repeat(2_000) }], structuredContent: { y: 1 } };
    expect(withinBudget(structured, budget)).toBe(structured);
  });
});
