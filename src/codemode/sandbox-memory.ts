// The sandbox's memory.js (JavaScript source): every built-in that allocates in bulk, or works natively over a big
// array or string, is wrapped before the program runs. Local workerd has no isolate memory or CPU limit: a V8 heap
// overflow in a Dynamic Worker aborts the whole runtime, and native work blocks it. So:
//   - allocators charge the memory budget BEFORE they allocate, from their input's size, whenever it is known (Array(n),
//     typed arrays, repeat, padStart, join, fill, concat, replaceAll, Object.keys/values/entries and Reflect.ownKeys of
//     strings, arrays and typed arrays, flat, flatMap's results, JSON.parse…), else right after (filter, new Map(…)…);
//     a built-in that made 96 bytes per character of a 4 MB string before anything was charged crashed the runtime;
//   - built-in iterators (arrays, strings, Map, Set, Intl.Segmenter's segments) charge each value they produce, so a
//     spread, Array.from or toArray of an iterable whose size is unknown up front is charged as it grows;
//   - every array method refuses arrays longer than the budget allows (a sparse `length` of 2^32-1 costs nothing to
//     make but makes indexOf or join scan four billion slots), and charges steps for the elements it walks;
//   - natives over big inputs read the clock when they return, so the CPU limit sees native work inside loops;
//   - array iterators charge a step per 16 elements, so spreading or Array.from of a huge sparse array stops too.
// Production also enforces 128 MB per isolate and cpuMs itself.
export const MEMORY_MODULE = 'memory.js';

export const MEMORY_SOURCE = String.raw`
import { meterApplied, sortSteps } from './costs.js';
const { apply, construct, defineProperty, getPrototypeOf, ownKeys } = Reflect;
const isArray = Array.isArray;
const toStr = String;
const RangeErrorCtor = RangeError;
const mathCeil = Math.ceil;
const isView = ArrayBuffer.isView;
const StringProto = String.prototype;
const BIG = 4096;

export function meter(budget, writeJson) {
  const { charge, steps, mark, trip, tripped, maxString, maxElements } = budget;
  const len = (x) => {
    if (x === null || x === undefined) return 0;
    const n = x.length;
    return typeof n === 'number' && n > 0 ? n : 0;
  };
  const define = (target, name, value) => defineProperty(target, name, { value, writable: true, configurable: true, enumerable: false });
  const checkString = (s) => {
    if (typeof s === 'string' && s.length > maxString) trip('Memory limit: a string of ' + s.length + ' characters is over the ' + maxString + '-character limit.');
    return s;
  };
  // cost(self, args) → bytes charged before the call; after(result, self, args) → bytes charged after it.
  const wrap = (target, name, { cost, after, size }) => {
    const original = target[name];
    if (typeof original !== 'function') return;
    define(target, name, function (...args) {
      if (cost) charge(cost(this, args));
      const n = size ? size(this, args) : 0;
      if (n > BIG) steps(mathCeil(n / 64));
      const r = call(original, this, args, n);
      if (after) charge(after(r, this, args));
      return typeof r === 'string' ? checkString(r) : r;
    });
  };
  // V8 refuses a string or array over its own maximum with a RangeError, after building most of it: that is the
  // memory limit too, and sticky. Big inputs read the clock when the call returns or throws.
  const call = (original, self, args, n) => {
    try {
      return apply(original, self, args);
    } catch (e) {
      if (e instanceof RangeErrorCtor && /Invalid (string|array) length|Array buffer allocation failed/.test(e.message)) trip('Memory limit: the result would be larger than the runtime allows.');
      throw e;
    } finally {
      if (n > BIG) mark();
    }
  };
  const strLen = (s) => (typeof s === 'string' ? s.length : len(s));
  // For what the runtime's own code uses too (iterators, push, Map and Set): once a limit tripped they no longer
  // charge, since the runtime answers the host with them and must not meet the limit again where nothing catches it.
  // Each makes one slot or entry per call, so what a program can still do with them after the trip is bounded by
  // its length; every guard, spread and constructor keeps throwing.
  const soft = (bytes) => {
    if (!tripped()) charge(bytes);
  };
  const checkElements = (n) => {
    if (n > maxElements) trip('Memory limit: ' + n + ' elements are over the ' + maxElements + '-element limit.');
    return n;
  };
  // What a copy of x's indexed properties (a string's characters, an array's or typed array's elements: what
  // Object.keys & co. list) costs: perElement bytes each for arrays and typed arrays, perChar for strings. V8 lists a
  // string's characters slowly (about a microsecond each under load), so strings are charged for that time too: the
  // budget then bounds how long one such call runs, not only what it allocates.
  const indexed = (x, perElement, perChar) => {
    if (typeof x === 'string') return x.length * perChar;
    if (x === null || typeof x !== 'object') return 0;
    if (getPrototypeOf(x) === StringProto) return checkElements(len(x)) * perChar;
    if (isArray(x) || (isView(x) && typeof x.length === 'number')) return checkElements(len(x)) * perElement;
    return 0;
  };
  budget.indexed = indexed;
  const selfLen = (s) => strLen(s);

  // Arrays: every method.
  const ArrayProto = Array.prototype;
  const spreadable = (x) => isArray(x) || (x !== null && typeof x === 'object' && Boolean(x[Symbol.isConcatSpreadable]));
  // push and unshift grow the array by a slot each; map makes its result up front and a callback may make a value
  // per element that no guard sees (\`a.map(Object)\` boxes every number).
  const ELEMENTS = { concat: (a, args) => (len(a) + args.reduce((n, x) => n + (spreadable(x) ? len(x) : 1), 0)) * 8, slice: (a) => len(a) * 8, fill: (a) => len(a) * 8, map: (a) => len(a) * 24, toSorted: (a) => len(a) * 8, toReversed: (a) => len(a) * 8, toSpliced: (a) => len(a) * 8, with: (a) => len(a) * 8, flat: (a, args) => flatSize(a, args[0]) * 8 };
  const RESULT = { filter: 1 };
  const CONSTANT_TIME = new Set(['push', 'pop', 'at', 'keys', 'values', 'entries', Symbol.iterator]);
  for (const name of ownKeys(ArrayProto)) {
    if (name === 'constructor' || (typeof name !== 'string' && name !== Symbol.iterator)) continue;
    const original = ArrayProto[name];
    if (typeof original !== 'function') continue;
    const sorts = name === 'sort' || name === 'toSorted';
    // Constant-time methods and lazy iterators walk nothing: only the length check applies.
    const walks = !CONSTANT_TIME.has(name);
    const pre = ELEMENTS[name];
    const post = RESULT[name] === 1;
    const joins = name === 'join' || name === 'toString' || name === 'toLocaleString';
    const grows = name === 'push' || name === 'unshift';
    define(ArrayProto, name, function (...args) {
      const n = len(this);
      if (n > maxElements) trip('Memory limit: an array of ' + n + ' elements is over the ' + maxElements + '-element limit.');
      const big = walks && n > BIG;
      // A sort without a comparator compares strings in one native call that nothing interrupts (a second for 1 M
      // numbers under load): charged 8 times a comparator's, whose calls the guards see.
      if (sorts) steps(sortSteps(this, n, args[0], true));
      else if (big) steps(mathCeil(n / 64));
      if (pre) charge(pre(this, args));
      if (grows) soft(args.length * 8);
      if (joins) charge(checkLength(joinedLength(this, n, args[0] === undefined ? 1 : toStr(args[0]).length, name === 'toLocaleString')));
      if (name === 'flatMap' && typeof args[0] === 'function') args[0] = flattened(args[0], args[1]);
      const r = call(original, this, args, big || sorts ? BIG + 1 : 0);
      if (post && isArray(r)) charge(r.length * 8);
      if (typeof r === 'string') charge(checkString(r).length);
      return r;
    });
  }
  // The elements flat(depth) makes, walked before it runs: 15,000 references to one 5,000-element array are 75 M.
  // The walk stops as soon as the count is over the budget, so it costs at most maxElements visits.
  function flatSize(a, depthArg) {
    const depth = depthArg === undefined ? 1 : Number(depthArg) || 0;
    let n = 0;
    let visits = 0;
    // Every element visited counts, nested arrays too, so an array that holds itself ends the walk as well.
    const walk = (x, d) => {
      const m = len(x);
      for (let i = 0; i < m; i++) {
        const e = x[i];
        if (d > 0 && isArray(e)) walk(e, d - 1);
        else n++;
        if ((++visits & 63) === 0) steps(1);
        if (n > maxElements || visits > maxElements) trip('Memory limit: flat() would make an array of more than ' + maxElements + ' elements.');
      }
    };
    walk(a, depth);
    return n;
  }
  // flatMap's callback results are charged as each comes back, before V8 copies their elements into the result.
  const flattened = (fn, thisArg) => function (...a) {
    const r = apply(fn, thisArg, a);
    charge(isArray(r) ? len(r) * 8 : 8);
    return r;
  };
  // The length join (and toString, toLocaleString) will make: strings by their length, numbers by at most 24
  // characters, before the native call builds it (60 strings of 4 M characters joined are 240 MB).
  function joinedLength(a, n, sep, locale) {
    let total = n > 0 ? (n - 1) * sep : 0;
    for (let i = 0; i < n; i++) {
      const e = a[i];
      if (typeof e === 'string') total += e.length;
      else if (typeof e === 'number') total += locale ? 32 : e > -1e6 && e < 1e6 && (e | 0) === e ? 7 : 24;
      else if (e !== null && e !== undefined) total += locale ? 32 : 1;
      if ((i & 63) === 63) steps(1);
      if (total > maxString) break;
    }
    return total;
  }
  const from = Array.from;
  define(Array, 'from', function (...args) {
    const src = args[0];
    charge((len(src) || (src && typeof src.size === 'number' ? src.size : 0)) * (typeof args[1] === 'function' ? 24 : 8));
    const r = apply(from, this, args);
    charge(isArray(r) ? r.length * 8 : 0);
    return r;
  });
  // Array iterators (spread, Array.from, Iterator helpers walk them natively): a step per 16 elements and a clock
  // reading per 4096, so an iterator over an array whose length grew to 2^32-1 after it was made stops too.
  // Every built-in iterator charges 8 bytes per value for the slot a spread or Array.from gives it, more for what it
  // makes per value: an entries() pair, a segment's data object.
  let walked = 0;
  const meterIterator = (proto, extra) => {
    const next = proto && proto.next;
    if (typeof next !== 'function') return;
    define(proto, 'next', function () {
      if (tripped()) return apply(next, this, []);
      if ((++walked & 15) === 0) {
        steps(1);
        if ((walked & 4095) === 0) mark();
      }
      const r = apply(next, this, []);
      soft(8 + extra(r));
      return r;
    });
  };
  const pair = (r) => (r && isArray(r.value) ? 32 : 0);
  meterIterator(getPrototypeOf([][Symbol.iterator]()), pair);
  meterIterator(getPrototypeOf(''[Symbol.iterator]()), () => 0);
  meterIterator(getPrototypeOf(new Map()[Symbol.iterator]()), pair);
  meterIterator(getPrototypeOf(new Set()[Symbol.iterator]()), pair);
  if (globalThis.Intl && Intl.Segmenter) meterIterator(getPrototypeOf(new Intl.Segmenter().segment('')[Symbol.iterator]()), () => 64);
  if (globalThis.Iterator && Iterator.prototype.toArray) wrap(Iterator.prototype, 'toArray', { after: (r) => len(r) * 8 });

  // Constructors that allocate their size up front. new X(…).constructor must not lead back to the original.
  const wrapConstructor = (name, bytesPerItem) => {
    const Original = globalThis[name];
    if (typeof Original !== 'function') return;
    const size = (args) => (typeof args[0] === 'number' ? args[0] * bytesPerItem : len(args[0]) * bytesPerItem || (args[0] && args[0].byteLength) || 0);
    const Wrapped = new Proxy(Original, {
      apply: (target, self, args) => { charge(size(args)); return apply(target, self, args); },
      construct: (target, args, newTarget) => { charge(size(args)); return construct(target, args, newTarget === Wrapped ? target : newTarget); },
    });
    define(globalThis, name, Wrapped);
    define(Original.prototype, 'constructor', Wrapped);
  };
  wrapConstructor('Array', 8);
  wrapConstructor('ArrayBuffer', 1);
  const TYPED = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float16Array', 'Float32Array', 'Float64Array'];
  for (const name of TYPED) if (globalThis[name]) wrapConstructor(name, globalThis[name].BYTES_PER_ELEMENT);
  for (const name of ['Map', 'Set']) {
    const Original = globalThis[name];
    const Wrapped = new Proxy(Original, {
      construct: (target, args, newTarget) => {
        charge(len(args[0]) * 32);
        const r = construct(target, args, newTarget === Wrapped ? target : newTarget);
        charge(r.size * 32);
        return r;
      },
    });
    define(globalThis, name, Wrapped);
    define(Original.prototype, 'constructor', Wrapped);
  }

  // A new entry of a Map or Set (hash table slots, growth): a loop of set() calls makes one per step otherwise unseen.
  for (const [Ctor, name, per] of [[Map, 'set', 32], [Set, 'add', 24], [WeakMap, 'set', 32], [WeakSet, 'add', 24]]) {
    const original = Ctor.prototype[name];
    const has = Ctor.prototype.has;
    define(Ctor.prototype, name, function (...args) {
      if (!apply(has, this, [args[0]])) soft(per);
      return apply(original, this, args);
    });
  }

  // Typed arrays and buffers: copies charge their bytes; sorting and joining walk every element.
  const TypedProto = getPrototypeOf(Uint8Array.prototype);
  const bytes = (a) => (a && typeof a.byteLength === 'number' ? a.byteLength : 0);
  for (const name of ['slice', 'map', 'filter', 'toReversed', 'with']) wrap(TypedProto, name, { cost: bytes, size: selfLen });
  for (const name of ['indexOf', 'lastIndexOf', 'includes', 'fill', 'reverse', 'set', 'copyWithin']) wrap(TypedProto, name, { size: selfLen });
  for (const name of ['sort', 'toSorted']) {
    const original = TypedProto[name];
    if (typeof original !== 'function') continue;
    define(TypedProto, name, function (...args) {
      const n = len(this);
      if (name === 'toSorted') charge(bytes(this));
      if (n > BIG) steps(sortSteps(this, n, args[0], false));
      return call(original, this, args, n);
    });
  }
  for (const name of ['join', 'toString', 'toLocaleString']) wrap(TypedProto, name, { cost: (a, args) => len(a) * (args[0] === undefined ? 24 : toStr(args[0]).length + 23), size: selfLen });
  const TypedArray = getPrototypeOf(Uint8Array);
  for (const name of ['from', 'of']) wrap(TypedArray, name, { after: bytes });
  if (Uint8Array.prototype.toHex) wrap(Uint8Array.prototype, 'toHex', { cost: (a) => bytes(a) * 2, size: selfLen });
  if (Uint8Array.prototype.toBase64) wrap(Uint8Array.prototype, 'toBase64', { cost: (a) => bytes(a) * 2, size: selfLen });
  if (Uint8Array.fromBase64) wrap(Uint8Array, 'fromBase64', { cost: (_, args) => strLen(args[0]) });
  if (Uint8Array.fromHex) wrap(Uint8Array, 'fromHex', { cost: (_, args) => strLen(args[0]) });
  wrap(ArrayBuffer.prototype, 'slice', { cost: bytes });
  wrap(ArrayBuffer.prototype, 'resize', { cost: (_, args) => Number(args[0]) || 0 });
  if (ArrayBuffer.prototype.transfer) wrap(ArrayBuffer.prototype, 'transfer', { cost: (b, args) => (args[0] === undefined ? bytes(b) : Number(args[0]) || 0) });
  if (ArrayBuffer.prototype.transferToFixedLength) wrap(ArrayBuffer.prototype, 'transferToFixedLength', { cost: (b, args) => (args[0] === undefined ? bytes(b) : Number(args[0]) || 0) });

  // Strings: the amplifiers charge their result before making it; the scanners read the clock on big inputs.
  const S = String.prototype;
  const self = (s) => (typeof s === 'string' ? s.length : 0);
  const count = (n) => { const v = Number(n); return v > 0 ? v : 0; };
  wrap(S, 'repeat', { cost: (s, args) => checkLength(toStr(s).length * count(args[0])) });
  wrap(S, 'padStart', { cost: (s, args) => checkLength(count(args[0])) });
  wrap(S, 'padEnd', { cost: (s, args) => checkLength(count(args[0])) });
  wrap(S, 'concat', { cost: (s, args) => checkLength(args.reduce((n, x) => n + toStr(x).length, toStr(s).length)) });
  wrap(S, 'split', { cost: (s) => (toStr(s).length + 1) * 8, size: self });
  // A string pattern: at most length/|pattern| + 1 replacements (a regex pattern is the sandbox's own RegExp).
  const replaced = (s, args) => {
    const text = toStr(s);
    if (typeof args[0] !== 'string' || typeof args[1] !== 'string') return text.length;
    const hits = args[0].length ? text.length / args[0].length + 1 : text.length + 1;
    return checkLength(text.length + hits * args[1].length);
  };
  wrap(S, 'replace', { cost: replaced, size: self });
  wrap(S, 'replaceAll', { cost: replaced, size: self });
  for (const name of ['normalize', 'toUpperCase', 'toLowerCase', 'toLocaleUpperCase', 'toLocaleLowerCase', 'toWellFormed']) wrap(S, name, { cost: (s) => toStr(s).length * 3, size: self });
  for (const name of ['indexOf', 'lastIndexOf', 'includes', 'startsWith', 'endsWith', 'localeCompare', 'trim', 'trimStart', 'trimEnd', 'isWellFormed']) wrap(S, name, { size: self });
  for (const [name, factor] of [['encodeURI', 9], ['encodeURIComponent', 9], ['escape', 6], ['decodeURI', 1], ['decodeURIComponent', 1], ['unescape', 1], ['btoa', 2], ['atob', 1]]) {
    if (typeof globalThis[name] === 'function') wrap(globalThis, name, { cost: (_, args) => checkLength(toStr(args[0]).length * factor), size: (_, args) => strLen(args[0]) });
  }
  wrap(TextEncoder.prototype, 'encode', { cost: (_, args) => toStr(args[0] === undefined ? '' : args[0]).length * 3, size: (_, args) => strLen(args[0]) });
  wrap(TextDecoder.prototype, 'decode', { cost: (_, args) => bytes(args[0]) * 2, size: (_, args) => bytes(args[0]) });

  // JSON and Object: parse charges its input, the rest their results.
  // JSON.parse makes up to about 10 bytes per character ('[{},{},…]' is an object per 3 characters).
  wrap(JSON, 'parse', { cost: (_, args) => toStr(args[0]).length * 10, size: (_, args) => strLen(args[0]) });
  // The walker of json.js, which stops at the largest string instead of building 150 MB in one native call.
  define(JSON, 'stringify', function stringify(value, replacer, space) {
    const out = writeJson(value, replacer, space, maxString);
    if (out.over) trip('Memory limit: JSON.stringify would make a string of more than ' + maxString + ' characters.');
    if (out.json !== undefined) charge(out.json.length);
    return out.json;
  });
  // Bytes per property each makes (a key string, a slot, an entry pair; measured in V8 without pointer compression),
  // charged before the call from the indexed properties of a string, array or typed array, and after it by what came
  // back: an ordinary object's properties were paid for when they were made.
  const OWN = [['keys', 32, 128], ['values', 8, 160], ['entries', 128, 384], ['getOwnPropertyNames', 32, 128], ['getOwnPropertySymbols', 0, 0], ['fromEntries', 0, 0], ['groupBy', 0, 0]];
  for (const [name, perElement, perChar] of OWN) {
    const per = name === 'values' || name === 'getOwnPropertySymbols' ? 8 : 32;
    wrap(Object, name, { cost: (_, args) => indexed(args[0], perElement, perChar), after: (r) => (r === null || typeof r !== 'object' ? 0 : (isArray(r) ? r.length : ownKeys(r).length) * per) });
  }
  wrap(Object, 'assign', { cost: (_, args) => args.reduce((n, x, i) => n + (i ? indexed(x, 112, 128) : 0), 0) });
  if (typeof Map.groupBy === 'function') wrap(Map, 'groupBy', { after: (r) => (r && typeof r.size === 'number' ? r.size * 48 : 0) });

  // Objects with more inside than a call's 16 bytes (the compiler's charge per call): promises and their reactions,
  // bound functions, objects without a prototype (a dictionary from the start), and Intl's formatters, which hold
  // ICU data outside the JavaScript heap. The runtime makes promises too, so those charges are soft.
  for (const name of ['then', 'catch', 'finally']) {
    const original = Promise.prototype[name];
    define(Promise.prototype, name, function (...args) {
      soft(64);
      return apply(original, this, args);
    });
  }
  for (const name of ['resolve', 'reject', 'withResolvers']) {
    const original = Promise[name];
    if (typeof original !== 'function') continue;
    define(Promise, name, function (...args) {
      soft(48);
      return apply(original, this, args);
    });
  }
  wrap(Function.prototype, 'bind', { cost: (_, args) => 64 + args.length * 8 });
  wrap(Object, 'create', { cost: (_, args) => 128 + (args[1] !== null && typeof args[1] === 'object' ? ownKeys(args[1]).length * 64 : 0) });
  if (globalThis.Intl) {
    for (const name of ownKeys(Intl)) {
      const Original = Intl[name];
      if (typeof Original !== 'function' || typeof name !== 'string') continue;
      const Wrapped = new Proxy(Original, {
        apply: (target, self, args) => { charge(4096); return apply(target, self, args); },
        construct: (target, args, newTarget) => { charge(4096); return construct(target, args, newTarget === Wrapped ? target : newTarget); },
      });
      define(Intl, name, Wrapped);
      if (Original.prototype) define(Original.prototype, 'constructor', Wrapped);
    }
  }

  meterApplied({ charge, checkElements, len, define, wrap });

  // Natives that copy their input into new strings, arrays or promises: charged after, by what they made.
  wrap(Function.prototype, 'toString', { after: (r) => strLen(r) });
  wrap(String, 'raw', { cost: (_, args) => (args[0] !== null && typeof args[0] === 'object' ? checkElements(len(args[0].raw)) * 8 : 0), after: (r) => strLen(r) });
  wrap(Reflect, 'ownKeys', { cost: (_, args) => indexed(args[0], 32, 128), after: (r) => len(r) * 16 });
  wrap(Object, 'getOwnPropertyDescriptors', { cost: (_, args) => indexed(args[0], 160, 384), after: (r) => (r && typeof r === 'object' ? ownKeys(r).length * 64 : 0) });
  for (const name of ['all', 'allSettled', 'any', 'race']) wrap(Promise, name, { cost: (_, args) => len(args[0]) * 64 });
  for (const name of ['union', 'intersection', 'difference', 'symmetricDifference']) {
    if (Set.prototype[name]) wrap(Set.prototype, name, { after: (r) => (r && typeof r.size === 'number' ? r.size * 32 : 0) });
  }
  if (globalThis.Intl && Intl.ListFormat) for (const name of ['format', 'formatToParts']) wrap(Intl.ListFormat.prototype, name, { cost: (_, args) => len(args[0]) * 16, after: (r) => (typeof r === 'string' ? r.length : len(r) * 32) });
  if (typeof URLSearchParams === 'function') {
    wrap(URLSearchParams.prototype, 'toString', { after: (r) => strLen(r) });
    const Original = URLSearchParams;
    const Wrapped = new Proxy(Original, {
      construct: (target, args, newTarget) => { charge(typeof args[0] === 'string' ? args[0].length * 8 : 0); return construct(target, args, newTarget === Wrapped ? target : newTarget); },
    });
    define(globalThis, 'URLSearchParams', Wrapped);
    define(Original.prototype, 'constructor', Wrapped);
  }
  // Errors copy their message into the stack they carry; URLs copy (and may escape) their input.
  const inputSize = (args, factor) => (args[0] === undefined || args[0] === null ? 0 : toStr(args[0]).length * factor);
  for (const [name, factor] of [['Error', 2], ['TypeError', 2], ['RangeError', 2], ['SyntaxError', 2], ['ReferenceError', 2], ['EvalError', 2], ['URIError', 2], ['AggregateError', 2], ['URL', 6]]) {
    const Original = globalThis[name];
    if (typeof Original !== 'function') continue;
    const at = name === 'AggregateError' ? 1 : 0;
    // An Error also captures its stack (up to 20 frames), a few hundred bytes.
    const cost = (args) => 256 + checkLength(inputSize(at ? [args[at]] : args, 1)) * factor;
    const Wrapped = new Proxy(Original, {
      apply: (target, self, args) => { charge(cost(args)); return apply(target, self, args); },
      construct: (target, args, newTarget) => { charge(cost(args)); return construct(target, args, newTarget === Wrapped ? target : newTarget); },
    });
    define(globalThis, name, Wrapped);
    define(Original.prototype, 'constructor', Wrapped);
  }

  function checkLength(n) {
    if (n > maxString) trip('Memory limit: a string of ' + n + ' characters is over the ' + maxString + '-character limit.');
    return n;
  }
}
`;
