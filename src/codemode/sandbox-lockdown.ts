// The sandbox's lockdown.js (JavaScript source): before the program's module runs anything, it leaves the program
// nothing but the language, console, timers and a few pure utilities. Everything else is deleted from globalThis and
// its prototype chain, by allow-list rather than deny-list, so a runtime that grows a new global (as `process` with
// its getBuiltinModule did) exposes nothing new. Timers, scheduler.wait and console are the harness's own: each timer
// starts a new turn for the CPU count, and console output is captured.
export const LOCKDOWN_MODULE = 'lockdown.js';

/** The globals a program keeps (besides those the harness defines: console, timers, scheduler, crypto, RegExp). */
export const ALLOWED_GLOBALS = [
  // ECMAScript
  'globalThis', 'Infinity', 'NaN', 'undefined', 'eval', 'isFinite', 'isNaN', 'parseFloat', 'parseInt', 'decodeURI',
  'decodeURIComponent', 'encodeURI', 'encodeURIComponent', 'escape', 'unescape', 'Object', 'Function', 'Array',
  'Number', 'Boolean', 'String', 'Symbol', 'Date', 'Promise', 'Error', 'AggregateError', 'EvalError', 'RangeError',
  'ReferenceError', 'SyntaxError', 'TypeError', 'URIError', 'SuppressedError', 'JSON', 'Math', 'Intl', 'ArrayBuffer',
  'DataView', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array',
  'Float16Array', 'Float32Array', 'Float64Array', 'Map', 'Set', 'WeakMap', 'WeakSet', 'Proxy', 'Reflect', 'Iterator',
  'DisposableStack', 'AsyncDisposableStack',
  // Pure web utilities (no I/O, no host objects)
  'atob', 'btoa', 'TextEncoder', 'TextDecoder', 'URL', 'URLSearchParams', 'queueMicrotask',
] as const;

export const LOCKDOWN_SOURCE = String.raw`
const { apply, construct, defineProperty, deleteProperty, ownKeys, getPrototypeOf } = Reflect;
const ErrorCtor = Error;
const PromiseCtor = Promise;
const toStr = String;
const arrayPush = Array.prototype.push;
const stringSlice = String.prototype.slice;
const realSetTimeout = setTimeout;
const realClearTimeout = clearTimeout;
const realSetInterval = setInterval;
const realClearInterval = clearInterval;
const realCrypto = crypto;
const randomUUID = crypto.randomUUID;
const getRandomValues = crypto.getRandomValues;
const ObjectProto = Object.prototype;

const ALLOWED = new Set(${'$'}{ALLOWED});

/** An Error made without running any code the program could have planted (setters on Error.prototype). */
export function safeError(name, message, tool) {
  const e = construct(ErrorCtor, [toStr(message)]);
  defineProperty(e, 'name', { value: name, writable: true, configurable: true });
  if (tool !== undefined) defineProperty(e, 'tool', { value: tool, enumerable: true, configurable: true });
  return e;
}

const define = (target, name, value) => defineProperty(target, name, { value, writable: true, configurable: true, enumerable: false });
const remove = (target, name) => {
  if (deleteProperty(target, name)) return;
  // Not configurable: make it useless where possible. The lockdown test lists anything that stays.
  try { target[name] = undefined; } catch {}
};

export function lockdown({ RegExp, turn, st, L, json, uncaught }) {
  // Stack traces: no program-defined formatter (it would see call sites, and run inside the harness).
  defineProperty(ErrorCtor, 'prepareStackTrace', { value: undefined, writable: false, configurable: false });
  defineProperty(ErrorCtor, 'stackTraceLimit', { value: 20, writable: false, configurable: false });
  if (typeof ErrorCtor.captureStackTrace === 'function') remove(ErrorCtor, 'captureStackTrace');

  for (let o = globalThis; o && o !== ObjectProto; o = getPrototypeOf(o)) {
    for (const name of ownKeys(o)) {
      if (typeof name === 'string' && ALLOWED.has(name)) continue;
      if (name === 'constructor' && o !== globalThis) continue;
      remove(o, name);
    }
  }
  // BigInt arithmetic on huge values is native work no guard can interrupt; programs get Numbers only
  // (the compiler refuses BigInt literals; DataView's 64-bit integer accessors are the only other source).
  for (const name of ['getBigInt64', 'getBigUint64', 'setBigInt64', 'setBigUint64']) remove(DataView.prototype, name);

  define(globalThis, 'RegExp', RegExp);

  const live = new Set();
  const later = (fn, args) => () => {
    if (st.tripped) return;
    try {
      turn();
      apply(fn, undefined, args);
    } catch (e) {
      uncaught(e);
    }
  };
  const needFunction = (what, fn) => {
    if (typeof fn !== 'function') throw safeError('TypeError', what + ' needs a function as its first argument.');
  };
  define(globalThis, 'setTimeout', function setTimeout(fn, ms, ...args) {
    needFunction('setTimeout', fn);
    const run = later(fn, args);
    const id = realSetTimeout(() => { if (live.delete(id)) run(); }, ms);
    live.add(id);
    return id;
  });
  define(globalThis, 'setInterval', function setInterval(fn, ms, ...args) {
    needFunction('setInterval', fn);
    const run = later(fn, args);
    const id = realSetInterval(() => { if (live.has(id)) run(); }, ms);
    live.add(id);
    return id;
  });
  const clear = (real) => function (id) { live.delete(id); real(id); };
  define(globalThis, 'clearTimeout', clear(realClearTimeout));
  define(globalThis, 'clearInterval', clear(realClearInterval));
  const wait = (ms) => new PromiseCtor((resolve) => {
    realSetTimeout(() => {
      if (st.tripped) return;
      try { turn(); } catch { return; }
      resolve();
    }, ms);
  });
  define(globalThis, 'scheduler', Object.freeze({ wait: (ms) => wait(Number(ms) || 0) }));
  define(globalThis, 'crypto', Object.freeze({
    randomUUID: () => apply(randomUUID, realCrypto, []),
    getRandomValues: (array) => apply(getRandomValues, realCrypto, [array]),
  }));
  define(globalThis, 'console', console(st, L, json));
}

// Console output is kept up to the log budget. Values other than strings are written by json.js's walker, which stops
// one character past the room left (a value of 75 M elements costs no more than the room), so a cut line records
// that the dropped count is a lower bound.
function console(st, L, json) {
  const text = (a, limit) => {
    if (typeof a === 'string') return a;
    try {
      const r = json(a, undefined, undefined, limit);
      if (r.over) st.cut = true;
      return r.json === undefined ? toStr(a) : r.json;
    } catch (e) {
      if (st.tripped) throw st.tripped;
      return toStr(a);
    }
  };
  const write = (prefix) => (...args) => {
    let room = L.logChars - st.logChars;
    const open = room > 0;
    let line = '';
    let seen = 0;
    const add = (piece) => {
      seen += piece.length;
      if (room <= 0) return;
      const kept = piece.length <= room ? piece : apply(stringSlice, piece, [0, room]);
      line += kept;
      room -= kept.length;
    };
    add(prefix);
    for (let i = 0; i < args.length; i++) {
      if (i) add(' ');
      add(text(args[i], (room > 0 ? room : 0) + 1));
    }
    if (open) {
      apply(arrayPush, st.logs, [line]);
      st.logChars += line.length + 1;
    }
    st.dropped += seen - line.length;
  };
  return Object.freeze({ log: write(''), info: write(''), debug: write(''), trace: write(''), dir: write(''), table: write(''), warn: write('[warn] '), error: write('[error] ') });
}
`.replace('${ALLOWED}', JSON.stringify(['globalThis', ...ALLOWED_GLOBALS]));
