// Tool results shared by every tool the Worker serves (catalogue tools and discovery meta-tools).
import type { CallToolResult } from '@modelcontextprotocol/server';

/** An error the model can act on: text only, never structuredContent (strict clients validate it even on errors). */
export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
