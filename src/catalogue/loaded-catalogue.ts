// Parses the catalogue text once per isolate and prepares what every request needs:
// a name index (with aliases) and each tool's MCP definition, so requests do no per-tool work.
import { sha256Hex } from '../lib/bytes.ts';
import type { Catalogue, CatalogueTool, JsonSchema } from './types.ts';

/** A tool's MCP definition as the catalogue states it (before a client profile compacts it for tools/list). */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations: CatalogueTool['annotations'];
}

export interface LoadedCatalogue {
  catalogue: Catalogue;
  /** Tool by name or alias. */
  byName: Map<string, CatalogueTool>;
  /** Tool definitions in catalogue order. */
  listed: ToolDefinition[];
  /** The catalogue's content hash, 32 hex (what /healthz, the page and /admin show). */
  hash: () => Promise<string>;
}

export function loadCatalogue(text: string): LoadedCatalogue {
  const catalogue = JSON.parse(text) as Catalogue;
  if (catalogue.format !== 1 || !Array.isArray(catalogue.tools)) {
    throw new Error('catalogue: unsupported format (expected format 1 with a tools array)');
  }
  const byName = new Map<string, CatalogueTool>();
  for (const tool of catalogue.tools) {
    byName.set(tool.name, tool);
    for (const alias of tool.aliases ?? []) if (!byName.has(alias)) byName.set(alias, tool);
  }
  const listed = catalogue.tools.map(definitionOf);
  let hash: Promise<string> | undefined;
  return { catalogue, byName, listed, hash: () => (hash ??= catalogueHash(catalogue, text)) };
}

/**
 * The generator writes a content hash into the catalogue: the first 32 hex of SHA-256 over the text rendered without
 * it. Text without one (written by hand or by a test) gets the same digest of its text as given, so there is one form.
 */
async function catalogueHash(catalogue: Catalogue, text: string): Promise<string> {
  if (typeof catalogue.hash === 'string' && /^[0-9a-f]{32}$/.test(catalogue.hash)) return catalogue.hash;
  return (await sha256Hex(text)).slice(0, 32);
}

function definitionOf(tool: CatalogueTool): ToolDefinition {
  const entry: ToolDefinition = {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations,
  };
  if (tool.outputSchema) entry.outputSchema = tool.outputSchema;
  return entry;
}
