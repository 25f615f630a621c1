// The sandbox's main module (JavaScript source, loaded into each Dynamic Worker next to the compiled program).
// It runs the program once and returns a plain outcome; the host treats that outcome as untrusted input.
// - api.<tool>(args) calls env.API.call(name, args), the host's CodeModeApi entrypoint (the only binding).
// - The guards the compiler inserted count steps (loop iterations and function calls), watch the wall clock and
//   a CPU estimate (wall time minus time spent waiting for api calls and timers), and charge bulk allocations.
//   A tripped limit is sticky: every later guard call throws it again, so `catch` cannot swallow it.
// - console.* output is captured up to the log budget.
// Kept as a string: the Worker bundler would rewrite a real function (helper calls), and the sandbox has no
// modules but this one and the program. No template literals inside, so nothing here is interpolated.
export const HARNESS_MODULE = 'harness.js';

export const HARNESS_SOURCE = String.raw`
import { WorkerEntrypoint } from 'cloudflare:workers';
import program from './program.js';

// Captured before the program runs: it may replace any global.
const now = Date.now;
const stringify = JSON.stringify;
const parseJson = JSON.parse;
const { apply, construct } = Reflect;
const isArray = Array.isArray;
const toStr = String;
const realSetTimeout = setTimeout;
const realClearTimeout = clearTimeout;
const arrayJoin = Array.prototype.join;
const PROGRAM_LINE = /program\.js:(\d+):\d+/;

class LimitError extends Error {
  constructor(message) { super(message); this.name = 'LimitError'; }
}
class ApiError extends Error {
  constructor(tool, message) { super(message); this.name = 'ApiError'; this.tool = tool; }
}

export default class Sandbox extends WorkerEntrypoint {
  async run(limits) {
    const binding = this.env.API;
    const L = limits;
    const st = { steps: 0, calls: 0, bytes: 0, tripped: null, waited: false, pending: 0, idle: 0, idleSince: 0, start: now(), logs: [], logChars: 0, dropped: 0 };

    const trip = (message) => {
      if (!st.tripped) st.tripped = new LimitError(message);
      throw st.tripped;
    };
    const clock = () => {
      const t = now();
      if (t - st.start > L.timeoutMs) trip('Time limit: the program ran longer than ' + L.timeoutMs + ' ms.');
      const busy = t - st.start - st.idle - (st.pending ? t - st.idleSince : 0);
      if (busy > L.cpuMs) trip('CPU limit: the program computed for more than ' + L.cpuMs + ' ms.');
    };
    // The clock is read every 1024 steps, and at the first step after a wait (an async loop may take few steps).
    const guard = () => {
      if (st.tripped) throw st.tripped;
      if (++st.steps > L.maxSteps) trip('Step limit: more than ' + L.maxSteps + ' loop iterations and function calls; is a loop endless?');
      if ((st.steps & 1023) === 0 || st.waited) { st.waited = false; clock(); }
    };
    const charge = (bytes) => {
      if (st.tripped) throw st.tripped;
      st.bytes += bytes > 0 ? bytes : 0;
      if (st.bytes > L.memoryBytes) trip('Memory limit: the program allocated more than ' + Math.round(L.memoryBytes / 1048576) + ' MB in bulk (arrays, strings, buffers).');
    };
    const sizeOf = (x) => {
      if (typeof x === 'string') return x.length;
      if (x === null || typeof x !== 'object') return 0;
      const n = typeof x.length === 'number' ? x.length : typeof x.size === 'number' ? x.size : 0;
      return n * 8;
    };
    const spread = (x) => { charge(sizeOf(x)); return x; };
    const wait = () => { if (st.pending++ === 0) st.idleSince = now(); };
    const resume = () => { st.waited = true; if (--st.pending === 0) st.idle += now() - st.idleSince; };

    installAllocationCharges(charge);
    installTimers(wait, resume);
    installConsole(st, L);

    const callApi = async (name, args) => {
      guard();
      if (st.calls >= L.maxCalls) trip('Call limit: more than ' + L.maxCalls + ' api calls in one execute.');
      st.calls++;
      let reply;
      wait();
      try {
        reply = await binding.call(name, args === undefined ? {} : args);
      } catch (e) {
        throw new ApiError(name, 'api.' + name + ' could not be called: ' + (e && e.message ? e.message : toStr(e)));
      } finally {
        resume();
      }
      if (st.tripped) throw st.tripped;
      if (reply && reply.limit) trip(toStr(reply.error));
      if (!reply || !reply.ok) throw new ApiError(name, toStr(reply && reply.error));
      charge(typeof reply.size === 'number' ? reply.size : 0);
      return reply.value;
    };
    const NOT_TOOLS = new Set(['then', 'toJSON', 'toString', 'valueOf', 'constructor']);
    const api = new Proxy(Object.create(null), {
      get: (_, key) => (typeof key === 'string' && !NOT_TOOLS.has(key) ? (args) => callApi(key, args) : undefined),
      set: () => false,
      defineProperty: () => false,
      deleteProperty: () => false,
    });

    let value;
    let thrown;
    let threw = false;
    try {
      value = await program(api, guard, spread);
    } catch (e) {
      threw = true;
      thrown = e;
    }
    const logs = { logs: apply(arrayJoin, st.logs, ['\n']), dropped: st.dropped, calls: st.calls, steps: st.steps };
    if (!st.tripped && !threw && value !== undefined) {
      try {
        const json = stringify(value);
        // Oversized values stay here: the host only needs their size to refuse them.
        if (!st.tripped && json !== undefined) return json.length > L.resultChars ? { ok: true, oversize: json.length, ...logs } : { ok: true, json, ...logs };
      } catch (e) {
        if (!st.tripped) { threw = true; thrown = new TypeError('The return value cannot be sent as JSON: ' + (e && e.message)); }
      }
    }
    if (st.tripped) return { ok: false, error: describe(st.tripped, 'limit'), ...logs };
    if (threw) return { ok: false, error: describe(thrown, thrown instanceof ApiError ? 'api' : 'error'), ...logs };
    return { ok: true, ...logs };
  }
}

function describe(e, kind) {
  const isError = e instanceof Error;
  const stack = isError && typeof e.stack === 'string' ? e.stack : '';
  const m = PROGRAM_LINE.exec(stack);
  let message;
  try { message = isError ? toStr(e.message) : 'Uncaught ' + (typeof e === 'string' ? e : stringify(e) ?? toStr(e)); }
  catch { message = 'Uncaught exception'; }
  const out = { kind, name: isError ? toStr(e.name) : 'Error', message };
  if (m) out.line = Number(m[1]);
  if (e instanceof ApiError) out.tool = e.tool;
  return out;
}

// Bulk allocators charge the budget before they allocate: local workerd has no isolate memory limit, and a
// V8 heap overflow there takes down the whole runtime. A best-effort net; production enforces 128 MB itself.
function installAllocationCharges(charge) {
  const wrapMethod = (proto, name, cost) => {
    const original = proto[name];
    Object.defineProperty(proto, name, {
      value: function (...args) { charge(cost(this, args)); return apply(original, this, args); },
      writable: true, configurable: true,
    });
  };
  const len = (x) => (x !== null && x !== undefined && typeof x.length === 'number' ? x.length : 0);
  wrapMethod(Array.prototype, 'fill', (a) => len(a) * 8);
  wrapMethod(Array.prototype, 'concat', (a, args) => (len(a) + args.reduce((n, x) => n + (isArray(x) ? x.length : 1), 0)) * 8);
  wrapMethod(Array.prototype, 'slice', (a) => len(a) * 8);
  wrapMethod(Array.prototype, 'flat', (a) => len(a) * 8);
  wrapMethod(Array.prototype, 'join', (a, args) => {
    const n = len(a);
    const sep = args[0] === undefined ? 1 : toStr(args[0]).length;
    charge(n * (sep + 1));
    let chars = 0;
    for (let i = 0; i < n; i++) { const v = a[i]; chars += typeof v === 'string' ? v.length : 8; }
    return chars;
  });
  wrapMethod(String.prototype, 'repeat', (s, args) => toStr(s).length * (Number(args[0]) || 0));
  wrapMethod(String.prototype, 'padStart', (s, args) => Number(args[0]) || 0);
  wrapMethod(String.prototype, 'padEnd', (s, args) => Number(args[0]) || 0);
  wrapMethod(String.prototype, 'split', (s) => (toStr(s).length + 1) * 8);
  wrapMethod(JSON, 'parse', (_, args) => toStr(args[0]).length * 2);
  const wrappedStringify = JSON.stringify;
  Object.defineProperty(JSON, 'stringify', {
    value: function (...args) { const out = apply(wrappedStringify, this, args); charge(typeof out === 'string' ? out.length : 0); return out; },
    writable: true, configurable: true,
  });
  const from = Array.from;
  Array.from = function (...args) { const src = args[0]; charge((len(src) || (src && typeof src.size === 'number' ? src.size : 0)) * 8); return apply(from, this, args); };

  const wrapConstructor = (name, bytesPerItem) => {
    const Original = globalThis[name];
    if (typeof Original !== 'function') return;
    const size = (args) => {
      const a = args[0];
      if (typeof a === 'number') return a * bytesPerItem;
      return len(a) * bytesPerItem;
    };
    const Wrapped = new Proxy(Original, {
      apply: (target, self, args) => { charge(size(args)); return apply(target, self, args); },
      construct: (target, args, newTarget) => { charge(size(args)); return construct(target, args, newTarget === Wrapped ? target : newTarget); },
    });
    globalThis[name] = Wrapped;
    // new Uint8Array(1).constructor and [].constructor must not lead back to the unwrapped constructor.
    Object.defineProperty(Original.prototype, 'constructor', { value: Wrapped, writable: true, configurable: true });
  };
  // Buffer (present without nodejs_compat at this compatibility date) allocates outside the wrapped Uint8Array.
  const B = globalThis.Buffer;
  if (typeof B === 'function') {
    for (const name of ['alloc', 'allocUnsafe', 'allocUnsafeSlow']) wrapMethod(B, name, (_, args) => Number(args[0]) || 0);
    wrapMethod(B, 'from', (_, args) => (typeof args[0] === 'string' ? args[0].length : len(args[0]) || (args[0] && args[0].byteLength) || 0));
    wrapMethod(B, 'concat', (_, args) => (isArray(args[0]) ? args[0].reduce((n, b) => n + len(b), 0) : 0));
  }
  const partsSize = (parts) => (isArray(parts) ? parts.reduce((n, p) => n + (typeof p === 'string' ? p.length : p && (p.byteLength || p.size || 0)), 0) : 0);
  for (const name of ['Blob', 'File']) {
    const Original = globalThis[name];
    if (typeof Original !== 'function') continue;
    globalThis[name] = new Proxy(Original, { construct: (target, args, newTarget) => { charge(partsSize(args[0])); return construct(target, args, newTarget); } });
  }
  wrapMethod(TextEncoder.prototype, 'encode', (_, args) => toStr(args[0] ?? '').length * 3);
  wrapMethod(ArrayBuffer.prototype, 'resize', (_, args) => Number(args[0]) || 0);
  if (ArrayBuffer.prototype.transfer) wrapMethod(ArrayBuffer.prototype, 'transfer', (b, args) => (args[0] === undefined ? 0 : Number(args[0]) || 0));
  // WebAssembly.Memory allocates gigabytes without compiling anything; programs have no use for WebAssembly.
  Object.defineProperty(globalThis, 'WebAssembly', { value: undefined, writable: false, configurable: false });
  wrapConstructor('Array', 8);
  wrapConstructor('ArrayBuffer', 1);
  for (const name of ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array']) {
    wrapConstructor(name, globalThis[name].BYTES_PER_ELEMENT);
  }
}

// Time spent waiting on a timer is not CPU time.
function installTimers(wait, resume) {
  const live = new Map();
  globalThis.setTimeout = (fn, ms, ...args) => {
    wait();
    const id = realSetTimeout(() => {
      if (live.delete(id)) resume();
      if (typeof fn === 'function') fn(...args);
    }, ms);
    live.set(id, true);
    return id;
  };
  globalThis.clearTimeout = (id) => {
    if (live.delete(id)) resume();
    realClearTimeout(id);
  };
}

function installConsole(st, L) {
  const text = (a) => {
    if (typeof a === 'string') return a;
    try { const s = stringify(a); return s === undefined ? toStr(a) : s; } catch { return toStr(a); }
  };
  const format = (args) => {
    let out = '';
    for (let i = 0; i < args.length; i++) out += (i ? ' ' : '') + text(args[i]);
    return out;
  };
  const write = (prefix) => (...args) => {
    const line = prefix + format(args);
    const room = L.logChars - st.logChars;
    if (room <= 0) { st.dropped += line.length; return; }
    const kept = line.length <= room ? line : line.slice(0, room);
    st.logs.push(kept);
    st.logChars += kept.length + 1;
    st.dropped += line.length - kept.length;
  };
  const capture = { log: write(''), info: write(''), debug: write(''), trace: write(''), dir: write(''), table: write(''), warn: write('[warn] '), error: write('[error] ') };
  globalThis.console = capture;
}
`;
