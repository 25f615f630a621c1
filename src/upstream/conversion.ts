// What turning one successful upstream response into a tool result produced (src/upstream/response.ts and the
// per-kind modules it dispatches to), and what that turning needs to know about the response and the call.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CallOutcome } from '../lib/call-outcome.ts';
import type { ResultBudget } from '../results/budget.ts';
import type { Shaped } from '../results/shape.ts';

export type ValidationOutcome = 'valid' | 'mismatch' | 'none';

export type BodyKind = 'json' | 'image' | 'audio' | 'text' | 'binary' | 'empty';

export interface Conversion {
  result: CallToolResult;
  outcome: CallOutcome;
  validation: ValidationOutcome;
  truncated: boolean;
  kind: BodyKind;
  /** First schema errors when validation is 'mismatch'. */
  schemaErrors?: string[];
  /** The result's JSON, when it was assembled from the one serialisation of structuredContent. */
  json?: string;
}

export interface ConvertContext {
  status: number;
  statusText: string;
  contentType: string | null;
  method: string;
  /** Encoded request path (no query), used for resource URIs and descriptions. */
  path: string;
  budget: ResultBudget;
  maxBinaryBytes: number;
  /** Result shaping for JSON (src/results): projection, compaction, whole items that fit. Absent: the JSON as sent. */
  shape?: (value: unknown) => Shaped;
}

/** Notes are for the model, not the person. */
export const NOTE_ANNOTATIONS = { audience: ['assistant' as const], priority: 1 };

export const SCHEMA_MISMATCH_MESSAGE = 'upstream response did not match the declared output schema';

/**
 * The JSON of `{content: [{type: 'text', text}], structuredContent}` when `text` is JSON.stringify(structuredContent):
 * the structured value is serialised once and its text reused, exactly as JSON.stringify of that result writes it.
 */
export function structuredResultJson(text: string): string {
  return `{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}}`;
}
