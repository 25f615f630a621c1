// Typed discovery mode (/mcp/discover or ?mode=discover): three meta-tools instead of the catalogue.
// search_tools ranks the slice's tools; describe_tool returns a tool's input and output schemas;
// call_tool runs the real tool through the same path as tools/call and returns its real result, so its
// structuredContent matches the outputSchema describe_tool returned (call_tool itself has no fixed outputSchema).
import { ProtocolError, ProtocolErrorCode, Server, type CallToolResult } from '@modelcontextprotocol/server';
import type { LoadedCatalogue } from '../catalogue/load.ts';
import type { Slice } from '../catalogue/slices.ts';
import type { CatalogueTool, JsonSchema } from '../catalogue/types.ts';
import { compactOutputSchema } from '../profiles/compact.ts';
import { PROFILES, type Profile } from '../profiles/profiles.ts';
import { applyDialect, contentOnly, type WireTool } from '../profiles/view.ts';
import { callTool } from '../protocol/tools-call.ts';
import type { RequestScope } from '../protocol/mcp-server.ts';
import { CACHE_HINTS } from '../protocol/tools-list.ts';
import { SERVER_NAME, VERSION } from '../version.ts';
import { searchTools } from './search.ts';
import { discoveryTools } from './tools.ts';

export { discoveryTools };

/** describe_tool keeps the full outputSchema up to this many JSON chars; larger ones are cut to fewer object levels (still matching every result). */
export const DESCRIBE_OUTPUT_MAX = 12_000;

const listings = new Map<string, WireTool[]>();

export function buildDiscoveryServer(scope: RequestScope): Server {
  const { loaded, slice } = scope;
  const profile = scope.profile ?? PROFILES.default;
  let tools = listings.get(profile.id);
  if (!tools) listings.set(profile.id, (tools = discoveryTools(profile)));
  const server = new Server(
    { name: SERVER_NAME, version: VERSION, title: loaded.catalogue.source.title },
    { capabilities: { tools: { listChanged: false } }, instructions: instructionsFor(loaded, slice), cacheHints: CACHE_HINTS },
  );
  const advertised = new Map(tools.map((t) => [t.name, t.outputSchema]));
  server.setRequestHandler('tools/list', () => ({ tools: tools as never }));
  server.setRequestHandler('tools/call', async (request) => {
    const { name, arguments: args = {} } = request.params;
    let result: CallToolResult;
    if (name === 'search_tools') result = search(loaded, slice, args);
    else if (name === 'describe_tool') result = describe(loaded, slice, profile, args);
    else if (name === 'call_tool') {
      const inner = resolve(loaded, slice, args.name);
      if (typeof inner === 'string') result = errorResult(inner);
      else {
        const innerArgs = args.arguments ?? {};
        if (!innerArgs || typeof innerArgs !== 'object' || Array.isArray(innerArgs)) result = errorResult('"arguments" must be an object.');
        else result = await callTool(inner, innerArgs as Record<string, unknown>, scope);
        // No fixed outputSchema: structuredContent is the inner tool's own, matching describe_tool's outputSchema.
        if (profile.carry === 'content') return contentOnly(result);
        return result;
      }
    } else throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    if (profile.carry === 'content') return contentOnly(result);
    return server.projectCallToolResult(result, advertised.get(name));
  });
  return server;
}

function instructionsFor(loaded: LoadedCatalogue, slice: Slice): string {
  const { source } = loaded.catalogue;
  return `Discovery mode for ${source.title} (API version ${source.version}): ${slice.listed.length} operations of its REST API. Use search_tools to find an operation, describe_tool for its schemas, then call_tool to run it.`;
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

function resolve(loaded: LoadedCatalogue, slice: Slice, name: unknown): CatalogueTool | string {
  if (typeof name !== 'string' || !name) return '"name" must be a tool name from search_tools.';
  const tool = loaded.byName.get(name);
  // Out-of-slice tools are refused exactly like unknown ones.
  if (!tool || !slice.names.has(tool.name)) return `Unknown tool: ${name}. Use search_tools to find tool names.`;
  return tool;
}

function search(loaded: LoadedCatalogue, slice: Slice, args: Record<string, unknown>): CallToolResult {
  const query = typeof args.query === 'string' ? args.query.trim() : '';
  if (!query) return errorResult('"query" must be a non-empty string, e.g. "list open pull requests".');
  const toolset = typeof args.toolset === 'string' && args.toolset ? args.toolset : undefined;
  if (toolset && !(toolset in loaded.catalogue.toolsets)) {
    return errorResult(`Unknown toolset: ${toolset}. Valid toolsets: ${Object.keys(loaded.catalogue.toolsets).join(', ')}`);
  }
  const limit = typeof args.limit === 'number' && Number.isInteger(args.limit) ? Math.min(25, Math.max(1, args.limit)) : 8;
  const hits = searchTools(loaded, slice, query, { toolset, limit });
  const results = hits.map((h) => ({ name: h.name, title: h.title, summary: h.summary }));
  const text = results.length ? results.map((r) => `${r.name}: ${r.title}${r.summary && r.summary !== r.title ? `. ${r.summary}` : ''}`).join('\n') : `No tools match "${query}".`;
  return { content: [{ type: 'text', text }], structuredContent: { results } };
}

function describe(loaded: LoadedCatalogue, slice: Slice, profile: Profile, args: Record<string, unknown>): CallToolResult {
  const tool = resolve(loaded, slice, args.name);
  if (typeof tool === 'string') return errorResult(tool);
  const out: Record<string, unknown> = {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: applyDialect(tool.inputSchema, profile),
    annotations: tool.annotations,
    toolsets: tool.toolsets,
  };
  if (tool.outputSchema && profile.carry === 'both') out.outputSchema = applyDialect(fitDescribeOutput(tool.outputSchema), profile, true);
  return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
}

const describeCache = new WeakMap<JsonSchema, JsonSchema>();

function fitDescribeOutput(schema: JsonSchema): JsonSchema {
  let hit = describeCache.get(schema);
  if (hit) return hit;
  hit = schema;
  if (JSON.stringify(schema).length > DESCRIBE_OUTPUT_MAX) {
    hit = compactOutputSchema(schema, 1);
    for (let d = 6; d >= 1; d--) {
      const c = compactOutputSchema(schema, d);
      if (JSON.stringify(c).length <= DESCRIBE_OUTPUT_MAX) {
        hit = c;
        break;
      }
    }
  }
  describeCache.set(schema, hit);
  return hit;
}
