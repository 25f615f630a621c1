// The discovery meta-tools' tools/list entries (no runtime dependencies: the token report imports this in Node).
import type { SliceReach } from '../catalogue/slices.ts';
import type { JsonSchema } from '../catalogue/types.ts';
import type { Profile } from '../profiles/profiles.ts';
import { toStrictSchema } from '../profiles/strict-schema.ts';
import type { WireTool } from '../profiles/view.ts';

const SEARCH_OUTPUT: JsonSchema = {
  type: 'object',
  properties: {
    results: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' }, title: { type: 'string' }, summary: { type: 'string' } }, required: ['name', 'title', 'summary'] },
    },
  },
  required: ['results'],
};

const DESCRIBE_OUTPUT: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object' },
    annotations: { type: 'object' },
    toolsets: { type: 'array', items: { type: 'string' } },
  },
  required: ['name', 'title', 'description', 'inputSchema'],
};

/** A meta-tool that only reads the catalogue (search, describe). */
export const CATALOGUE_READ = (title: string) => ({ title, readOnlyHint: true, destructiveHint: false, openWorldHint: false });

/**
 * The annotations of a meta-tool that runs the slice's tools (call_tool, code mode's execute): read-only when every
 * tool it can reach is (a ?readonly slice, a read-only key), destructive only when a destructive one is in reach.
 */
export function reachAnnotations(title: string, reach: SliceReach): Record<string, unknown> {
  if (!reach.writes) return { title, readOnlyHint: true, destructiveHint: false, openWorldHint: true };
  return { title, readOnlyHint: false, destructiveHint: reach.destroys, idempotentHint: false, openWorldHint: true };
}

/** What a slice of a full catalogue reaches: writes, destructive ones among them. */
export const FULL_REACH: SliceReach = { writes: true, destroys: true };

/** The meta-tools' tools/list entries for one profile, over a slice that reaches `reach`. */
export function discoveryTools(profile: Profile, reach: SliceReach = FULL_REACH): WireTool[] {
  const typed = profile.carry === 'both';
  const tools: WireTool[] = [
    {
      name: 'search_tools',
      title: 'Search tools',
      description: 'Find API operations by what they do. Returns ranked tool names with a one-line summary; then call describe_tool.',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'What you want to do, e.g. "list open pull requests".' },
          toolset: { type: 'string', description: 'Only search this toolset.' },
          limit: { type: 'integer', minimum: 1, maximum: 25, description: 'Max results (default 8).' },
        },
        required: ['query'],
      },
      annotations: CATALOGUE_READ('Search tools'),
    },
    {
      name: 'describe_tool',
      title: 'Describe a tool',
      description: "Get a tool's description, inputSchema (the arguments for call_tool) and outputSchema (the shape of call_tool's structuredContent).",
      inputSchema: { type: 'object', properties: { name: { type: 'string', description: 'Tool name from search_tools.' } }, required: ['name'] },
      annotations: CATALOGUE_READ('Describe a tool'),
    },
    {
      name: 'call_tool',
      title: 'Call a tool',
      description: "Run a tool with arguments matching its inputSchema. Returns the tool's own result.",
      inputSchema: {
        type: 'object',
        properties: { name: { type: 'string', description: 'Tool name.' }, arguments: { type: 'object', description: 'Arguments for the tool.' } },
        required: ['name'],
      },
      // The inner tool decides what happens upstream: the hints say what the slice lets it reach.
      annotations: reachAnnotations('Call a tool', reach),
    },
  ];
  if (typed) {
    tools[0]!.outputSchema = SEARCH_OUTPUT;
    tools[1]!.outputSchema = DESCRIBE_OUTPUT;
  }
  // Strict callers (openai): call_tool's free-form arguments travel as a JSON string.
  if (profile.dialect === 'strict') for (const t of tools) t.inputSchema = toStrictSchema(t.inputSchema);
  return tools;
}
