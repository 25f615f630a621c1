// A successful upstream response (status < 400, body already read within limits) -> CallToolResult.
// Invariants: structuredContent is present only on non-error results and always passes the tool's
// outputSchema; a text block always carries the same data; base64 is never cut; a success is not isError (a body
// the schema does not describe goes beside it, beside-schema.ts), unless the schema takes no structured result at all.
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/server';
import type { CatalogueTool } from '../catalogue/types.ts';
import { validate } from '../catalogue/validator.ts';
import { CHARS_PER_TOKEN } from '../limit-defaults.ts';
import { bytesToBase64 } from '../lib/bytes.ts';
import { baseMediaType, isJsonMediaType, isTextMediaType } from '../lib/media-type.ts';
import { errorResult } from '../lib/tool-result.ts';
import type { Shaped } from '../results/shape.ts';
import { besideSchema } from './beside-schema.ts';
import { isPlainObject } from './encoding.ts';
import { truncateText } from './errors.ts';
import { pagingArgs, shrinkJson, truncationNote } from './truncate.ts';

export type ValidationOutcome = 'valid' | 'mismatch' | 'none';

interface Conversion {
  result: CallToolResult;
  validation: ValidationOutcome;
  truncated: boolean;
  kind: BodyKind;
  /** First schema errors when validation is 'mismatch'. */
  schemaErrors?: string[];
}

interface ConvertContext {
  status: number;
  statusText: string;
  contentType: string | null;
  method: string;
  /** Encoded request path (no query), used for resource URIs and descriptions. */
  path: string;
  maxResultTokens: number;
  maxBinaryBytes: number;
  /** Result shaping for JSON (src/results): projection, compaction, whole items that fit. Absent: the JSON as sent. */
  shape?: (value: unknown) => Shaped;
}

type BodyKind = 'json' | 'image' | 'audio' | 'text' | 'binary' | 'empty';

export const SCHEMA_MISMATCH_MESSAGE = 'upstream response did not match the declared output schema';

const NOTE_ANNOTATIONS = { audience: ['assistant' as const], priority: 1 };

function charsetOf(contentType: string | null): string {
  const m = /;\s*charset="?([^";]+)"?/i.exec(contentType ?? '');
  return m?.[1]?.trim().toLowerCase() ?? 'utf-8';
}

function decodeText(bytes: Uint8Array, contentType: string | null): string {
  try {
    return new TextDecoder(charsetOf(contentType)).decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
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
    JSON.parse(new TextDecoder().decode(bytes));
    return true;
  } catch {
    return false;
  }
}

function humanBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB (${n} bytes)`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB (${n} bytes)`;
}

export function convertResponse(tool: CatalogueTool, bytes: Uint8Array, ctx: ConvertContext): Conversion {
  const kind = classify(bytes, ctx.status, ctx.contentType);
  const mt = baseMediaType(ctx.contentType) || 'application/octet-stream';
  const budgetChars = ctx.maxResultTokens * CHARS_PER_TOKEN;
  switch (kind) {
    case 'empty':
      return convertEmpty(tool, ctx);
    case 'json': {
      const text = decodeText(bytes, ctx.contentType);
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch (e) {
        return {
          kind,
          validation: 'none',
          truncated: false,
          result: errorResult(
            `The upstream answered HTTP ${ctx.status} with content-type ${ctx.contentType ?? '(none)'} but the body is not valid JSON ` +
              `(${(e as Error).message}). The request itself may have taken effect; do not retry a non-idempotent call blindly.\n` +
              `Raw body (trimmed): ${truncateText(text.trim(), 2000)}`,
          ),
        };
      }
      return convertJson(tool, data, budgetChars, ctx.maxResultTokens, ctx.shape);
    }
    case 'text': {
      const text = decodeText(bytes, ctx.contentType);
      const cut = text.length > budgetChars;
      const content: ContentBlock[] = [{ type: 'text', text: cut ? truncateText(text, budgetChars) : text }];
      if (cut) content.push({ type: 'text', text: `Text shortened to fit the ~${ctx.maxResultTokens}-token budget (${text.length} characters in full, ${mt}).`, annotations: NOTE_ANNOTATIONS });
      return nonJsonForTool(tool, { content }, kind, cut, { content_type: mt, bytes: bytes.length, text: content[0] && 'text' in content[0] ? content[0].text : '' }, ctx);
    }
    case 'image':
    case 'audio':
    case 'binary': {
      const label = kind === 'image' ? 'Image' : kind === 'audio' ? 'Audio' : 'File';
      const where = `${ctx.method} ${ctx.path}`;
      if (bytes.length > ctx.maxBinaryBytes) {
        const content: ContentBlock[] = [
          { type: 'text', text: `${label}: ${mt}, ${humanBytes(bytes.length)} from ${where}; too large to include (limit ${humanBytes(ctx.maxBinaryBytes)}).` },
        ];
        return nonJsonForTool(tool, { content }, kind, true, { content_type: mt, bytes: bytes.length }, ctx);
      }
      const data = bytesToBase64(bytes);
      const line: ContentBlock = { type: 'text', text: `${label}: ${mt}, ${humanBytes(bytes.length)} from ${where}.` };
      let block: ContentBlock;
      if (kind === 'image') block = { type: 'image', data, mimeType: mt };
      else if (kind === 'audio') block = { type: 'audio', data, mimeType: mt };
      else block = { type: 'resource', resource: { uri: resourceUri(tool.name, ctx.path), mimeType: mt, blob: data } };
      return nonJsonForTool(tool, { content: [block, line] }, kind, false, { content_type: mt, bytes: bytes.length }, ctx);
    }
  }
}

function resourceUri(toolName: string, path: string): string {
  return `upstream://${toolName}${path.startsWith('/') ? path : `/${path}`}`;
}

function convertJson(tool: CatalogueTool, data: unknown, budgetChars: number, budgetTokens: number, shape?: (value: unknown) => Shaped): Conversion {
  const schema = tool.outputSchema;
  if (!schema) {
    const shaped = shape?.(data);
    const value = shaped ? shaped.value : data;
    const shrunk = shrinkJson(value, budgetChars);
    const note = joinNotes(shaped?.note, shrunk && truncationNote(shrunk, budgetTokens, pagingArgs(tool.inputSchema)));
    const content: ContentBlock[] = [{ type: 'text', text: JSON.stringify(shrunk ? shrunk.value : value) }];
    if (note) content.push({ type: 'text', text: note, annotations: NOTE_ANNOTATIONS });
    return { kind: 'json', validation: 'none', truncated: Boolean(shrunk || shaped?.cut), result: { content } };
  }

  const wrap = tool.outputWrapped === true || !isPlainObject(data);
  let structured: Record<string, unknown> = wrap ? { result: data } : (data as Record<string, unknown>);
  const check = validate(schema, structured);
  if (!check.valid) return mismatch(tool, data, check.errors, budgetChars);

  // Shaping only removes properties and whole items, so the result keeps matching the open schema; checked anyway.
  let shapeNote: string | undefined;
  let cut = false;
  const shaped = shape?.(structured);
  if (shaped && isPlainObject(shaped.value) && validate(schema, shaped.value).valid) {
    structured = shaped.value;
    shapeNote = shaped.note;
    cut = shaped.cut;
  }

  let truncated = cut;
  const shrunk = shrinkJson(structured, budgetChars - 600);
  const note = joinNotes(shapeNote, shrunk && truncationNote(shrunk, budgetTokens, pagingArgs(tool.inputSchema)));
  if (shrunk || note) {
    const candidate = { ...((shrunk ? shrunk.value : structured) as Record<string, unknown>) };
    if (note) candidate[noteKey(candidate, schema, cut || shrunk ? 'truncated' : 'note')] = note;
    if (validate(schema, candidate).valid) {
      structured = candidate;
      truncated ||= Boolean(shrunk);
    } else if (shrunk) {
      // Cutting broke the schema (e.g. minItems): the shortened data goes beside it.
      const cutData = wrap ? (shrunk.value as Record<string, unknown>).result : shrunk.value;
      const aside = besideSchema(schema, wrap, cutData, (key) => `The result is too large to return (over ~${budgetTokens} tokens) and could not be shortened within the declared schema; the shortened data is under "${key}". ${note}`);
      if (aside) return { kind: 'json', validation: 'valid', truncated: true, result: { content: [{ type: 'text', text: JSON.stringify(aside) }], structuredContent: aside } };
      return {
        kind: 'json',
        validation: 'valid',
        truncated: true,
        result: errorResult(
          `The result is too large to return (over ~${budgetTokens} tokens) and could not be shortened within the declared schema. ${note}\n` +
            JSON.stringify(shrunk.value).slice(0, budgetChars),
        ),
      };
    }
  }
  return {
    kind: 'json',
    validation: 'valid',
    truncated,
    result: { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured },
  };
}

function joinNotes(...notes: Array<string | undefined | false>): string | undefined {
  const text = notes.filter(Boolean).join(' ');
  return text || undefined;
}

/** A key for the note that neither the data nor the schema uses: `truncated` (something was left out) or `note`. */
function noteKey(obj: Record<string, unknown>, schema: Record<string, unknown>, base: 'truncated' | 'note'): string {
  const props = isPlainObject(schema.properties) ? schema.properties : {};
  for (const k of [base, `_${base}`, `_${base}_note`]) if (!(k in obj) && !(k in props)) return k;
  return `_mcp_${base}_note`;
}

function mismatch(tool: CatalogueTool, data: unknown, errors: string[], budgetChars: number): Conversion {
  const first = errors.slice(0, 5);
  const shrunk = shrinkJson(data, budgetChars - 1000);
  const value = shrunk ? shrunk.value : data;
  const why = `${SCHEMA_MISMATCH_MESSAGE} of tool ${tool.name} (${first.join('; ')})`;
  const base = { kind: 'json' as const, validation: 'mismatch' as const, truncated: !!shrunk, schemaErrors: first };
  const aside = besideSchema(tool.outputSchema!, tool.outputWrapped === true, value, (key) => `The call succeeded, but the ${why}; the data is under "${key}" as the API sent it${shrunk ? ', shortened to fit' : ''}.`);
  if (aside) return { ...base, result: { content: [{ type: 'text', text: JSON.stringify(aside) }], structuredContent: aside } };
  // A schema that takes no structured result at all (a catalogue built otherwise): only isError can carry the data.
  return {
    ...base,
    result: {
      content: [
        { type: 'text', text: `Error: ${why}. The upstream call itself succeeded; the data it returned follows as JSON.` },
        { type: 'text', text: JSON.stringify(value) },
      ],
      isError: true,
    },
  };
}

function convertEmpty(tool: CatalogueTool, ctx: ConvertContext): Conversion {
  const text = `HTTP ${ctx.status}${ctx.statusText ? ` ${ctx.statusText}` : ''}: the upstream accepted ${ctx.method} ${ctx.path} and returned no content.`;
  if (!tool.outputSchema) return { kind: 'empty', validation: 'none', truncated: false, result: { content: [{ type: 'text', text }] } };
  // The empty structured result: {} for an object root, {result: null} for a wrapped one (the generator makes both
  // validate for every operation that can succeed without a body, docs/generator.md).
  const candidates: Record<string, unknown>[] = tool.outputWrapped ? [{ result: null }, {}] : [{}, { result: null }];
  const check = candidates.map((structured) => ({ structured, check: validate(tool.outputSchema!, structured) }));
  const fit = check.find((c) => c.check.valid);
  if (fit) return { kind: 'empty', validation: 'valid', truncated: false, result: { content: [{ type: 'text', text }], structuredContent: fit.structured } };
  // Only a catalogue built otherwise gets here; the mismatch counts towards the automatic drop (schema-autodrop.ts).
  return {
    kind: 'empty',
    validation: 'mismatch',
    truncated: false,
    schemaErrors: check[0]!.check.errors.slice(0, 5),
    result: errorResult(`${text} The tool declares structured output, so there is no structured result to return. The operation succeeded: do not retry it.`),
  };
}

/**
 * A tool that declares an outputSchema must send structuredContent (strict clients fail the call
 * otherwise). When the upstream sends a non-JSON success, a small descriptor object is used if the
 * (open) schema accepts it; otherwise the result is flagged isError with an explanation.
 */
function nonJsonForTool(
  tool: CatalogueTool,
  result: CallToolResult,
  kind: BodyKind,
  truncated: boolean,
  descriptor: Record<string, unknown>,
  ctx: ConvertContext,
): Conversion {
  if (!tool.outputSchema) return { kind, validation: 'none', truncated, result };
  const structured = { ...descriptor, note: `The upstream returned ${descriptor.content_type} instead of JSON; see the content blocks.` };
  const check = validate(tool.outputSchema, structured);
  if (check.valid) {
    return { kind, validation: 'valid', truncated, result: { ...result, structuredContent: structured } };
  }
  // A wrapped schema takes the descriptor beside its empty result.
  const wrapped = { result: null, ...structured };
  if (validate(tool.outputSchema, wrapped).valid) return { kind, validation: 'valid', truncated, result: { ...result, structuredContent: wrapped } };
  return {
    kind,
    validation: 'mismatch',
    truncated,
    schemaErrors: [`/: ${descriptor.content_type} instead of JSON`, ...check.errors.slice(0, 4)],
    result: {
      content: [
        {
          type: 'text',
          text: `The upstream answered HTTP ${ctx.status} with ${descriptor.content_type}, not the JSON this tool declares, so there is no structured result. The request itself succeeded; the content follows.`,
        },
        ...result.content,
      ],
      isError: true,
    },
  };
}
