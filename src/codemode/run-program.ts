// execute(code): compile the program in the compiler's Dynamic Worker, run it once in a fresh Dynamic Worker with
// no network whose only binding is the CodeModeApi entrypoint, and turn what comes back (untrusted) into an outcome.
// Never throws: every failure is an outcome the model can read (format.ts).
import type { CodeLimits } from '../limit-defaults.ts';
import { CHARS_PER_TOKEN } from '../limit-defaults.ts';
import { log as logLine } from '../lib/log.ts';
import type { ToolCall } from './api-reply.ts';
import type { CompileResult } from './compile.ts';
import { COMPILER_SOURCE, RE2_SOURCE } from '../codemode-sources.ts';
import { HARNESS_MODULE, HARNESS_SOURCE } from './harness.ts';
import { CALLS_MODULE, CALLS_SOURCE } from './sandbox-calls.ts';
import { JSON_MODULE, JSON_SOURCE } from './sandbox-json.ts';
import type { ExecError, ExecErrorKind, ExecuteOutcome } from './outcome.ts';
import { estimateTokens, fitTokens } from '../lib/tokens.ts';
import { closeRun, openRun, type CodeModeApiProps } from './runs.ts';
import { LOCKDOWN_MODULE, LOCKDOWN_SOURCE } from './sandbox-lockdown.ts';
import { COSTS_MODULE, COSTS_SOURCE } from './sandbox-costs.ts';
import { MEMORY_MODULE, MEMORY_SOURCE } from './sandbox-memory.ts';
import { ENGINE_MODULE, engineSource, RE2_MODULE, REGEX_MODULE, REGEX_SOURCE } from './sandbox-regex.ts';

/** The sandbox's compatibility date; no compatibility flags (no nodejs_compat). */
export const SANDBOX_COMPATIBILITY_DATE = '2026-10-01';
/** The host waits this much longer than the wall limit, so the sandbox's own timeout (with its line) wins. */
const HOST_GRACE_MS = 1_000;
const MAX_MESSAGE_CHARS = 4_000;
const PROGRAM_MODULE = 'program.js';
const GUARDS_SOURCE = 'export let g, s, c, x, f;\nexport function install(o) { g = o.g; s = o.s; c = o.c; x = o.x; f = o.f; }\n';
/** Production CPU for one compile (a 100,000-character program takes well under a second). */
const COMPILER_CPU_MS = 5_000;

export interface ExecuteCodeOptions {
  /** env.LOADER ([[worker_loaders]] in wrangler.toml). */
  loader: WorkerLoader;
  /** ctx.exports.CodeModeApi: makes the sandbox's env.API binding from its props. */
  apiEntrypoint: (options: { props: CodeModeApiProps }) => Fetcher;
  /** Runs one tool for the sandbox; phase 2 passes "this tool with this request's scope". */
  call: ToolCall;
  limits: CodeLimits;
  /** One line per execute (never the code, arguments or values). Default: the `codemode_execute` log line. */
  log?: (fields: Record<string, unknown>) => void;
}

interface SandboxReply {
  ok?: unknown;
  json?: unknown;
  /** Set instead of json when the value is over the whole result budget. */
  oversize?: unknown;
  error?: { kind?: unknown; name?: unknown; message?: unknown; line?: unknown; tool?: unknown };
  logs?: unknown;
  dropped?: unknown;
  /** Console output was cut inside a value, so `dropped` is a lower bound. */
  cut?: unknown;
}

export async function executeCode(code: string, opts: ExecuteCodeOptions): Promise<ExecuteOutcome> {
  const started = Date.now();
  const { limits } = opts;
  const log = opts.log ?? ((fields: Record<string, unknown>) => logLine('codemode_execute', fields));
  const finish = (outcome: Omit<ExecuteOutcome, 'ms'>): ExecuteOutcome => {
    const done = { ...outcome, ms: Date.now() - started };
    log({ outcome: done.ok ? 'ok' : done.error?.kind, calls: done.calls, ms: done.ms, codeChars: code.length });
    return done;
  };

  let compiled: CompileResult;
  try {
    compiled = await compile(opts.loader, code, limits.maxCodeChars);
  } catch (error) {
    return finish({ ok: false, error: { kind: 'internal', message: `The compiler failed: ${String((error as Error)?.message ?? error).slice(0, 300)}` }, logs: '', droppedLogChars: 0, calls: 0 });
  }
  if (!compiled.ok) return finish({ ok: false, error: compiled.error, logs: '', droppedLogChars: 0, calls: 0 });

  const run = openRun(opts.call, limits);
  let reply: SandboxReply | 'timeout';
  try {
    const worker = opts.loader.load({
      compatibilityDate: SANDBOX_COMPATIBILITY_DATE,
      mainModule: HARNESS_MODULE,
      modules: sandboxModules(compiled.module, compiled.regex, limits),
      env: { API: opts.apiEntrypoint({ props: { run } }) },
      globalOutbound: null,
      // Enforced in production only; the harness guards enforce the same limits locally.
      limits: { cpuMs: limits.cpuMs, subRequests: limits.maxCalls + 1 },
    });
    const entry = worker.getEntrypoint() as unknown as { run(): Promise<SandboxReply> };
    reply = await withTimeout(entry.run(), limits.timeoutMs + HOST_GRACE_MS);
  } catch (error) {
    const closed = closeRun(run);
    return finish({ ok: false, error: closed.limitHit ? limitError(closed.limitHit) : platformError(error, limits), logs: '', droppedLogChars: 0, calls: closed.calls });
  }
  const closed = closeRun(run);
  if (reply === 'timeout') {
    const message = `Time limit: the program did not finish within ${limits.timeoutMs} ms (it was still waiting for a timer, an api call or a promise).`;
    return finish({ ok: false, error: limitError(message), logs: '', droppedLogChars: 0, calls: closed.calls });
  }
  const logTokens = Math.floor(limits.logChars / CHARS_PER_TOKEN);
  const rawLogs = typeof reply.logs === 'string' ? reply.logs.slice(0, limits.logChars) : '';
  const logs = fitTokens(rawLogs, logTokens);
  const droppedLogChars = (typeof reply.dropped === 'number' ? reply.dropped : 0) + (typeof reply.logs === 'string' ? reply.logs.length - logs.length : 0);
  const base = { logs, droppedLogChars, ...(reply.cut === true ? { droppedAtLeast: true } : {}), calls: closed.calls };
  const sandboxError = reply.ok === true ? undefined : readError(reply.error);
  // The host's own record is authoritative: a call refused for a limit (calls, the key's rate) fails the execution
  // even if the program caught the refusal or reached the binding some other way.
  if (closed.limitHit) return finish({ ok: false, error: { ...sandboxError, ...limitError(closed.limitHit) }, ...base });
  if (sandboxError) return finish({ ok: false, error: sandboxError, ...base });
  const json = typeof reply.json === 'string' ? reply.json : undefined;
  if (json === undefined && !Number.isSafeInteger(reply.oversize)) return finish({ ok: true, ...base });
  // Tokens, as every result of this server is budgeted; CJK text counts about one token per character.
  const budget = Math.floor(limits.resultChars / CHARS_PER_TOKEN);
  const room = budget - estimateTokens(logs);
  // An oversized value was not written to its end: the sandbox stopped one character past the budget.
  const tokens = json === undefined ? budget : estimateTokens(json);
  if (json === undefined || tokens > room) {
    const message =
      `Result limit: the return value is ${json === undefined ? 'more than' : 'about'} ${tokens} tokens of JSON, over the ${room} tokens left in the result budget ` +
      `(${budget} tokens in all, console output included). Return only what you need: pick fields, slice arrays or return counts.`;
    return finish({ ok: false, error: limitError(message), ...base });
  }
  return finish({ ok: true, json, ...base });
}

/**
 * The sandbox's modules: the harness and its parts, this execution's limits, and the program. The RegExp engine
 * (re2js, about 150 KiB) only for programs that may use regular expressions: it adds 10–30 ms to a fresh isolate.
 */
export function sandboxModules(program: string, regex: boolean, limits: CodeLimits): Record<string, string> {
  return {
    [HARNESS_MODULE]: HARNESS_SOURCE,
    [LOCKDOWN_MODULE]: LOCKDOWN_SOURCE,
    [MEMORY_MODULE]: MEMORY_SOURCE,
    [COSTS_MODULE]: COSTS_SOURCE,
    [JSON_MODULE]: JSON_SOURCE,
    [CALLS_MODULE]: CALLS_SOURCE,
    [REGEX_MODULE]: REGEX_SOURCE,
    [ENGINE_MODULE]: engineSource(regex),
    ...(regex ? { [RE2_MODULE]: RE2_SOURCE } : {}),
    'guards.js': GUARDS_SOURCE,
    'limits.js': `export default ${JSON.stringify(limits)};\n`,
    [PROGRAM_MODULE]: program,
  };
}

let compilerName: string | undefined;

/** Compiles in the compiler's Dynamic Worker, kept warm by the loader under a name that changes with its code. */
async function compile(loader: WorkerLoader, code: string, maxChars: number): Promise<CompileResult> {
  compilerName ??= `codemode-compiler-${fnv1a(COMPILER_SOURCE)}`;
  const worker = loader.get(compilerName, () => ({
    compatibilityDate: SANDBOX_COMPATIBILITY_DATE,
    mainModule: 'compiler.js',
    modules: { 'compiler.js': COMPILER_SOURCE },
    globalOutbound: null,
    limits: { cpuMs: COMPILER_CPU_MS },
  }));
  const entry = worker.getEntrypoint() as unknown as { compile(code: string, maxChars: number): Promise<CompileResult> };
  return entry.compile(code, maxChars);
}

function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16);
}

function limitError(message: string): ExecError {
  return { kind: 'limit', name: 'LimitError', message };
}

function readError(raw: SandboxReply['error']): ExecError {
  const kinds: ExecErrorKind[] = ['error', 'api', 'limit'];
  const kind = kinds.includes(raw?.kind as ExecErrorKind) ? (raw?.kind as ExecErrorKind) : 'internal';
  const out: ExecError = { kind, message: typeof raw?.message === 'string' ? raw.message.slice(0, MAX_MESSAGE_CHARS) : 'The sandbox returned a malformed error.' };
  if (typeof raw?.name === 'string') out.name = raw.name.slice(0, 100);
  if (Number.isSafeInteger(raw?.line) && (raw?.line as number) > 0) out.line = raw?.line as number;
  if (typeof raw?.tool === 'string') out.tool = raw.tool.slice(0, 128);
  return out;
}

// The platform ends a Dynamic Worker that exceeds its production limits with an exception.
function platformError(error: unknown, limits: CodeLimits): ExecError {
  const message = error instanceof Error ? error.message : String(error);
  // workerd cancels a request whose code awaits something that can never settle.
  if (/hung|never generate a response/i.test(message)) {
    return limitError('The program waits for a promise that can never settle, so it cannot finish.');
  }
  if (/cpu/i.test(message)) return limitError(`CPU limit: the program computed for more than ${limits.cpuMs} ms.`);
  if (/memory/i.test(message)) return limitError('Memory limit: the program used more memory than its sandbox allows.');
  if (/subrequest/i.test(message)) return limitError(`Call limit: more than ${limits.maxCalls} api calls in one execute.`);
  return { kind: 'internal', message: `The sandbox stopped unexpectedly: ${message.slice(0, 500)}` };
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
