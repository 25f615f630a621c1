// Defaults of the per-call limits, free of Worker types so build-time tools (token report, bench) can import them.

/** Defaults of the per-call limits; UPSTREAM_TIMEOUT_MS, MAX_RESPONSE_BYTES and MAX_RESULT_TOKENS override the first three. */
export const LIMIT_DEFAULTS = {
  timeoutMs: 30_000,
  maxResponseBytes: 10 * 1024 * 1024,
  maxResultTokens: 25_000,
  /** Largest image/audio/file body embedded as base64 (also capped by maxResponseBytes). */
  maxBinaryBytes: 5 * 1024 * 1024,
} as const;

/** Approximate characters per token, for turning the result token budget into characters. */
export const CHARS_PER_TOKEN = 4;
