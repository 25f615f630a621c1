// The discovery meta-tools' tools/list entries (no runtime dependencies: the token report imports this in Node).
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

/** The meta-tools' tools/list entries for one profile. */
export function discoveryTools(profile: Profile): WireTool[] {
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
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: 'describe_tool',
      title: 'Describe a tool',
      description: "Get a tool's description, inputSchema (the arguments for call_tool) and outputSchema (the shape of call_tool's structuredContent).",
      inputSchema: { type: 'object', properties: { name: { type: 'string', description: 'Tool name from search_tools.' } }, required: ['name'] },
      annotations: { readOnlyHint: true, openWorldHint: false },
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
      // The inner tool decides: its result may change things upstream.
      annotations: { destructiveHint: true, openWorldHint: true },
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
