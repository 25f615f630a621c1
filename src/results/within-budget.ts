// The last bound on what the server writes for a tools/call: whatever path made the result (an upstream error, a
// refusal, a meta-tool, an execute), its text fits the result budget. The fitting steps keep successes within it
// already; this catches the texts no step fitted, such as an error that quotes a 4 MB argument.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ResultBudget } from './budget.ts';

/**
 * `result` as it is when its text content fits `budget.chars`; else its text blocks cut to fit, the last one ending
 * with what was cut. A success with structuredContent is left to the steps that fit it to its schema.
 */
export function withinBudget(result: CallToolResult, budget: ResultBudget): CallToolResult {
  const content = Array.isArray(result.content) ? result.content : [];
  let total = 0;
  for (const block of content) if (block.type === 'text') total += block.text.length;
  if (total <= budget.chars || (!result.isError && result.structuredContent !== undefined)) return result;
  let room = budget.dataChars;
  let cut = 0;
  const fitted = content.map((block) => {
    if (block.type !== 'text') return block;
    let keep = Math.max(0, Math.min(block.text.length, room));
    if (keep < block.text.length && keep > 0 && /[\ud800-\udbff]/.test(block.text[keep - 1]!)) keep--;
    room -= keep;
    cut += block.text.length - keep;
    return keep === block.text.length ? block : { ...block, text: block.text.slice(0, keep) };
  });
  const note = ` … (${cut.toLocaleString('en-US')} characters cut: the text was over the ${budget.tokens.toLocaleString('en-US')}-token result budget)`;
  const last = fitted.findLastIndex((b) => b.type === 'text');
  const block = fitted[last] as { type: 'text'; text: string };
  fitted[last] = { ...block, text: block.text + note };
  return { ...result, content: fitted };
}
