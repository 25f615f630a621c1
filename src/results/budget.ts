// The one result budget of a call: how many characters a result may take (MAX_RESULT_TOKENS × CHARS_PER_TOKEN), and
// how many of them are kept for the single note a shortened or shaped result carries. Every step that fits a result
// (pages that fit, whole items that fit, the generic shortening, the data beside a schema) fits the data into
// `dataChars`, and every note is cut to `noteChars`, so data plus note never exceed `chars`.
import { CHARS_PER_TOKEN } from '../limit-defaults.ts';

export interface ResultBudget {
  /** The budget in approximate tokens, as notes state it. */
  tokens: number;
  /** The budget in characters of JSON or text. */
  chars: number;
  /** Characters kept for one note (what was cut and how to get the rest). */
  noteChars: number;
  /** Characters for the data when a note may follow it. */
  dataChars: number;
}

/** Room for a note: the longest (items cut, the next call's arguments, a field hint, nested resources shortened) is ~600. */
const NOTE_CHARS = 800;

/** The budget for MAX_RESULT_TOKENS = `tokens`. */
export function resultBudget(tokens: number): ResultBudget {
  const chars = tokens * CHARS_PER_TOKEN;
  return { tokens, chars, noteChars: NOTE_CHARS, dataChars: Math.max(0, chars - NOTE_CHARS) };
}

/** A note cut to the room the budget keeps for it. */
export function fitNote(note: string, budget: ResultBudget): string {
  return note.length <= budget.noteChars ? note : `${note.slice(0, budget.noteChars - 1)}…`;
}
