// The usage table's shape, shared by the Worker (writes, /admin/usage) and the operator CLI (reads).
// migrations/0001_usage.sql creates exactly these columns; test/worker/usage-store.test.ts checks they agree.
// Runtime-neutral: no Workers or Node types, so scripts/ can import it.
import { CALL_OUTCOMES, type CallOutcome } from '../lib/call-outcome.ts';
import { BUCKETS } from './histogram.ts';

/**
 * How one metered request ended: every tool call outcome (src/lib/call-outcome.ts, what the executor records) and
 * the refusals, which run no tool: `rate_limited`, a request the per-key limiter refused, and `out_of_scope`
 * (migrations/0002), a call of a catalogue tool outside the key's scope or the URL's slice (src/tools/scope-refusal.ts).
 */
export const OUTCOMES = [...CALL_OUTCOMES, 'rate_limited', 'out_of_scope'] as const satisfies readonly (CallOutcome | Refusal)[];
export type UsageOutcome = (typeof OUTCOMES)[number];
type Refusal = 'rate_limited' | 'out_of_scope';

/** Requests refused before any tool ran: counted apart from calls, with no latency or result bytes. */
export const REFUSALS: ReadonlySet<string> = new Set<Refusal>(['rate_limited', 'out_of_scope']);

/** The isError kinds: every outcome except success and refusals. */
export const ERROR_KINDS = OUTCOMES.filter((o) => o !== 'ok' && !REFUSALS.has(o)) as Exclude<UsageOutcome, 'ok' | Refusal>[];
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
