// What one execute produced, as plain data: the return value's JSON or an error, and the console output.
// Kept apart from run-program.ts so Node-side code (formatting, reports) needs no Worker types.

export type ExecErrorKind = 'syntax' | 'forbidden' | 'too_long' | 'error' | 'api' | 'limit' | 'internal';

export interface ExecError {
  kind: ExecErrorKind;
  /** Error class name for thrown errors (TypeError, ApiError, LimitError, …). */
  name?: string;
  message: string;
  /** 1-based line of the model's code. */
  line?: number;
  /** For kind 'api': the tool whose failure the program did not catch. */
  tool?: string;
}

export interface ExecuteOutcome {
  ok: boolean;
  /** The return value as JSON; absent when the program returned nothing. */
  json?: string;
  error?: ExecError;
  logs: string;
  /** Characters of console output dropped over the log budget. */
  droppedLogChars: number;
  /** A logged value was cut where it passed the budget, so more than droppedLogChars were dropped. */
  droppedAtLeast?: boolean;
  calls: number;
  ms: number;
}
