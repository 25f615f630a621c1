// The one result budget of a call: how many tokens a result may take (MAX_RESULT_TOKENS, estimated for any script by
// src/lib/tokens.ts), and how many of them are kept for the single note a shortened or shaped result carries. Every
// step that fits a result (pages that fit, whole items that fit, the generic shortening, the data beside a schema)
// fits the data into `dataTokens`, and every note is cut to `noteTokens`, so data plus note never exceed `tokens`.
import { fitTokens, withinTokens } from '../lib/tokens.ts';

export interface ResultBudget {
  /** The budget in estimated o200k tokens. */
  tokens: number;
  /** Tokens kept for one note (what was cut and how to get the rest). */
  noteTokens: number;
  /** Tokens for the data when a note may follow it. */
  dataTokens: number;
}

/** Room for a note: the longest (items cut, the next call's arguments, a field hint, nested resources shortened) is ~250. */
const NOTE_TOKENS = 300;

/** The budget for MAX_RESULT_TOKENS = `tokens`. */
export function resultBudget(tokens: number): ResultBudget {
  return { tokens, noteTokens: NOTE_TOKENS, dataTokens: Math.max(0, tokens - NOTE_TOKENS) };
}

/** A note cut to the room the budget keeps for it. */
export function fitNote(note: string, budget: ResultBudget): string {
  return withinTokens(note, budget.noteTokens) ? note : `${fitTokens(note, budget.noteTokens - 1)}…`;
}
