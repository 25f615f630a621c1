// The sandbox's calls.js (JavaScript source): api.<tool>(args) from the program to the host, within the host-side
// budgets (docs/code-mode.md, "Host-side budgets"). The host keeps a copy of every argument it receives for as long as
// the call runs, so the arguments are measured here, before anything is sent:
//   - one call's arguments over CODE_MAX_ARG_BYTES characters of JSON are refused (an ApiError the program can
//     catch): fifty parallel calls each holding one shared 4 MB string made the host hold 200 MB and crashed workerd;
//   - at most CODE_MAX_PARALLEL_CALLS calls are in flight, holding at most CODE_MAX_INFLIGHT_ARG_BYTES of arguments
//     together; later calls wait their turn in order (Promise.all over many calls still works, a few at a time).
// What is sent is a copy made while measuring, so a getter or Proxy cannot show a small value to the measure and a
// big one to the RPC. The host checks all of it again (src/codemode/runs.ts): this module only refuses early.
export const CALLS_MODULE = 'calls.js';

export const CALLS_SOURCE = String.raw`
const { apply, defineProperty, getPrototypeOf } = Reflect;
const objectKeys = Object.keys;
const isArray = Array.isArray;
const toStr = String;
const arrayPush = Array.prototype.push;
const arrayShift = Array.prototype.shift;
const arrayPop = Array.prototype.pop;
const PromiseCtor = Promise;
const ObjectProto = Object.prototype;
const MAX_DEPTH = 64;

const data = (target, key, value) => defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });

export function apiCalls({ binding, L, st, guard, steps, charge, trip, turn, safeError }) {
  // Arguments as plain JSON data, and the characters of their JSON (the host measures the same way).
  const snapshot = (name, args) => {
    if (args === null || typeof args !== 'object' || isArray(args)) {
      throw safeError('ApiError', 'The arguments of api.' + name + ' must be one object, e.g. api.' + name + '({ ... }).', name);
    }
    let size = 0;
    let nodes = 0;
    const path = [];
    const where = () => {
      let p = '$';
      for (let i = 0; i < path.length; i++) p += typeof path[i] === 'number' ? '[' + path[i] + ']' : '.' + path[i];
      return p;
    };
    const refuse = (what) => {
      throw safeError('ApiError', 'The arguments of api.' + name + ' must be JSON data (objects, arrays, strings, numbers, booleans, null): ' + where() + ' is ' + what + '.', name);
    };
    const add = (n) => {
      size += n;
      if (size > L.maxArgBytes) {
        throw safeError('ApiError', 'api.' + name + ' was not called: its arguments are more than ' + L.maxArgBytes + ' characters of JSON, the most one api call may send (CODE_MAX_ARG_BYTES). Send smaller arguments: only the fields the operation needs, or the data split over several calls.', name);
      }
    };
    const copy = (v, depth) => {
      if ((++nodes & 15) === 0) steps(1);
      if (v === null) { add(4); return v; }
      switch (typeof v) {
        case 'string': add(v.length + 2); return v;
        case 'number':
          if (v !== v || v === Infinity || v === -Infinity) refuse(toStr(v));
          add(toStr(v).length);
          return v;
        case 'boolean': add(v ? 4 : 5); return v;
        case 'object': break;
        case 'undefined': return refuse('undefined');
        default: return refuse('a ' + typeof v);
      }
      if (depth > MAX_DEPTH) refuse('nested too deeply');
      if (isArray(v)) {
        const n = v.length;
        add(n > 0 ? n + 1 : 2);
        charge(16 + n * 8);
        const out = [];
        for (let i = 0; i < n; i++) {
          apply(arrayPush, path, [i]);
          data(out, i, copy(v[i], depth + 1));
          apply(arrayPop, path, []);
        }
        return out;
      }
      const proto = getPrototypeOf(v);
      if (proto !== ObjectProto && proto !== null) {
        const c = v.constructor;
        refuse('a ' + (c && typeof c.name === 'string' && c.name ? c.name : 'object'));
      }
      const keys = objectKeys(v);
      add(keys.length > 0 ? keys.length + 1 : 2);
      charge(32 + keys.length * 16);
      const out = {};
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        add(k.length + 3);
        apply(arrayPush, path, [k]);
        data(out, k, copy(v[k], depth + 1));
        apply(arrayPop, path, []);
      }
      return out;
    };
    const value = copy(args, 0);
    return { value, size };
  };

  // Calls in flight and the argument characters they hold; the rest wait in order.
  let active = 0;
  let held = 0;
  const waiting = [];
  const fits = (bytes) => active < L.maxParallelCalls && held + bytes <= L.maxInflightArgBytes;
  const pump = () => {
    while (waiting.length && fits(waiting[0].bytes)) {
      const w = apply(arrayShift, waiting, []);
      active++;
      held += w.bytes;
      w.go();
    }
  };
  const release = (bytes) => {
    active--;
    held -= bytes;
    pump();
  };

  return async (name, args) => {
    guard();
    if (st.calls >= L.maxCalls) trip('Call limit: more than ' + L.maxCalls + ' api calls in one execute.');
    st.calls++;
    const { value, size } = snapshot(name, args === undefined ? {} : args);
    if (!waiting.length && fits(size)) {
      active++;
      held += size;
    } else {
      await new PromiseCtor((go) => { apply(arrayPush, waiting, [{ bytes: size, go }]); });
      if (st.tripped) { release(size); throw st.tripped; }
    }
    let reply;
    try {
      reply = await binding.call(name, value);
    } catch (e) {
      release(size);
      turn();
      throw safeError('ApiError', 'api.' + name + ' could not be called: ' + (e && typeof e.message === 'string' ? e.message : 'the call failed'), name);
    }
    release(size);
    turn();
    if (reply && reply.limit) trip(toStr(reply.error));
    if (!reply || !reply.ok) throw safeError('ApiError', toStr(reply && reply.error), name);
    charge(typeof reply.size === 'number' ? reply.size : 0);
    return reply.value;
  };
}
`;
