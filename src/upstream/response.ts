// A successful upstream response (status < 400, body already read within limits) -> the call's result.
// Invariants: structuredContent is present only on non-error results and always passes the outputSchema the client
// was shown; a text block always carries the same data; base64 is never cut; a success is not isError (a body the
// schema does not describe goes beside it, beside-schema.ts), unless the schema takes no structured result at all.
// JSON goes through the single pass of json-result.ts; every other kind through non-json-result.ts.
import type { ContentBlock } from '@modelcontextprotocol/server';
import type { CatalogueTool, JsonSchema } from '../catalogue/types.ts';
import { baseMediaType, isJsonMediaType, isTextMediaType } from '../lib/media-type.ts';
import { NOTE_ANNOTATIONS, type BodyKind, type Conversion, type ConvertContext } from './conversion.ts';
import { jsonResult } from './json-result.ts';
import { nonJsonResult } from './non-json-result.ts';

function charsetOf(contentType: string | null): string {
  const m = /;\s*charset="?([^";]+)"?/i.exec(contentType ?? '');
  return m?.[1]?.trim().toLowerCase() ?? 'utf-8';
}

const utf8 = new TextDecoder();

function decodeText(bytes: Uint8Array, contentType: string | null): string {
  const charset = charsetOf(contentType);
  if (charset === 'utf-8' || charset === 'utf8') return utf8.decode(bytes);
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return utf8.decode(bytes);
  }
}

function looksLikeText(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 4096);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return false;
  try {
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes.subarray(0, n));
    return true;
  } catch {
    // A multi-byte character cut at the sample edge is fine; anything else is binary.
    return n < bytes.length;
  }
}

export function classify(bytes: Uint8Array, status: number, contentType: string | null): BodyKind {
  if (status === 204 || status === 205 || status === 304 || bytes.length === 0) return 'empty';
  const mt = baseMediaType(contentType);
  if (isJsonMediaType(mt)) return 'json';
  if (mt === 'image/svg+xml') return 'text';
  if (mt.startsWith('image/')) return 'image';
  if (mt.startsWith('audio/')) return 'audio';
  if (isTextMediaType(mt)) return mt === 'text/plain' && sniffJson(bytes) ? 'json' : 'text';
  if (!mt || mt === '*/*' || mt === 'application/unknown') {
    if (sniffJson(bytes)) return 'json';
    return looksLikeText(bytes) ? 'text' : 'binary';
  }
  return 'binary';
}

function sniffJson(bytes: Uint8Array): boolean {
  let i = 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)) i++;
  if (bytes[i] !== 0x7b && bytes[i] !== 0x5b) return false; // { [
  try {
    JSON.parse(utf8.decode(bytes));
    return true;
  } catch {
    return false;
  }
}

/** `outputSchema`: the schema the client was shown, which structuredContent is shaped to and checked against. */
export function convertResponse(tool: CatalogueTool, outputSchema: JsonSchema | undefined, bytes: Uint8Array, ctx: ConvertContext): Conversion {
  const kind = classify(bytes, ctx.status, ctx.contentType);
  if (kind !== 'json') return nonJsonResult(kind, tool, outputSchema, bytes, () => decodeText(bytes, ctx.contentType), ctx);
  const text = decodeText(bytes, ctx.contentType);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return jsonAsText(tool, outputSchema, bytes, text, ctx, `the body is not valid JSON (${(e as Error).message})`);
  }
  try {
    return jsonResult(tool, outputSchema, data, ctx);
  } catch (e) {
    // JSON nested deeper than the stack allows (500,000 levels) parses, but shaping it overflows the stack.
    if (!(e instanceof RangeError) || !/call stack/i.test(e.message)) throw e;
    return jsonAsText(tool, outputSchema, bytes, text, ctx, 'the body is JSON nested too deeply to read as structured data');
  }
}

/**
 * A JSON answer that cannot be read as data is still a success: the request took effect, so the model gets a note on
 * what was wrong, then the body as text (with the structured descriptor a declared outputSchema needs); the outcome
 * says invalid_json. The note comes first so that no leading text block looks like JSON without being the result.
 */
function jsonAsText(tool: CatalogueTool, outputSchema: JsonSchema | undefined, bytes: Uint8Array, text: string, ctx: ConvertContext, why: string): Conversion {
  const asText = nonJsonResult('text', tool, outputSchema, bytes, () => text, ctx);
  const note: ContentBlock = {
    type: 'text',
    text: `The upstream answered HTTP ${ctx.status} with content-type ${ctx.contentType ?? '(none)'} but ${why}; it is shown as text. The request itself succeeded: do not retry it.`,
    annotations: NOTE_ANNOTATIONS,
  };
  return { ...asText, outcome: asText.outcome === 'ok' ? 'invalid_json' : asText.outcome, result: { ...asText.result, content: [note, ...asText.result.content] } };
}
