// What one api.<tool>(args) call answers inside the sandbox, and how a tools/call result becomes that answer:
// the structured result (unwrapped when the catalogue wrapped a non-object root), or, for a failed call, the
// exact text tools/call would have returned, which the sandbox throws as an ApiError.
import type { CallToolResult } from '@modelcontextprotocol/server';

export type ApiReply =
  | { ok: true; value: unknown; /** JSON characters of the value: charged to the sandbox's allocation budget. */ size: number }
  | { ok: false; error: string; /** A limit refused the call: the whole execution fails. */ limit?: true };

/** Runs one tool for the sandbox. Phase 2 plugs in "this tool with this request's scope" (docs/code-mode.md). */
export type ToolCall = (name: string, args: Record<string, unknown>) => Promise<ApiReply>;

/** `wrapped`: the tool's outputWrapped flag (structuredContent is {result: <upstream JSON>}). */
export function replyFromResult(result: CallToolResult, wrapped: boolean): ApiReply {
  const texts = result.content.filter((b): b is { type: 'text'; text: string } => b.type === 'text').map((b) => b.text);
  if (result.isError) return { ok: false, error: texts.join('\n') || 'The tool call failed.' };
  const structured = result.structuredContent;
  if (structured) {
    const value = wrapped ? (structured as { result?: unknown }).result : structured;
    // The first text block is exactly JSON.stringify(structuredContent) (src/upstream/response.ts).
    return { ok: true, value, size: texts[0]?.length ?? JSON.stringify(value).length };
  }
  if (texts.length === result.content.length) {
    const text = texts.join('\n');
    return { ok: true, value: parseJsonOr(text), size: text.length };
  }
  // Images, audio and files: the blocks as tools/call returns them (base64 data included).
  const value = { content: result.content };
  return { ok: true, value, size: JSON.stringify(value).length };
}

function parseJsonOr(text: string): unknown {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
