// The last bound on what the server writes for a tools/call: whatever path made the result (an upstream error, a
// refusal, a meta-tool, an execute), it fits the result budget in estimated tokens (src/lib/tokens.ts). The steps that
// fit upstream results keep them within it already and mark them (`fittedToBudget`), so a large result is measured
// once; this catches what no step fitted, such as an error that quotes a 4 MB argument in CJK.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { estimateTokens, fitTokens, MAX_TOKENS_PER_UNIT, withinTokens } from '../lib/tokens.ts';
import { fitNote, type ResultBudget } from './budget.ts';
import { shrinkJson, truncationNote } from './shrink-json.ts';

const fitted = new WeakSet<object>();

/** Marks a result its maker fitted to the budget: the last bound passes it without measuring it again. */
export function fittedToBudget<T extends CallToolResult>(result: T): T {
  fitted.add(result);
  return result;
}

type Block = CallToolResult['content'][number];

/**
 * `result` as it is when it fits `budget.tokens`: its text blocks together, and its structuredContent's JSON (which a
 * client may show the model instead). Else a success's structuredContent is shortened like an upstream JSON result
 * (valid JSON, the same keys and types) and becomes its text; anything else has its text blocks cut, the last one
 * ending with what was cut.
 */
export function withinBudget(result: CallToolResult, budget: ResultBudget): CallToolResult {
  if (fitted.has(result)) return result;
  const content: Block[] = Array.isArray(result.content) ? result.content : [];
  const structured = !result.isError && result.structuredContent !== undefined ? result.structuredContent : undefined;
  const textsFit = textsWithin(content, budget.tokens);
  if (textsFit && (structured === undefined || withinTokens(JSON.stringify(structured), budget.tokens))) return result;
  if (structured !== undefined) {
    const shrunk = shrinkJson(structured, budget.dataTokens);
    if (shrunk) {
      const value = shrunk.value as Record<string, unknown>;
      const note = fitNote(truncationNote(shrunk, budget.tokens, []), budget);
      return { ...result, content: [{ type: 'text', text: JSON.stringify(value) }, { type: 'text', text: note }], structuredContent: value };
    }
  }
  return { ...result, content: cutTexts(content, budget) };
}

/** Whether the text blocks together are estimated within `tokens`. */
function textsWithin(content: Block[], tokens: number): boolean {
  const texts = content.flatMap((b) => (b.type === 'text' ? [b.text] : []));
  if (texts.length === 1) return withinTokens(texts[0]!, tokens);
  let chars = 0;
  for (const t of texts) chars += t.length;
  if (chars * MAX_TOKENS_PER_UNIT <= tokens) return true;
  let sum = 0;
  for (const t of texts) if ((sum += estimateTokens(t)) > tokens) return false;
  return true;
}

/** The text blocks cut, in order, to the budget's data room; the last one says what was cut. */
function cutTexts(content: Block[], budget: ResultBudget): Block[] {
  let room = budget.dataTokens;
  let cut = 0;
  const out = content.map((block) => {
    if (block.type !== 'text') return block;
    const kept = room > 0 ? fitTokens(block.text, room) : '';
    room -= estimateTokens(kept);
    cut += block.text.length - kept.length;
    return kept === block.text ? block : { ...block, text: kept };
  });
  const note = ` … (${cut.toLocaleString('en-US')} characters cut: the text was over the ${budget.tokens.toLocaleString('en-US')}-token result budget)`;
  const last = out.findLastIndex((b) => b.type === 'text');
  if (last < 0) return out;
  const block = out[last] as { type: 'text'; text: string };
  out[last] = { ...block, text: block.text + note };
  return out;
}
