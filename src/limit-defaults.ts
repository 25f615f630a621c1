// The limits' defaults and how wrangler vars override them, free of Worker types so build-time tools (token report,
// bench) can import them. src/config.ts reads them into the one Config.

/** Defaults of the per-call limits; UPSTREAM_TIMEOUT_MS, MAX_RESPONSE_BYTES and MAX_RESULT_TOKENS override the first three. */
export const LIMIT_DEFAULTS = {
  timeoutMs: 30_000,
  maxResponseBytes: 10 * 1024 * 1024,
  maxResultTokens: 25_000,
  /** Largest image/audio/file body embedded as base64 (also capped by maxResponseBytes). */
  maxBinaryBytes: 5 * 1024 * 1024,
  /** Upstream calls of one key running at once in an isolate (MAX_CALLS_PER_KEY); more wait their turn. */
  maxCallsPerKey: 6,
} as const;

/**
 * Characters per token for the bounds that come before a token count: code mode's sandbox writes at most this many
 * characters a token of a result and of its console output; the host then estimates the tokens (src/lib/tokens.ts).
 */
export const CHARS_PER_TOKEN = 4;

/** A var as a positive integer; unset, empty or invalid values fall back to the default. */
export function positiveInt(raw: string | undefined, fallback: number): number {
  const n = Number(raw);
  return raw !== undefined && raw.trim() !== '' && Number.isSafeInteger(n) && n > 0 ? n : fallback;
}

/** The wrangler vars code mode's limits come from (docs/code-mode.md, "Limits"). */
export interface CodeModeVars {
  CODE_TIMEOUT_MS?: string;
  CODE_CPU_MS?: string;
  CODE_MAX_CALLS?: string;
  CODE_MAX_STEPS?: string;
  CODE_MEMORY_MB?: string;
  CODE_MAX_LOG_TOKENS?: string;
  CODE_MAX_CODE_CHARS?: string;
  CODE_MAX_ARG_BYTES?: string;
  CODE_MAX_INFLIGHT_ARG_BYTES?: string;
  CODE_MAX_PARALLEL_CALLS?: string;
  CODE_MAX_EXECUTES_PER_KEY?: string;
  CODE_MAX_EXECUTES?: string;
  MAX_RESULT_TOKENS?: string;
}

/**
 * Per-execution limits of code mode. Every limit is enforced twice where it can be: by the platform in production
 * (Dynamic Worker `limits`, isolate memory) and by the sandbox's own guards, because local workerd enforces neither
 * CPU nor memory.
 */
export interface CodeLimits {
  timeoutMs: number;
  cpuMs: number;
  maxCalls: number;
  maxSteps: number;
  memoryBytes: number;
  /** Characters of the whole result: the return value's JSON plus the console output. */
  resultChars: number;
  /** Characters of console output kept (the rest is dropped with a note). */
  logChars: number;
  maxCodeChars: number;
  /**
   * Host-side budgets, charged before the work is done (docs/code-mode.md, "Host-side budgets"). The JSON of one api
   * call's arguments, in characters (bytes for ASCII): what the host receives and holds while the call runs.
   */
  maxArgBytes: number;
  /** The JSON of the arguments of all api calls in flight at once in one execute, in characters. */
  maxInflightArgBytes: number;
  /** Api calls of one execute in flight at once; the sandbox queues the rest in order. */
  maxParallelCalls: number;
  /** Executes of one key running at once in one isolate; more are refused with a retry time. */
  maxExecutesPerKey: number;
  /** Executes running at once in one isolate, all keys together. */
  maxExecutes: number;
}

export function readCodeLimits(vars: CodeModeVars): CodeLimits {
  const resultChars = positiveInt(vars.MAX_RESULT_TOKENS, LIMIT_DEFAULTS.maxResultTokens) * CHARS_PER_TOKEN;
  const maxArgBytes = positiveInt(vars.CODE_MAX_ARG_BYTES, 1024 * 1024);
  return {
    timeoutMs: positiveInt(vars.CODE_TIMEOUT_MS, 30_000),
    cpuMs: positiveInt(vars.CODE_CPU_MS, 1_000),
    maxCalls: positiveInt(vars.CODE_MAX_CALLS, 50),
    maxSteps: positiveInt(vars.CODE_MAX_STEPS, 5_000_000),
    memoryBytes: positiveInt(vars.CODE_MEMORY_MB, 64) * 1024 * 1024,
    resultChars,
    logChars: Math.min(positiveInt(vars.CODE_MAX_LOG_TOKENS, 5_000) * CHARS_PER_TOKEN, Math.floor(resultChars / 2)),
    maxCodeChars: positiveInt(vars.CODE_MAX_CODE_CHARS, 100_000),
    maxArgBytes,
    // A single call always fits in flight.
    maxInflightArgBytes: Math.max(maxArgBytes, positiveInt(vars.CODE_MAX_INFLIGHT_ARG_BYTES, 4 * 1024 * 1024)),
    maxParallelCalls: positiveInt(vars.CODE_MAX_PARALLEL_CALLS, 6),
    maxExecutesPerKey: positiveInt(vars.CODE_MAX_EXECUTES_PER_KEY, 2),
    maxExecutes: positiveInt(vars.CODE_MAX_EXECUTES, 8),
  };
}

export const DEFAULT_CODE_LIMITS: CodeLimits = readCodeLimits({});
