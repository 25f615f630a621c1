// Numbers an argument cannot be: JSON has no Infinity or NaN, but JSON.parse turns 1e400 into Infinity and a
// code-mode program can pass NaN, and @cfworker/json-schema counts Infinity as an integer. Sent on, they reach the
// upstream as "/issues/Infinity". Where the schema says integer, a number beyond 2^53 has already lost its digits
// (9007199254740993 parses as ...992), so it is refused too rather than sent as another number.
import { cutQuote } from '../lib/cut-quote.ts';
import type { JsonSchema } from './types.ts';

/** Walks `value` beside `schema`; "location: message" lines like the validator's, at most `max`. Iterative: arguments may nest deeply. */
export function numberErrors(schema: JsonSchema | boolean | undefined, value: unknown, max = 10): string[] {
  const errors: string[] = [];
  const stack: Array<[unknown, unknown, string]> = [[schema, value, '']];
  while (stack.length && errors.length < max) {
    const [node, v, at] = stack.pop()!;
    if (typeof v === 'number') {
      const where = cutQuote(at || '/');
      if (!Number.isFinite(v)) errors.push(`${where}: ${String(v)} is not a number JSON can carry; send a finite number`);
      else if (integerOnly(node) && Number.isInteger(v) && !Number.isSafeInteger(v)) {
        errors.push(`${where}: ${v} is outside the exact integer range (±${Number.MAX_SAFE_INTEGER}); an integer this large loses digits, so send it within that range`);
      }
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    const n = isObject(node) ? node : undefined;
    if (Array.isArray(v)) {
      const items = n?.items;
      for (let i = v.length - 1; i >= 0; i--) stack.push([Array.isArray(items) ? undefined : items, v[i], `${at}/${i}`]);
      continue;
    }
    const props = isObject(n?.properties) ? n.properties : undefined;
    const extra = n?.additionalProperties;
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      stack.push([props && Object.hasOwn(props, k) ? props[k] : extra, (v as Record<string, unknown>)[k], `${at}/${k}`]);
    }
  }
  return errors;
}

/** A node whose own type admits integers and no other numbers. */
function integerOnly(node: unknown): boolean {
  if (!isObject(node)) return false;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  return types.includes('integer') && !types.includes('number');
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
