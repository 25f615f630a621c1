// Typed discovery mode (/mcp/discover or ?mode=discover): three meta-tools instead of the catalogue.
// search_tools ranks the slice's tools; describe_tool returns a tool's input and output schemas;
// call_tool runs the real tool through callTool, the same path as tools/call, and returns its real result, checked
// against the outputSchema describe_tool returned (call_tool itself has no fixed outputSchema).
import { cutQuote } from '../lib/cut-quote.ts';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { Slice } from '../catalogue/slices.ts';
import type { CatalogueTool } from '../catalogue/types.ts';
import { didYouMean } from '../lib/nearest.ts';
import { errorResult } from '../lib/tool-result.ts';
import { applyDialect } from '../profiles/dialects.ts';
import type { WireTool } from '../profiles/view.ts';
import { callTool } from '../tools/call.ts';
import { resolveTool, typedHandle, UnknownToolError, type ToolHandle } from '../tools/handle.ts';
import type { RequestScope } from '../tools/scope.ts';
import { keyScopeNote, refusedCall, scopeRefusal } from '../tools/scope-refusal.ts';
import type { ToolAnswer, ToolSurface } from '../tools/surface.ts';
import { describedOutputSchema } from './described-schema.ts';
import { discoveryTools } from './listing.ts';
import { queryTooLong, rankToolsLoaded, withSummary } from './search.ts';

const listings = new Map<string, WireTool[]>();

export function discoverySurface(scope: RequestScope): ToolSurface {
  const { catalogue: loaded, slice, profile } = scope;
  // Per profile and per what the slice reaches (four at most): call_tool's hints follow the slice.
  const key = `${profile.id} ${Number(slice.reach.writes)}${Number(slice.reach.destroys)}`;
  let tools = listings.get(key);
  if (!tools) listings.set(key, (tools = discoveryTools(profile, slice.reach)));
  const advertised = new Map(tools.map((t) => [t.name, t.outputSchema]));
  const shaped = (name: string, result: CallToolResult): ToolAnswer => ({ result, shape: { outputSchema: advertised.get(name) } });
  const { source } = loaded.catalogue;
  return {
    tools,
    instructions: `Discovery mode for ${source.title} (API version ${source.version}): ${slice.tools.length} operations of its REST API. Use search_tools to find an operation, describe_tool for its schemas, then call_tool to run it.` + keyScopeNote(scope),
    async call(name, args) {
      if (name === 'search_tools') return shaped(name, await search(loaded, slice, args));
      if (name === 'describe_tool') return shaped(name, await describe(scope, args));
      if (name !== 'call_tool') throw new UnknownToolError(name);
      const inner = await resolve(scope, args.name);
      // A catalogue tool outside the scope is refused by name, and counted as such.
      if (typeof inner === 'string') return shaped(name, errorResult((typeof args.name === 'string' && refusedCall(scope, args.name, 'discover')) || inner));
      const innerArgs = argumentsOf(args.arguments);
      if (!innerArgs) return { result: errorResult('"arguments" must be an object (a JSON object string under the openai profile), matching the inputSchema describe_tool returned.') };
      // No fixed outputSchema: structuredContent is the inner tool's own, matching describe_tool's outputSchema.
      return callTool(scope, describedHandle(scope, inner), innerArgs);
    },
  };
}

/**
 * A tool called by name without being listed (call_tool, or an unlisted tool of a hybrid list): its result is
 * checked against the catalogue's own outputSchema (describe_tool hands out the same shape, only cut when very large:
 * a cut only loosens), and passed through without the listing's wire shaping.
 */
export function describedHandle(scope: RequestScope, tool: CatalogueTool): ToolHandle {
  return typedHandle(scope, tool, tool.outputSchema, false);
}

/** call_tool's inner arguments: an object, or (strict callers, whose schema has no free-form objects) its JSON text. */
function argumentsOf(given: unknown): Record<string, unknown> | undefined {
  let value = given ?? {};
  if (typeof value === 'string') {
    try {
      value = value.trim() ? JSON.parse(value) : {};
    } catch {
      return undefined;
    }
  }
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A tool of this scope by catalogue name or alias, or the text of the error result. */
async function resolve(scope: RequestScope, name: unknown): Promise<CatalogueTool | string> {
  if (typeof name !== 'string' || !name) return '"name" must be a tool name from search_tools.';
  return (await resolveTool(scope, name))?.tool ?? scopeRefusal(scope, name, 'discover') ?? `Unknown tool: ${cutQuote(name)}. Use search_tools to find tool names.`;
}

async function search(loaded: LoadedCatalogue, slice: Slice, args: Record<string, unknown>): Promise<CallToolResult> {
  const query = typeof args.query === 'string' ? args.query.trim() : '';
  if (!query) return errorResult('"query" must be a non-empty string, e.g. "list open pull requests".');
  const tooLong = queryTooLong(query);
  if (tooLong) return errorResult(tooLong);
  const toolset = typeof args.toolset === 'string' && args.toolset ? args.toolset : undefined;
  if (toolset && !Object.hasOwn(loaded.catalogue.toolsets, toolset)) {
    const valid = Object.keys(loaded.catalogue.toolsets);
    return errorResult(`Unknown toolset: ${cutQuote(toolset)}.${didYouMean(toolset, valid)} Valid toolsets: ${valid.join(', ')}`);
  }
  const limit = typeof args.limit === 'number' && Number.isInteger(args.limit) ? Math.min(25, Math.max(1, args.limit)) : 8;
  const hits = (await rankToolsLoaded(loaded, slice, query, { toolset, limit })).map((h) => withSummary(loaded, h));
  const results = hits.map((h) => ({ name: h.name, title: h.title, summary: h.summary }));
  const text = results.length ? results.map((r) => `${r.name}: ${r.title}${r.summary && r.summary !== r.title ? `. ${r.summary}` : ''}`).join('\n') : `No tools match "${query}".`;
  return { content: [{ type: 'text', text }], structuredContent: { results } };
}

async function describe(scope: RequestScope, args: Record<string, unknown>): Promise<CallToolResult> {
  const { profile } = scope;
  const tool = await resolve(scope, args.name);
  if (typeof tool === 'string') return errorResult(tool);
  const out: Record<string, unknown> = {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: applyDialect(tool.inputSchema, profile),
    annotations: tool.annotations,
    toolsets: tool.toolsets,
  };
  const outputSchema = describedOutputSchema(tool, profile);
  if (outputSchema) out.outputSchema = outputSchema;
  return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
}
