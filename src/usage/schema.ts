// The usage table's shape, shared by the Worker (writes, /admin/usage) and the operator CLI (reads).
// migrations/0001_usage.sql creates exactly these columns; test/worker/usage-store.test.ts checks they agree.
// Runtime-neutral: no Workers or Node types, so scripts/ can import it.
import { BUCKETS } from './histogram.ts';

/**
 * How one metered request ended. `ok` and the error kinds are tools/call executions (they carry latency and result
 * bytes); the refusals run no tool: `rate_limited` is a request the per-key limiter refused, `out_of_scope` a call of
 * a catalogue tool outside the key's scope or the URL's slice (src/tools/scope-refusal.ts).
 */
export const OUTCOMES = [
  'ok',
  'invalid_arguments',
  'upstream_4xx',
  'upstream_5xx',
  'timeout',
  'schema_mismatch',
  'invalid_json',
  'network_error',
  'too_large',
  'redirect_not_followed',
  'internal_error',
  'rate_limited',
  // Added by migrations/0002_out_of_scope.sql.
  'out_of_scope',
] as const;
export type UsageOutcome = (typeof OUTCOMES)[number];

/**
 * The usage outcome of a tools/call, from the executor's outcome name (the `outcome` of its tool_call log line) and
 * the upstream HTTP status: `upstream_error` splits into 4xx and 5xx; a name this table does not know is counted as
 * internal_error.
 */
export function outcomeOf(executorOutcome: string, status?: number): UsageOutcome {
  if (executorOutcome === 'upstream_error') return status !== undefined && status >= 500 ? 'upstream_5xx' : 'upstream_4xx';
  return executorOutcome in OUTCOME_INDEX && !REFUSALS.has(executorOutcome) ? (executorOutcome as UsageOutcome) : 'internal_error';
}

/** Requests refused before any tool ran: counted apart from calls, with no latency or result bytes. */
export const REFUSALS: ReadonlySet<string> = new Set(['rate_limited', 'out_of_scope']);

/** The isError kinds: every outcome except success and refusals. */
export const ERROR_KINDS = OUTCOMES.filter((o) => o !== 'ok' && !REFUSALS.has(o)) as Exclude<UsageOutcome, 'ok' | 'rate_limited' | 'out_of_scope'>[];
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** Outcome name → column index; no prototype, so only outcome names are found in it. */
export const OUTCOME_INDEX: Readonly<Record<string, number>> = Object.assign(Object.create(null) as Record<string, number>, Object.fromEntries(OUTCOMES.map((o, i) => [o, i])));
export const INTERNAL_ERROR = OUTCOME_INDEX.internal_error!;

/** Latency histogram columns l00 … l64 (bucket i of histogram.ts). */
export const HIST_COLUMNS: readonly string[] = Array.from({ length: BUCKETS }, (_, i) => `l${String(i).padStart(2, '0')}`);

/** Every additive counter, in table order: outcome counts, then bytes and the latency sum, then the histogram. */
export const SUM_COLUMNS: readonly string[] = [...OUTCOMES, 'result_bytes', 'latency_sum_ms', ...HIST_COLUMNS];
/** Merged with max() rather than +. */
export const MAX_COLUMN = 'latency_max_ms';

export const TABLE = 'usage';
export const FLUSHES_TABLE = 'usage_flushes';
export const LOSS_TABLE = 'usage_loss';
export const META_TABLE = 'usage_meta';
/** usage_meta row: hourly rows are complete from this unix time on (retention.ts writes it, query.ts reads it). */
export const HOURLY_FROM = 'hourly_from';

/** Row grains: hourly rows for the recent past, daily rows for the long tail (docs/usage.md). */
export type Grain = 'h' | 'd';
export const HOUR_S = 3600;
export const DAY_S = 86_400;

/** Tool name stored for a rate-limit refusal: the limiter answers before the request body (and its tool) is read. */
export const NO_TOOL = '';
/** Longest key id and tool name the table accepts (CHECK constraints in the migration). */
export const MAX_NAME_LENGTH = 128;
