// The TypeScript declarations code mode's search answers with. They are generated at build time
// (scripts/catalog/declarations.ts -> catalog/declarations.txt, keyed by tool name); an answer is assembled here
// from the matching tools, with each shared type declared once however many of those tools use it.
// No runtime dependencies: the token report and tests import this in Node.

export interface ToolDeclaration {
  /** The tool's own aliases: `type <Name>Args = …;` and `type <Name>Result = …;`, one per line. */
  types: string;
  /** A one-line JSDoc and the function: `function <name>(args: <Name>Args): Promise<<Name>Result>;`. */
  fn: string;
  /** Every shared type the aliases need, transitively, sorted. */
  uses: string[];
}

export interface DeclarationsDoc {
  format: 1;
  /** The hash of the catalogue these declarations were generated from. */
  catalogueHash: string;
  /** Shared types by name: `interface <Name> { … }`, and the shared types it references directly. */
  types: Record<string, { decl: string; uses: string[] }>;
  tools: Record<string, ToolDeclaration>;
  /**
   * Set in the embedded stub of a sharded (large) catalogue: the document itself is this static asset, read on the
   * first search, so the Worker does not hold it in memory from startup. The stub's tools and types are empty.
   */
  asset?: string;
}

/** A document with no tools: what search uses when no declarations were built for the served catalogue. */
export const NO_DECLARATIONS: DeclarationsDoc = { format: 1, catalogueHash: '', types: {}, tools: {} };

export function parseDeclarations(text: string): DeclarationsDoc {
  const doc = JSON.parse(text) as DeclarationsDoc;
  if (doc.format !== 1 || !doc.tools || !doc.types) throw new Error('declarations: unsupported format (expected format 1 with tools and types)');
  return doc;
}

/**
 * The declarations for these tools, in this order: shared types first (sorted by name, each once), then each
 * tool's aliases, then `declare namespace api { … }` with the functions. A name the document lacks gets
 * `fallback(name)` when given, else it is skipped.
 */
export function assembleDeclarations(doc: DeclarationsDoc, toolNames: readonly string[], fallback?: (name: string) => ToolDeclaration | undefined): string {
  const tools = toolNames.flatMap((name) => {
    const decl = doc.tools[name] ?? fallback?.(name);
    return decl ? [decl] : [];
  });
  if (!tools.length) return '';
  const shared = [...new Set(tools.flatMap((t) => t.uses))].sort();
  const lines = shared.map((name) => doc.types[name]?.decl).filter((d): d is string => Boolean(d));
  for (const t of tools) if (t.types) lines.push(t.types);
  lines.push('declare namespace api {', ...tools.map((t) => indent(t.fn)), '}');
  return lines.join('\n');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
