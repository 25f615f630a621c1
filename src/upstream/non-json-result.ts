// A successful upstream response that is not JSON -> the tool result: an empty body, text, or an image, audio clip or
// file as base64. A tool that declares an outputSchema still gets a structured result: its empty one, or a small
// descriptor the open schema takes; base64 is never cut.
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/server';
import type { CatalogueTool, JsonSchema } from '../catalogue/types.ts';
import { validate } from '../catalogue/validator.ts';
import { bytesToBase64 } from '../lib/bytes.ts';
import { baseMediaType } from '../lib/media-type.ts';
import { fitTokens, withinTokens } from '../lib/tokens.ts';
import { errorResult } from '../lib/tool-result.ts';
import { NOTE_ANNOTATIONS, type BodyKind, type Conversion, type ConvertContext } from './conversion.ts';

function humanBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB (${n} bytes)`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB (${n} bytes)`;
}

/** `text`: the body decoded, for kind 'text'. */
export function nonJsonResult(kind: Exclude<BodyKind, 'json'>, tool: CatalogueTool, schema: JsonSchema | undefined, bytes: Uint8Array, text: () => string, ctx: ConvertContext): Conversion {
  const mt = baseMediaType(ctx.contentType) || 'application/octet-stream';
  switch (kind) {
    case 'empty':
      return emptyResult(tool, schema, ctx);
    case 'text': {
      const body = text();
      const cut = !withinTokens(body, ctx.budget.tokens);
      const kept = cut ? fitTokens(body, ctx.budget.dataTokens) : body;
      const content: ContentBlock[] = [{ type: 'text', text: cut ? `${kept}… [${body.length - kept.length} more characters cut]` : body }];
      if (cut) content.push({ type: 'text', text: `Text shortened to fit the ~${ctx.budget.tokens}-token budget (${body.length} characters in full, ${mt}).`, annotations: NOTE_ANNOTATIONS });
      return describedResult(schema, { content }, kind, cut, { content_type: mt, bytes: bytes.length, text: content[0] && 'text' in content[0] ? content[0].text : '' }, ctx);
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
        return describedResult(schema, { content }, kind, true, { content_type: mt, bytes: bytes.length }, ctx);
      }
      const data = bytesToBase64(bytes);
      const line: ContentBlock = { type: 'text', text: `${label}: ${mt}, ${humanBytes(bytes.length)} from ${where}.` };
      let block: ContentBlock;
      if (kind === 'image') block = { type: 'image', data, mimeType: mt };
      else if (kind === 'audio') block = { type: 'audio', data, mimeType: mt };
      else block = { type: 'resource', resource: { uri: resourceUri(tool.name, ctx.path), mimeType: mt, blob: data } };
      return describedResult(schema, { content: [block, line] }, kind, false, { content_type: mt, bytes: bytes.length }, ctx);
    }
  }
}

function resourceUri(toolName: string, path: string): string {
  return `upstream://${toolName}${path.startsWith('/') ? path : `/${path}`}`;
}

function emptyResult(tool: CatalogueTool, schema: JsonSchema | undefined, ctx: ConvertContext): Conversion {
  const text = `HTTP ${ctx.status}${ctx.statusText ? ` ${ctx.statusText}` : ''}: the upstream accepted ${ctx.method} ${ctx.path} and returned no content.`;
  const ok = { kind: 'empty' as const, outcome: 'ok' as const, truncated: false };
  if (!schema) return { ...ok, validation: 'none', result: { content: [{ type: 'text', text }] } };
  // The empty structured result: {} for an object root, {result: null} for a wrapped one (the generator makes both
  // validate for every operation that can succeed without a body, docs/generator.md).
  const candidates: Record<string, unknown>[] = tool.outputWrapped ? [{ result: null }, {}] : [{}, { result: null }];
  const first = validate(schema, candidates[0]);
  const fit = first.valid ? candidates[0] : validate(schema, candidates[1]).valid ? candidates[1] : undefined;
  if (fit) return { ...ok, validation: 'valid', result: { content: [{ type: 'text', text }], structuredContent: fit } };
  // Only a catalogue built otherwise gets here; the mismatch counts towards the automatic drop (src/schema-health).
  return {
    kind: 'empty',
    outcome: 'schema_mismatch',
    validation: 'mismatch',
    truncated: false,
    schemaErrors: first.errors.slice(0, 5),
    result: errorResult(`${text} The tool declares structured output, so there is no structured result to return. The operation succeeded: do not retry it.`),
  };
}

/**
 * A tool that declares an outputSchema must send structuredContent (strict clients fail the call otherwise). For a
 * non-JSON success, a small descriptor object is used if the (open) schema accepts it; otherwise the result is flagged
 * isError with an explanation.
 */
function describedResult(schema: JsonSchema | undefined, result: CallToolResult, kind: BodyKind, truncated: boolean, descriptor: Record<string, unknown>, ctx: ConvertContext): Conversion {
  if (!schema) return { kind, outcome: 'ok', validation: 'none', truncated, result };
  const structured = { ...descriptor, note: `The upstream returned ${descriptor.content_type} instead of JSON; see the content blocks.` };
  const check = validate(schema, structured);
  if (check.valid) return { kind, outcome: 'ok', validation: 'valid', truncated, result: { ...result, structuredContent: structured } };
  // A wrapped schema takes the descriptor beside its empty result.
  const wrapped = { result: null, ...structured };
  if (validate(schema, wrapped).valid) return { kind, outcome: 'ok', validation: 'valid', truncated, result: { ...result, structuredContent: wrapped } };
  return {
    kind,
    outcome: 'schema_mismatch',
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
