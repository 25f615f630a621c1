// What parsing an upstream JSON body would cost the isolate, read from its bytes before anything is parsed. A body
// within MAX_RESPONSE_BYTES can still be far too big once parsed: 6 MB of `[{},{},…]` is two million objects, and
// JSON.parse of it took a production-sized isolate (128 MB) past its heap and crashed workerd for every client;
// 4 MB of it held the isolate for 1.8 s. So a large body is measured first: its bytes, 64 bytes for every object or
// array it opens and 8 for every value, property or element. The weights are V8's order of magnitude (an empty object
// with its map slot, a tagged slot per element), chosen so that dense API listings pass (9 MB of 80-byte records is
// about 29 MB) and structure-only bodies do not. The bound also bounds the time one answer holds the isolate's thread
// (parse and shaping): a key's parallel calls (MAX_CALLS_PER_KEY) each cost another client that much at most.

/** Bodies below this are parsed without a scan: their worst case (a third of a million empty objects, 25 MB) is under the bound. */
export const JSON_SCAN_FROM_BYTES = 1024 * 1024;
/** The most an upstream body may cost parsed, by the estimate below. */
export const MAX_JSON_HEAP_BYTES = 32 * 1024 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const COMMA = 0x2c;
const COLON = 0x3a;

/** Whether `bytes` may start a JSON object or array (what the runtime would parse into a graph). */
export function mayBeJsonContainer(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length && i < 64; i++) {
    const b = bytes[i]!;
    if (b === OPEN_OBJECT || b === OPEN_ARRAY) return true;
    if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09 && b !== 0xef && b !== 0xbb && b !== 0xbf) return false;
  }
  return false;
}

/** The estimated heap of JSON.parse(bytes), in bytes; stops counting once past `stopAt`. Strings are skipped whole. */
export function jsonHeapEstimate(bytes: Uint8Array, stopAt = MAX_JSON_HEAP_BYTES): number {
  let containers = 0;
  let values = 0;
  const n = bytes.length;
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (b === QUOTE) {
      values++;
      for (i++; i < n; i++) {
        const c = bytes[i]!;
        if (c === BACKSLASH) i++;
        else if (c === QUOTE) break;
      }
    } else if (b === OPEN_OBJECT || b === OPEN_ARRAY) containers++;
    else if (b === COMMA || b === COLON) values++;
    if ((i & 0xffff) === 0 && n + containers * 64 + values * 8 > stopAt) break;
  }
  return n + containers * 64 + values * 8;
}
