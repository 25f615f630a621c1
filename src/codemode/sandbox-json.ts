// The sandbox's json.js (JavaScript source): JSON.stringify's semantics (toJSON, replacer function or list, indent,
// wrapper objects, cycles) in a walker that stops once its output passes a given length and charges a step per 16
// values, reading the clock every 1024. V8's own JSON.stringify is one native call that no guard can interrupt: a
// value of 15,000 references to one 5,000-element array is 75 M elements for about 160 KB of memory charged, and
// serialising it blocked the whole runtime for 15 s. The walker serialises the result (harness.js `settle`), console
// output (lockdown.js), thrown non-Error values, and the program's own JSON.stringify (memory.js), so every one stops
// at its budget: the result budget, the log budget, the largest string.
// Intrinsics are captured when this module is evaluated, before memory.js, regex.js or the program change anything.
export const JSON_MODULE = 'json.js';

export const JSON_SOURCE = String.raw`
const { apply, construct, getPrototypeOf } = Reflect;
const objectKeys = Object.keys;
const isArray = Array.isArray;
const quoteString = JSON.stringify;
const toStr = String;
const arrayJoin = Array.prototype.join;
const arrayPush = Array.prototype.push;
const SetCtor = Set;
const setAdd = Set.prototype.add;
const setHas = Set.prototype.has;
const setDelete = Set.prototype.delete;
const numberValueOf = Number.prototype.valueOf;
const stringValueOf = String.prototype.valueOf;
const booleanValueOf = Boolean.prototype.valueOf;
const TypeErrorCtor = TypeError;
const ObjectProto = Object.prototype;
const ArrayProto = Array.prototype;
const charCodeAt = String.prototype.charCodeAt;
const stringSlice = String.prototype.slice;
const OVER = Object.freeze({ over: true });
const DROP = Object.freeze({ drop: true });
const CHUNK = 1024;
// Strings longer than this are measured before they are quoted: escapes can make the JSON six times the text.
const MEASURE = 65536;

const brand = (value, valueOf) => {
  try { apply(valueOf, value, []); return true; } catch { return false; }
};

/**
 * budget: { steps, mark } of the harness. Returns write(value, replacer, space, limit) →
 * { json, over }: the JSON text (undefined where JSON.stringify gives undefined), or, when it would pass \`limit\`
 * characters, over: true and json: the text up to the limit.
 */
export function jsonWriter({ steps, mark }) {
  let nodes = 0;
  const tick = () => {
    if ((++nodes & 15) === 0) {
      steps(1);
      if ((nodes & 1023) === 0) mark();
    }
  };
  return function write(value, replacer, space, limit) {
    const chunks = [];
    let buf = [];
    let length = 0;
    const flush = () => {
      apply(arrayPush, chunks, [apply(arrayJoin, buf, [''])]);
      buf = [];
    };
    const emit = (s) => {
      length += s.length;
      if (length > limit) {
        const keep = s.length - (length - limit);
        if (keep > 0) apply(arrayPush, buf, [apply(stringSlice, s, [0, keep])]);
        throw OVER;
      }
      apply(arrayPush, buf, [s]);
      if (buf.length >= CHUNK) flush();
    };
    const quote = (s) => {
      if (s.length + 2 > limit - length) {
        emit(apply(stringSlice, s, [0, limit - length + 1]));
        return;
      }
      if (s.length > MEASURE) {
        // The escaped length, stopping once it cannot fit.
        let n = 2;
        for (let i = 0; i < s.length && n + length <= limit; i++) {
          const c = apply(charCodeAt, s, [i]);
          n += c < 32 ? 6 : c === 34 || c === 92 ? 2 : c >= 0xd800 && c <= 0xdfff ? 6 : 1;
          if ((i & 4095) === 0) steps(64);
        }
        if (n + length > limit) {
          emit(apply(stringSlice, s, [0, limit - length + 1]));
          return;
        }
      }
      emit(quoteString(s));
    };

    const fn = typeof replacer === 'function' ? replacer : undefined;
    let only;
    if (!fn && isArray(replacer)) {
      only = [];
      const seen = new SetCtor();
      for (let i = 0; i < replacer.length; i++) {
        tick();
        let v = replacer[i];
        if (v !== null && typeof v === 'object' && (brand(v, stringValueOf) || brand(v, numberValueOf))) v = toStr(v);
        if (typeof v === 'number') v = toStr(v);
        if (typeof v === 'string' && !apply(setHas, seen, [v])) {
          apply(setAdd, seen, [v]);
          apply(arrayPush, only, [v]);
        }
      }
    }
    let gap = '';
    let sp = space;
    if (sp !== null && typeof sp === 'object') {
      if (brand(sp, numberValueOf)) sp = apply(numberValueOf, sp, []);
      else if (brand(sp, stringValueOf)) sp = apply(stringValueOf, sp, []);
    }
    if (typeof sp === 'number') {
      const n = sp > 10 ? 10 : sp >= 1 ? sp | 0 : 0;
      for (let i = 0; i < n; i++) gap += ' ';
    } else if (typeof sp === 'string') gap = apply(stringSlice, sp, [0, 10]);

    const stack = new SetCtor();
    let indent = '';
    // holder[key] as JSON will see it (toJSON, the replacer, wrapper objects unwrapped), or DROP when it gives
    // undefined (left out of an object, null in an array). Keys may be numbers: made strings only when code sees them.
    const prepare = (holder, key, value) => {
      tick();
      if ((value !== null && typeof value === 'object') || typeof value === 'bigint') {
        const toJSON = value.toJSON;
        if (typeof toJSON === 'function') value = apply(toJSON, value, [toStr(key)]);
      }
      if (fn) value = apply(fn, holder, [toStr(key), value]);
      if (value !== null && typeof value === 'object') {
        const proto = getPrototypeOf(value);
        if (proto !== ObjectProto && proto !== ArrayProto) {
          if (brand(value, numberValueOf)) return +value;
          if (brand(value, stringValueOf)) return toStr(value);
          if (brand(value, booleanValueOf)) return apply(booleanValueOf, value, []);
        }
        return value;
      }
      return value === undefined || typeof value === 'function' || typeof value === 'symbol' ? DROP : value;
    };
    const serialize = (value) => {
      if (value === null) return emit('null');
      switch (typeof value) {
        case 'boolean': return emit(value ? 'true' : 'false');
        case 'string': return quote(value);
        case 'number': return emit(value === value && value !== Infinity && value !== -Infinity ? toStr(value) : 'null');
        case 'bigint': throw construct(TypeErrorCtor, ['Do not know how to serialize a BigInt']);
      }
      if (apply(setHas, stack, [value])) throw construct(TypeErrorCtor, ['Converting circular structure to JSON']);
      apply(setAdd, stack, [value]);
      const outer = indent;
      indent += gap;
      const open = gap ? '\n' + indent : '';
      const close = gap ? '\n' + outer : '';
      if (isArray(value)) {
        const n = value.length;
        if (n === 0) emit('[]');
        else {
          emit('[');
          for (let i = 0; i < n; i++) {
            if (i) emit(',');
            if (gap) emit(open);
            const v = prepare(value, i, value[i]);
            if (v === DROP) emit('null');
            else serialize(v);
          }
          emit(close + ']');
        }
      } else {
        const keys = only || objectKeys(value);
        let first = true;
        emit('{');
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i];
          const v = prepare(value, k, value[k]);
          if (v === DROP) continue;
          if (!first) emit(',');
          first = false;
          if (gap) emit(open);
          quote(k);
          emit(gap ? ': ' : ':');
          serialize(v);
        }
        emit(first ? '}' : close + '}');
      }
      indent = outer;
      apply(setDelete, stack, [value]);
    };

    try {
      const v = prepare({ '': value }, '', value);
      if (v === DROP) return { over: false, json: undefined };
      serialize(v);
    } catch (e) {
      if (e !== OVER) throw e;
      flush();
      return { over: true, json: apply(arrayJoin, chunks, ['']) };
    }
    flush();
    return { over: false, json: apply(arrayJoin, chunks, ['']) };
  };
}
`;
