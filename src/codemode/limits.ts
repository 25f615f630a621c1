// Per-execution limits of code mode, read from wrangler vars. Every limit is enforced twice where it can be:
// by the platform in production (Dynamic Worker `limits`, isolate memory) and by our own guards, because local
// workerd enforces neither CPU nor memory (docs/code-mode.md).
import { CHARS_PER_TOKEN, LIMIT_DEFAULTS } from '../limit-defaults.ts';

/** The wrangler vars code mode reads (all optional strings; invalid or empty values fall back to the default). */
export interface CodeModeVars {
  /** Wall time of one execute, in ms (default 30000). */
  CODE_TIMEOUT_MS?: string;
  /** CPU time of one execute, in ms (default 1000): the Dynamic Worker's `limits.cpuMs`, estimated locally. */
  CODE_CPU_MS?: string;
  /** api calls per execute (default 50). */
  CODE_MAX_CALLS?: string;
  /** Loop iterations plus function calls per execute (default 5000000): the local guard against endless code. */
  CODE_MAX_STEPS?: string;
  /** Bulk allocations per execute, in MB (default 64): the local guard against memory bombs. */
  CODE_MEMORY_MB?: string;
  /** console output kept per execute, in tokens (default 5000; at most half the result budget). */
  CODE_MAX_LOG_TOKENS?: string;
  /** Largest program accepted, in characters (default 100000). */
  CODE_MAX_CODE_CHARS?: string;
  /** The result budget shared with tools/call (default 25000 tokens). */
  MAX_RESULT_TOKENS?: string;
}

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
}

export const DEFAULT_CODE_LIMITS: CodeLimits = limitsFrom({});

export function readCodeLimits(vars: CodeModeVars): CodeLimits {
  return limitsFrom(vars);
}

function limitsFrom(vars: CodeModeVars): CodeLimits {
  const resultChars = positiveInt(vars.MAX_RESULT_TOKENS, LIMIT_DEFAULTS.maxResultTokens) * CHARS_PER_TOKEN;
  return {
    timeoutMs: positiveInt(vars.CODE_TIMEOUT_MS, 30_000),
    cpuMs: positiveInt(vars.CODE_CPU_MS, 1_000),
    maxCalls: positiveInt(vars.CODE_MAX_CALLS, 50),
    maxSteps: positiveInt(vars.CODE_MAX_STEPS, 5_000_000),
    memoryBytes: positiveInt(vars.CODE_MEMORY_MB, 64) * 1024 * 1024,
    resultChars,
    logChars: Math.min(positiveInt(vars.CODE_MAX_LOG_TOKENS, 5_000) * CHARS_PER_TOKEN, Math.floor(resultChars / 2)),
    maxCodeChars: positiveInt(vars.CODE_MAX_CODE_CHARS, 100_000),
  };
}

function positiveInt(raw: string | undefined, fallback: number): number {
  const n = Number(raw);
  return raw !== undefined && raw.trim() !== '' && Number.isSafeInteger(n) && n > 0 ? n : fallback;
}
