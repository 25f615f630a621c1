// The executions alive in this isolate, by id. The sandbox's only binding is the CodeModeApi entrypoint
// (host-api.ts) whose ctx.props carry nothing but an execution's random id: the authority to call tools (the
// request's scope, its upstream credential, the tool caller) stays here, in host memory, and is dropped when
// the execution ends, so a stub kept past its execution is worthless (docs/code-mode.md, "Props").
import { log } from '../lib/log.ts';
import type { ApiReply, ToolCall } from './api-reply.ts';

/** ctx.props of the sandbox's CodeModeApi binding. */
export interface CodeModeApiProps {
  /** The execution's random id; no scope, key or credential. */
  run: string;
}

interface Run {
  call: ToolCall;
  maxCalls: number;
  calls: number;
  /** Set when a call was refused for a limit (calls, rate): the execution then fails whatever the program returns. */
  limitHit?: string;
}

const runs = new Map<string, Run>();
const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;

export function openRun(call: ToolCall, maxCalls: number): string {
  const id = crypto.randomUUID();
  runs.set(id, { call, maxCalls, calls: 0 });
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
  // RPC can carry functions (as stubs back into the sandbox), dates and maps; tool arguments are JSON only.
  const problem = nonJson(args, '$', 0);
  if (problem) return { ok: false, error: `The arguments of api.${name} must be JSON data (objects, arrays, strings, numbers, booleans, null): ${problem}.` };
  // Sticky: once a limit refused a call, every later call of this execution is refused with it.
  if (run.limitHit) return { ok: false, limit: true, error: run.limitHit };
  if (run.calls >= run.maxCalls) {
    run.limitHit = `Call limit: more than ${run.maxCalls} api calls in one execute.`;
    return { ok: false, limit: true, error: run.limitHit };
  }
  run.calls++;
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
  }
}

function nonJson(value: unknown, path: string, depth: number): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${path} is ${value}`;
  if (depth > 64) return `${path} is nested too deeply`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = nonJson(value[i], `${path}[${i}]`, depth + 1);
      if (p) return p;
    }
    return undefined;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [k, v] of Object.entries(value)) {
      const p = nonJson(v, `${path}.${k}`, depth + 1);
      if (p) return p;
    }
    return undefined;
  }
  const kind = typeof value === 'object' ? (value as object).constructor?.name ?? 'object' : typeof value;
  return `${path} is ${kind === 'undefined' ? 'undefined' : `a ${kind}`}`;
}
