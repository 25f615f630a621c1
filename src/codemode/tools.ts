// Code mode's two tools/list entries (/mcp/code): search returns TypeScript declarations of matching operations,
// execute runs a program against them. The descriptions teach the whole pattern, so they state the real limits.
// No runtime dependencies: the token report imports this in Node.
import type { SliceReach } from '../catalogue/slices.ts';
import { CATALOGUE_READ, FULL_REACH, reachAnnotations } from '../discovery/listing.ts';
import type { WireTool } from '../profiles/view.ts';
import { CHARS_PER_TOKEN, type CodeLimits } from '../limit-defaults.ts';

/** search's default and largest `limit`. */
export const SEARCH_LIMIT = { default: 5, max: 20 };

/**
 * An example program for execute's description. Names are illustrative (the model takes real ones from search);
 * a deployment may pass one written with its own operations.
 */
export const GENERIC_EXAMPLE = [
  'const orders = await api.orders_list({ status: "open" });',
  'const totals = {};',
  'for (const o of orders) totals[o.id] = (await api.order_items_list({ order_id: o.id })).length;',
  'return totals;',
].join('\n');

/** search and execute; execute's hints say what the slice lets a program reach (a destructive call is refused inside a program when the client could confirm it: docs/confirmation.md). */
export function codeModeTools(limits: CodeLimits, example: string = GENERIC_EXAMPLE, reach: SliceReach = FULL_REACH): WireTool[] {
  const resultTokens = Math.round(limits.resultChars / CHARS_PER_TOKEN);
  return [
    {
      name: 'search',
      title: 'Search the API',
      description:
        'Find API operations for a task. Returns TypeScript declarations of the matching functions, api.<name>(args), with their argument and result types. Use them in execute.',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'What you want to do, e.g. "list open issues with a label".' },
          limit: { type: 'integer', minimum: 1, maximum: SEARCH_LIMIT.max, description: `How many operations (default ${SEARCH_LIMIT.default}).` },
        },
        required: ['query'],
      },
      annotations: CATALOGUE_READ('Search the API'),
    },
    {
      name: 'execute',
      title: 'Run code against the API',
      description:
        'Run JavaScript or TypeScript, the body of an async function. Call operations found with search as `await api.<name>(args)`: ' +
        "each returns the parsed JSON result; a failed call throws an Error with the API's message. " +
        `Chain calls, filter and aggregate in code, then \`return\` only what you need (as JSON, at most ${resultTokens} tokens); console.log output is returned too. ` +
        `No network or imports; at most ${limits.maxCalls} api calls and ${Math.round(limits.timeoutMs / 1000)} s per run.\n` +
        `Example (real names come from search):\n${example}`,
      inputSchema: {
        type: 'object',
        properties: { code: { type: 'string', description: 'The function body.' } },
        required: ['code'],
      },
      // The program may call any operation of the slice: the hints say what that reaches.
      annotations: reachAnnotations('Run code against the API', reach),
    },
  ];
}
