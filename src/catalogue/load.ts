// Parses the catalogue text once per isolate and prepares what every request needs:
// a name index (with aliases) and the tools/list entries, so requests do no per-tool work.
import type { Catalogue, CatalogueTool, JsonSchema } from './types.ts';

export interface ListedTool {
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
  /** tools/list entries in catalogue order. */
  listed: ListedTool[];
  /** Hex SHA-256 of the catalogue text (resolved lazily: crypto.subtle is async). */
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
  const listed = catalogue.tools.map(toListed);
  let hashPromise: Promise<string> | undefined;
  return {
    catalogue,
    byName,
    listed,
    hash: () => (hashPromise ??= sha256Hex(text)),
  };
}

function toListed(tool: CatalogueTool): ListedTool {
  const entry: ListedTool = {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations,
  };
  if (tool.outputSchema) entry.outputSchema = tool.outputSchema;
  return entry;
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
