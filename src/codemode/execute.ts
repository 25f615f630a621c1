// execute(code): compile the program (lazily imported compiler), run it once in a fresh Dynamic Worker with no
// network whose only binding is the CodeModeApi entrypoint, and turn what comes back (untrusted) into an outcome.
// Never throws: every failure is an outcome the model can read (format.ts).
import type { CodeLimits } from '../limit-defaults.ts';
import { log as logLine } from '../lib/log.ts';
import type { ToolCall } from './api-reply.ts';
import { HARNESS_MODULE, HARNESS_SOURCE } from './harness.ts';
import type { ExecError, ExecErrorKind, ExecuteOutcome } from './outcome.ts';
import { closeRun, openRun, type CodeModeApiProps } from './runs.ts';

/** The sandbox's compatibility date; no compatibility flags (no nodejs_compat). */
export const SANDBOX_COMPATIBILITY_DATE = '2026-10-01';
/** The host waits this much longer than the wall limit, so the sandbox's own timeout (with its line) wins. */
const HOST_GRACE_MS = 1_000;
const MAX_MESSAGE_CHARS = 4_000;

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

  const { compileProgram, PROGRAM_MODULE } = await import('./compile.ts');
  const compiled = compileProgram(code, limits.maxCodeChars);
  if (!compiled.ok) return finish({ ok: false, error: compiled.error, logs: '', droppedLogChars: 0, calls: 0 });

  const run = openRun(opts.call, limits.maxCalls);
  let reply: SandboxReply | 'timeout';
  try {
    const worker = opts.loader.load({
      compatibilityDate: SANDBOX_COMPATIBILITY_DATE,
      mainModule: HARNESS_MODULE,
      modules: { [HARNESS_MODULE]: HARNESS_SOURCE, [PROGRAM_MODULE]: compiled.module },
      env: { API: opts.apiEntrypoint({ props: { run } }) },
      globalOutbound: null,
      // Enforced in production only; the harness guards enforce the same limits locally.
      limits: { cpuMs: limits.cpuMs, subRequests: limits.maxCalls + 1 },
    });
    const entry = worker.getEntrypoint() as unknown as { run(limits: CodeLimits): Promise<SandboxReply> };
    reply = await withTimeout(entry.run(limits), limits.timeoutMs + HOST_GRACE_MS);
  } catch (error) {
    const closed = closeRun(run);
    return finish({ ok: false, error: platformError(error, limits), logs: '', droppedLogChars: 0, calls: closed.calls });
  }
  const closed = closeRun(run);
  if (reply === 'timeout') {
    const message = `Time limit: the program did not finish within ${limits.timeoutMs} ms (is it waiting for a promise that never settles?).`;
    return finish({ ok: false, error: { kind: 'limit', name: 'LimitError', message }, logs: '', droppedLogChars: 0, calls: closed.calls });
  }
  const logs = typeof reply.logs === 'string' ? reply.logs.slice(0, limits.logChars) : '';
  const droppedLogChars = (typeof reply.dropped === 'number' ? reply.dropped : 0) + (typeof reply.logs === 'string' ? reply.logs.length - logs.length : 0);
  const base = { logs, droppedLogChars, calls: closed.calls };
  const sandboxError = reply.ok === true ? undefined : readError(reply.error);
  // The host's own call count is authoritative: a refused call fails the execution even if the program caught it.
  if (closed.limitHit) return finish({ ok: false, error: { ...sandboxError, kind: 'limit', name: 'LimitError', message: closed.limitHit }, ...base });
  if (sandboxError) return finish({ ok: false, error: sandboxError, ...base });
  const json = typeof reply.json === 'string' ? reply.json : undefined;
  const size = json?.length ?? (Number.isSafeInteger(reply.oversize) ? (reply.oversize as number) : undefined);
  if (size === undefined) return finish({ ok: true, ...base });
  const room = limits.resultChars - logs.length;
  if (json === undefined || size > room) {
    const message =
      `Result limit: the return value is ${size} characters of JSON, over the ${room} characters left in the result budget ` +
      `(${limits.resultChars} characters in all, console output included). Return only what you need: pick fields, slice arrays or return counts.`;
    return finish({ ok: false, error: { kind: 'limit', name: 'LimitError', message }, ...base });
  }
  return finish({ ok: true, json, ...base });
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
    return { kind: 'limit', name: 'LimitError', message: 'The program waits for a promise that can never settle, so it cannot finish.' };
  }
  if (/cpu/i.test(message)) return { kind: 'limit', name: 'LimitError', message: `CPU limit: the program computed for more than ${limits.cpuMs} ms.` };
  if (/memory/i.test(message)) return { kind: 'limit', name: 'LimitError', message: 'Memory limit: the program used more memory than its sandbox allows.' };
  if (/subrequest/i.test(message)) return { kind: 'limit', name: 'LimitError', message: `Call limit: more than ${limits.maxCalls} api calls in one execute.` };
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
