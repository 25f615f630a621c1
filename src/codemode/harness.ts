// The sandbox's main module (JavaScript source, loaded into each Dynamic Worker next to the compiled program).
// It runs the program once and returns a plain outcome; the host treats that outcome as untrusted input.
// - Before the program's module can run anything, lockdown.js takes every global but the language, `api`, console
//   and timers away (process and its getBuiltinModule included), memory.js meters allocations and regex.js puts a
//   linear-time RegExp in place of V8's.
// - The limits come from limits.js, a module the host writes for this execution; run() takes no argument and runs
//   once, so nothing the program reaches can start it again with other limits.
// - api.<tool>(args) calls env.API.call(name, args), the host's CodeModeApi entrypoint (the only binding).
// - The guards the compiler inserted count steps (loop iterations and function calls), read the clock and charge
//   memory. CPU time is the time between guard readings within one turn of the event loop: each timer, interval,
//   scheduler.wait or api reply starts a new turn, so waiting is never counted. A tripped limit is sticky: every
//   later guard throws it again, so `catch` cannot swallow it.
// Kept as strings: the Worker bundler would rewrite real functions, and the sandbox has no modules but these.
// No template literals inside, so nothing here is interpolated.
export const HARNESS_MODULE = 'harness.js';

export const HARNESS_SOURCE = String.raw`
import { WorkerEntrypoint } from 'cloudflare:workers';
import LIMITS from './limits.js';
import { install } from './guards.js';
import { jsonWriter } from './json.js';
import { lockdown, safeError } from './lockdown.js';
import { meter } from './memory.js';
import { apiCalls } from './calls.js';
import { regexEngine } from './regex.js';
import program from './program.js';

const L = Object.freeze(Object.assign(Object.create(null), LIMITS));
const now = Date.now;
const stringify = JSON.stringify;
const { apply, defineProperty } = Reflect;
const ObjectCtor = Object;
const PromiseCtor = Promise;
const promiseThen = Promise.prototype.then;
const toStr = String;
const mathRound = Math.round;
const isArray = Array.isArray;
const arrayJoin = Array.prototype.join;
const arrayPush = Array.prototype.push;
const regexExec = RegExp.prototype.exec;
const PROGRAM_LINE = /program\.js:(\d+):\d+/;
const ERROR_PROTO = Error.prototype;
const MAP_PROTO = Map.prototype;
const SET_PROTO = Set.prototype;
const getPrototypeOf = Object.getPrototypeOf;
const realSetTimeout = setTimeout;

const st = Object.assign(Object.create(null), {
  steps: 0, calls: 0, bytes: 0, built: 0, tripped: null, stop: null, start: 0, last: 0, cpu: 0, due: false,
  logs: [], logChars: 0, dropped: 0, cut: false, uncaught: null,
});

const limitError = (message) => safeError('LimitError', message);
const trip = (message) => {
  if (!st.tripped) {
    st.tripped = limitError(message);
    if (st.stop) st.stop();
  }
  throw st.tripped;
};
// Reads the clock: the wall limit, and the CPU spent since the last reading in this turn.
const mark = () => {
  const t = now();
  if (t - st.start > L.timeoutMs) trip('Time limit: the program ran longer than ' + L.timeoutMs + ' ms.');
  st.cpu += t - st.last;
  st.last = t;
  if (st.cpu > L.cpuMs) trip('CPU limit: the program computed for more than ' + L.cpuMs + ' ms.');
};
// A turn of the event loop the harness started (a timer, a wait, an api reply): the time since the last reading
// was spent waiting, not computing.
const turn = () => {
  if (st.tripped) throw st.tripped;
  st.last = now();
  mark();
};
// Reading the clock costs about 0.3 microseconds in workerd, so the step guard reads it every 64 steps; natives
// that take long on big inputs read it themselves (memory.js, regex.js).
const steps = (n) => {
  if (st.tripped) throw st.tripped;
  st.steps += n;
  if (st.steps > L.maxSteps) trip('Step limit: more than ' + L.maxSteps + ' loop iterations and function calls (native work on big arrays and strings counts too); is a loop endless?');
};
// A reading is due until one completes: near the stack limit the call to mark() itself can overflow (and the
// program catch that RangeError), so the next guard, at a shallower depth, tries again.
const guard = (bytes) => {
  if (st.tripped) throw st.tripped;
  if (bytes) charge(bytes);
  if (++st.steps > L.maxSteps) steps(0);
  if ((st.steps & 63) === 0) st.due = true;
  if (st.due) {
    mark();
    st.due = false;
  }
};
const mb = (bytes) => mathRound(bytes / 1048576);
const charge = (bytes) => {
  if (st.tripped) throw st.tripped;
  st.bytes += bytes > 0 ? bytes : 0;
  if (st.bytes > L.memoryBytes) trip('Memory limit: the program allocated more than ' + mb(L.memoryBytes) + ' MB (arrays, objects, strings, buffers and api results; what loops make counts too).');
};
// Strings built with +, += and templates: V8 keeps them as ropes, which cost their full length once anything reads
// them, so each one counts its length when it is made.
const BUILT_LIMIT = L.memoryBytes * 4;
const MAX_STRING = L.memoryBytes / 4;
const built = (x) => {
  if (typeof x !== 'string') return x;
  if (st.tripped) throw st.tripped;
  const n = x.length;
  if (n > MAX_STRING) trip('Memory limit: a string of ' + n + ' characters is over the ' + MAX_STRING + '-character limit.');
  st.built += n;
  if (st.built > BUILT_LIMIT) trip('Memory limit: the program built more than ' + mb(BUILT_LIMIT) + ' MB of strings with + and templates (each new string counts its whole length); collect parts in an array and join them once.');
  return x;
};
const budget = { charge, steps, mark, trip, tripped: () => st.tripped !== null, maxString: MAX_STRING, maxElements: L.memoryBytes / 8 };
const writeJson = jsonWriter(budget);
// Spreads, charged before they copy: \`[...x]\` and \`f(...x)\` (kind 1) a slot per element, \`{...x}\` (kind 0) a
// property per index of a string, array or typed array, \`for (k in x)\` (kind 2) a key string per index, strings
// for the time V8 takes to list their characters as well (memory.js, indexed). An iterable of unknown size is
// charged by its iterator as it goes (memory.js).
const spread = (x, kind) => {
  if (st.tripped) throw st.tripped;
  if (kind === 1) {
    if (typeof x === 'string') charge(x.length * 8);
    else if (x !== null && typeof x === 'object') charge((typeof x.size === 'number' ? x.size : budget.indexed(x, 1, 1)) * 8);
  } else if (kind === 2) charge(budget.indexed(x, 32, 96));
  else charge(budget.indexed(x, 112, 128));
  return x;
};

const RegExpSafe = regexEngine(budget);
// A generator function's call makes its generator object before any guard of its body runs: charged per call.
const perCall = (fn) => {
  if (typeof fn !== 'function') return fn;
  return function (...args) {
    charge(64);
    return apply(fn, this, args);
  };
};
install({ g: guard, s: spread, c: built, x: (source, flags) => new RegExpSafe(source, flags), f: perCall });
meter(budget, writeJson);
lockdown({ RegExp: RegExpSafe, turn, st, L, json: writeJson, uncaught: (e) => { if (!st.uncaught) st.uncaught = { e }; if (st.stop) st.stop(); } });

let ran = false;

export default class Sandbox extends WorkerEntrypoint {
  run() {
    if (ran) return { ok: false, error: { kind: 'internal', message: 'This sandbox has already run its program.' } };
    ran = true;
    const callApi = apiCalls({ binding: this.env.API, L, st, guard, steps, charge, trip, turn, safeError });
    const NOT_TOOLS = new Set(['then', 'toJSON', 'toString', 'valueOf', 'constructor']);
    const api = new Proxy(Object.create(null), {
      get: (_, key) => (typeof key === 'string' && !NOT_TOOLS.has(key) ? (args) => callApi(key, args) : undefined),
      set: () => false,
      defineProperty: () => false,
      deleteProperty: () => false,
      setPrototypeOf: () => false,
    });

    return new PromiseCtor((resolve) => {
      let done = false;
      const finish = (ok, value) => {
        if (done) return;
        done = true;
        let reply;
        try { reply = settle(ok, value); } catch { reply = { ok: false, error: describe(st.tripped || limitError('The program broke the sandbox.'), 'limit') }; }
        resolve(reply);
      };
      // Not inside the guard that tripped: that may be deep in a recursion, with no stack left to write the reply.
      st.stop = () => realSetTimeout(() => finish(false, undefined), 0);
      const start = () => {
        st.start = st.last = now();
        let running;
        try { running = program(api); } catch (e) { finish(false, e); return; }
        apply(promiseThen, running, [(v) => finish(true, v), (e) => finish(false, e)]);
      };
      start();
    });
  }
}

// The outcome as plain data. Everything the program left behind (getters, toJSON, proxies) is still guarded here.
function settle(ok, value) {
  const logs = { logs: apply(arrayJoin, st.logs, ['\n']), dropped: st.dropped, cut: st.cut === true, calls: st.calls, steps: st.steps };
  if (!st.tripped && st.uncaught) return { ok: false, error: describe(st.uncaught.e, 'error'), ...logs };
  if (!st.tripped && ok && value !== undefined) {
    try {
      const problem = notJson(value);
      if (problem) return { ok: false, error: { kind: 'error', name: 'TypeError', message: problem }, ...logs };
      // Written within the result budget, under the guards: the walk stops one character past it.
      const out = writeJson(value, jsonReplacer, undefined, L.resultChars);
      const json = out.json;
      // Oversized values stay here: the host only needs to know they are over the budget to refuse them.
      if (!st.tripped && out.over) return { ok: true, oversize: L.resultChars + 1, ...logs };
      if (!st.tripped && json !== undefined) return { ok: true, json, ...logs };
      if (!st.tripped) return { ok: false, error: { kind: 'error', name: 'TypeError', message: 'The return value cannot be sent as JSON.' }, ...logs };
    } catch (e) {
      if (!st.tripped) return { ok: false, error: { kind: 'error', name: 'TypeError', message: 'The return value cannot be sent as JSON: ' + messageOf(e) }, ...logs };
    }
  }
  if (st.tripped) return { ok: false, error: describe(st.tripped, 'limit'), ...logs };
  if (!ok) return { ok: false, error: describe(value, isApiError(value) ? 'api' : 'error'), ...logs };
  return { ok: true, ...logs };
}

const JSON_HINT = ' Return JSON data: objects, arrays, strings, numbers, booleans or null.';
function kindOf(v) {
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'symbol') return 'a Symbol';
  if (typeof v === 'bigint') return 'a BigInt';
  if (v !== null && typeof v === 'object') {
    let p;
    try { p = getPrototypeOf(v); } catch { return undefined; }
    for (; p; p = getPrototypeOf(p)) {
      if (p === MAP_PROTO) return 'a Map';
      if (p === SET_PROTO) return 'a Set';
    }
  }
  return undefined;
}
const CONVERT = { 'a Map': ' Convert it first, e.g. Object.fromEntries(map) or [...map].', 'a Set': ' Convert it first, e.g. [...set].' };
function notJson(value) {
  const kind = kindOf(value);
  if (kind === 'a function' || kind === 'a Symbol') return 'The program returned ' + kind + ', which JSON cannot carry.' + JSON_HINT;
  return undefined;
}
// Maps and Sets anywhere in the value would silently become {}; say so instead.
function jsonReplacer(key, v) {
  const kind = kindOf(v);
  if (kind === 'a Map' || kind === 'a Set') {
    throw safeError('TypeError', 'the return value holds ' + kind + (key === '' ? '' : ' (at key ' + stringify(key) + ')') + ', which JSON would turn into {}.' + (CONVERT[kind] || ''));
  }
  return v;
}

function isApiError(e) {
  try { return e !== null && typeof e === 'object' && e.name === 'ApiError' && typeof e.tool === 'string'; } catch { return false; }
}
function messageOf(e) {
  try { return e && typeof e.message === 'string' ? e.message : toStr(e); } catch { return 'unknown error'; }
}

const MAX_THROWN = 4000;
function describe(e, kind) {
  const out = { kind, name: 'Error', message: 'Uncaught exception' };
  try {
    const isError = e !== null && typeof e === 'object' && ERROR_PROTO.isPrototypeOf(e);
    if (isError) {
      out.name = toStr(e.name);
      out.message = toStr(e.message);
      const stack = typeof e.stack === 'string' ? e.stack : '';
      const m = apply(regexExec, PROGRAM_LINE, [stack]);
      if (m) out.line = Number(m[1]);
      if (kind === 'api' && typeof e.tool === 'string') out.tool = e.tool;
    } else if (typeof e === 'string') out.message = 'Uncaught ' + e;
    else {
      const s = writeJson(e, undefined, undefined, MAX_THROWN);
      out.message = 'Uncaught ' + (s.json === undefined ? toStr(e) : s.over ? s.json + '…' : s.json);
    }
  } catch { /* a hostile getter: keep what we have */ }
  return out;
}
`;
