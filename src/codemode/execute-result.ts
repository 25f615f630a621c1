// The execute tool's CallToolResult: the return value's JSON, then the console output; or, for a failure, an
// isError text with the message, the line and that line of the program, so the model can fix it and retry.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ExecError, ExecuteOutcome } from './outcome.ts';

const EXCERPT_CHARS = 160;

export function executeResult(outcome: ExecuteOutcome, code: string): CallToolResult {
  const logs = logBlock(outcome, outcome.ok ? 'Console output:' : 'Console output before the error:');
  if (outcome.ok) {
    const text = outcome.json ?? 'The program returned nothing (undefined). Return the value you need.';
    return { content: [{ type: 'text', text }, ...logs] };
  }
  const error = outcome.error ?? { kind: 'internal', message: 'The execution failed.' };
  return { isError: true, content: [{ type: 'text', text: errorText(error, code) }, ...logs] };
}

export function errorText(error: ExecError, code: string): string {
  const where = error.line ? lineExcerpt(code, error.line) : '';
  switch (error.kind) {
    case 'api':
      // The text is exactly what tools/call returned for that tool.
      return `api.${error.tool ?? '?'} failed${error.line ? ` at line ${error.line}` : ''} and the program did not catch the error:\n${error.message}${where}`;
    case 'error':
      return `${error.name ?? 'Error'}: ${error.message}${error.line ? ` (line ${error.line})` : ''}${where}`;
    case 'limit':
      return `${error.message}${error.line ? ` Stopped at line ${error.line}.` : ''}${where}`;
    default:
      return `${error.message}${error.line ? ` (line ${error.line})` : ''}${where}`;
  }
}

function lineExcerpt(code: string, line: number): string {
  const text = code.split('\n')[line - 1]?.trim();
  if (!text) return '';
  return `\n  ${line} | ${text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text}`;
}

function logBlock(outcome: ExecuteOutcome, title: string): Array<{ type: 'text'; text: string }> {
  if (!outcome.logs && !outcome.droppedLogChars) return [];
  const dropped = outcome.droppedLogChars ? `\n[${outcome.droppedAtLeast ? 'at least ' : ''}${outcome.droppedLogChars} more characters of console output were dropped]` : '';
  return [{ type: 'text', text: `${title}\n${outcome.logs}${dropped}` }];
}
