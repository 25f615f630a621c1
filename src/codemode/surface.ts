// Code mode (/mcp/code or ?mode=code): two tools over the slice. search ranks the slice's operations like discovery
// and answers with their TypeScript declarations (catalog/declarations.txt, shared types once per answer); execute
// runs a program in a sandbox through the scope's CodeModeHost (src/codemode/host.ts), each api call going through
// the one tool-call path. This module runs no sandbox itself, so the stdio server's bundle stays without one.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CatalogueTool } from '../catalogue/types.ts';
import type { CodeLimits } from '../limit-defaults.ts';
import { logOnce } from '../lib/log.ts';
import { errorResult } from '../lib/tool-result.ts';
import { queryTooLong, rankToolsLoaded } from '../discovery/search.ts';
import type { WireTool } from '../profiles/view.ts';
import { UnknownToolError } from '../tools/handle.ts';
import type { RequestScope } from '../tools/scope.ts';
import type { ToolSurface } from '../tools/surface.ts';
import { assembleDeclarations, NO_DECLARATIONS, parseDeclarations, type DeclarationsDoc, type ToolDeclaration } from './declarations.ts';
import { codeModeTools, SEARCH_LIMIT } from './tools.ts';
import { keyScopeNote } from '../tools/scope-refusal.ts';

/** Per limits (one per env) and per what the slice reaches (execute's hints follow it). */
const listings = new WeakMap<CodeLimits, Map<string, WireTool[]>>();
let parsed: { text: string; doc: Promise<DeclarationsDoc> } | undefined;

export function codeSurface(scope: RequestScope): ToolSurface {
  const limits = scope.config.code;
  let byReach = listings.get(limits);
  if (!byReach) listings.set(limits, (byReach = new Map()));
  const { reach } = scope.slice;
  const reachKey = `${Number(reach.writes)}${Number(reach.destroys)}`;
  let tools = byReach.get(reachKey);
  if (!tools) byReach.set(reachKey, (tools = codeModeTools(limits, undefined, reach)));
  const { source } = scope.catalogue.catalogue;
  const untyped = { outputSchema: undefined };
  return {
    tools,
    instructions:
      `Code mode for ${source.title} (API version ${source.version}): ${scope.slice.tools.length} operations of its REST API behind two tools. ` +
      'Call search to get TypeScript declarations of the operations for a task, then execute a short program that calls them as api.<name>(args) and returns only what you need.' +
      keyScopeNote(scope),
    async call(name, args) {
      if (name === 'search') return { result: await search(scope, args), shape: untyped };
      if (name !== 'execute') throw new UnknownToolError(name);
      const code = args.code;
      if (typeof code !== 'string' || !code.trim()) {
        return { result: errorResult('"code" must be the body of an async function as a string, e.g. "return await api.<name>({ ... });". Use search for the names.'), shape: untyped };
      }
      if (!scope.code) return { result: errorResult('execute is not available on this server: it has no sandbox (the Worker Loader binding LOADER).'), shape: untyped };
      return { result: await scope.code.execute(code, scope), shape: untyped };
    },
  };
}

async function search(scope: RequestScope, args: Record<string, unknown>): Promise<CallToolResult> {
  const query = typeof args.query === 'string' ? args.query.trim() : '';
  if (!query) return errorResult('"query" must be a non-empty string saying what you want to do, e.g. "list open issues with a label".');
  const tooLong = queryTooLong(query);
  if (tooLong) return errorResult(tooLong);
  const limit = typeof args.limit === 'number' && Number.isInteger(args.limit) ? Math.min(SEARCH_LIMIT.max, Math.max(1, args.limit)) : SEARCH_LIMIT.default;
  const hits = await rankToolsLoaded(scope.catalogue, scope.slice, query, { limit });
  if (!hits.length) return { content: [{ type: 'text', text: `No operations match "${query}". Try other words for what you want to do.` }] };
  const doc = await declarationsOf(scope);
  const text = assembleDeclarations(doc, hits.map((h) => h.name), (name) => untypedDeclaration(scope.catalogue.byName.get(name)));
  return { content: [{ type: 'text', text }] };
}

/** The declarations document of the served catalogue, parsed (and for a sharded catalogue read) once per isolate. */
async function declarationsOf(scope: RequestScope): Promise<DeclarationsDoc> {
  const text = scope.code?.declarations ?? '';
  if (parsed?.text !== text) parsed = { text, doc: readDeclarations(text, scope.code?.readAsset) };
  const mine = parsed;
  const doc = await mine.doc;
  // An asset that could not be read is tried again by the next search; meanwhile answers are untyped.
  if (doc === NO_DECLARATIONS && text && parsed === mine) parsed = undefined;
  const hash = scope.catalogue.catalogue.hash;
  if (text && hash && doc !== NO_DECLARATIONS && doc.catalogueHash !== hash) {
    logOnce('declarations_stale', 'declarations_stale', { declarations: doc.catalogueHash, catalogue: hash, effect: 'search answers may not match the tools; run npm run catalog' });
  }
  return doc;
}

async function readDeclarations(text: string, readAsset: ((file: string) => Promise<string>) | undefined): Promise<DeclarationsDoc> {
  if (!text) return NO_DECLARATIONS;
  const doc = parseDeclarations(text);
  if (!doc.asset) return doc;
  try {
    if (!readAsset) throw new Error('no ASSETS binding');
    return parseDeclarations(await readAsset(doc.asset));
  } catch (e) {
    logOnce('declarations_asset', 'declarations_unavailable', { asset: doc.asset, error: (e as Error).message, effect: 'search answers are untyped until it can be read' });
    return NO_DECLARATIONS;
  }
}

/** For an operation the document lacks (declarations not rebuilt): its name and purpose, arguments untyped. */
function untypedDeclaration(tool: CatalogueTool | undefined): ToolDeclaration | undefined {
  if (!tool) return undefined;
  const title = tool.title.replace(/\*\//g, '*\\/');
  return { types: '', uses: [], fn: `/** ${title} */\nfunction ${tool.name}(args?: Record<string, unknown>): Promise<unknown>;` };
}
