// The executions alive in this isolate, by id. The sandbox's only binding is the CodeModeApi entrypoint
// (host-api.ts) whose ctx.props carry nothing but an execution's random id: the authority to call tools (the
// request's scope, its upstream credential, the tool caller) stays here, in host memory, and is dropped when
// the execution ends, so a stub kept past its execution is worthless (docs/code-mode.md, "Props").
import type { CodeLimits } from '../limit-defaults.ts';
import { log } from '../lib/log.ts';
import type { ApiReply, ToolCall } from './api-reply.ts';

/** ctx.props of the sandbox's CodeModeApi binding. */
export interface CodeModeApiProps {
  /** The execution's random id; no scope, key or credential. */
  run: string;
}

/** The limits the host holds an execution's calls to (docs/code-mode.md, "Host-side budgets"). */
export type RunLimits = Pick<CodeLimits, 'maxCalls' | 'maxArgBytes' | 'maxInflightArgBytes' | 'maxParallelCalls'>;

interface Run {
  call: ToolCall;
  limits: RunLimits;
  calls: number;
  /** Calls in flight, and the characters of JSON arguments they hold. */
  active: number;
  held: number;
  /** Set when a call was refused for a limit (calls, rate): the execution then fails whatever the program returns. */
  limitHit?: string;
}

const runs = new Map<string, Run>();
const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;

export function openRun(call: ToolCall, limits: RunLimits): string {
  const id = crypto.randomUUID();
  runs.set(id, { call, limits, calls: 0, active: 0, held: 0 });
  return id;
}

/** Ends an execution: later calls through its stub are refused. Returns what the host must know about it. */
export function closeRun(id: string): { calls: number; limitHit?: string } {
  const run = runs.get(id);
  runs.delete(id);
  return run ? { calls: run.calls, ...(run.limitHit ? { limitHit: run.limitHit } : {}) } : { calls: 0 };
}

/** Executions currently open in this isolate (tests check that none leak). */
export function openRunCount(): number {
  return runs.size;
}

/** One api call from a sandbox. Everything that arrives here is untrusted: the id, the name and the arguments. */
export async function callInRun(id: unknown, name: unknown, args: unknown): Promise<ApiReply> {
  const run = typeof id === 'string' ? runs.get(id) : undefined;
  if (!run) return { ok: false, error: 'This execute has ended; its api calls are refused.' };
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) return { ok: false, error: `api.${String(name).slice(0, 64)} is not a tool name. Use search to find tool names.` };
  if (!args || typeof args !== 'object' || Array.isArray(args)) {
    return { ok: false, error: `The arguments of api.${name} must be one object, e.g. api.${name}({ ... }).` };
  }
  // RPC can carry functions (as stubs back into the sandbox), dates and maps; tool arguments are JSON only. The
  // sandbox measured and copied them already (calls.js); this is the check a sandbox cannot skip.
  const { limits } = run;
  const measured = measureJson(args, limits.maxArgBytes);
  if (measured.problem) return { ok: false, error: `The arguments of api.${name} must be JSON data (objects, arrays, strings, numbers, booleans, null): ${measured.problem}.` };
  if (measured.over) return { ok: false, error: argsTooBig(name, limits.maxArgBytes) };
  // Sticky: once a limit refused a call, every later call of this execution is refused with it.
  if (run.limitHit) return { ok: false, limit: true, error: run.limitHit };
  if (run.calls >= limits.maxCalls) {
    run.limitHit = `Call limit: more than ${limits.maxCalls} api calls in one execute.`;
    return { ok: false, limit: true, error: run.limitHit };
  }
  // The sandbox queues calls within these two; only a call that got around its queue reaches them.
  if (run.active >= limits.maxParallelCalls) {
    run.limitHit = `Parallel call limit: more than ${limits.maxParallelCalls} api calls in flight at once in one execute (CODE_MAX_PARALLEL_CALLS). Await some calls before starting more.`;
    return { ok: false, limit: true, error: run.limitHit };
  }
  if (run.held + measured.size > limits.maxInflightArgBytes) {
    run.limitHit = `Argument limit: the api calls in flight would hold more than ${limits.maxInflightArgBytes} characters of JSON arguments at once (CODE_MAX_INFLIGHT_ARG_BYTES). Make fewer calls at once, or send smaller arguments.`;
    return { ok: false, limit: true, error: run.limitHit };
  }
  run.calls++;
  run.active++;
  run.held += measured.size;
  try {
    const reply = await run.call(name, args as Record<string, unknown>);
    // A refusal for a limit (the key's rate) fails the whole execution here, on the host, however the sandbox
    // reached this binding and whatever it does with the reply.
    if (!reply.ok && reply.limit) run.limitHit ??= reply.error;
    return reply;
  } catch (error) {
    // The tool caller turns every failure into a reply; reaching here is a bug, so say little and log it.
    log('codemode_call_error', { tool: name, error: error instanceof Error ? error.message : String(error) });
    return { ok: false, error: `Internal error while calling ${name}. Try again later.` };
  } finally {
    run.active--;
    run.held -= measured.size;
  }
}

/** The refusal of one call's arguments over CODE_MAX_ARG_BYTES, in the sandbox's words (calls.js). */
export function argsTooBig(name: string, max: number): string {
  return `api.${name} was not called: its arguments are more than ${max} characters of JSON, the most one api call may send (CODE_MAX_ARG_BYTES). Send smaller arguments: only the fields the operation needs, or the data split over several calls.`;
}

const MAX_DEPTH = 64;

/** Ends a measure: over the limit, or a value that is not JSON data. */
class Stop {
  readonly problem: string | undefined;
  constructor(problem?: string) {
    this.problem = problem;
  }
}

/**
 * Whether `value` is JSON data, and the characters of its JSON as the sandbox counts them (strings without their
 * escapes); stops once over `max`. The path of a problem is built only when there is one.
 */
export function measureJson(value: unknown, max: number): { size: number; problem?: string; over?: boolean } {
  let size = 0;
  const path: Array<string | number> = [];
  const where = () => path.reduce<string>((p, k) => (typeof k === 'number' ? `${p}[${k}]` : `${p}.${k}`), '$');
  const add = (n: number) => {
    size += n;
    if (size > max) throw new Stop();
  };
  const walk = (v: unknown, depth: number): void => {
    if (v === null) return add(4);
    switch (typeof v) {
      case 'string':
        return add(v.length + 2);
      case 'number':
        if (!Number.isFinite(v)) throw new Stop(`${where()} is ${v}`);
        return add(String(v).length);
      case 'boolean':
        return add(v ? 4 : 5);
      case 'object':
        break;
      default:
        throw new Stop(`${where()} is ${typeof v === 'undefined' ? 'undefined' : `a ${typeof v}`}`);
    }
    if (depth > MAX_DEPTH) throw new Stop(`${where()} is nested too deeply`);
    if (Array.isArray(v)) {
      add(v.length > 0 ? v.length + 1 : 2);
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        walk(v[i], depth + 1);
        path.pop();
      }
      return;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) throw new Stop(`${where()} is a ${(v as object).constructor?.name || 'object'}`);
    const keys = Object.keys(v as object);
    add(keys.length > 0 ? keys.length + 1 : 2);
    for (const k of keys) {
      add(k.length + 3);
      path.push(k);
      walk((v as Record<string, unknown>)[k], depth + 1);
      path.pop();
    }
  };
  try {
    walk(value, 0);
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    return e.problem ? { size, problem: e.problem } : { size, over: true };
  }
  return { size };
}
