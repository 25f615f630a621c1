// buildCatalogue(spec, options): OpenAPI spec (file or URL) -> Catalogue + deterministic text + report.
// In-process API used by the CLI (cli.ts), the serve script, the sweep and tests. The steps live in their own
// modules (docs/generator.md, "Pipeline"); naming happens here: tool names (naming.ts, docs/naming.md), each tool's
// title and scope line (titles.ts), and deprecated aliases for renamed tools (aliases.ts).
import { gzipSync } from 'node:zlib';
import type { Catalogue, CatalogueTool } from '../../src/catalogue/types.ts';
import { isObj } from '../lib/is-object.ts';
import { keepRenamedAliases, type Rename } from './aliases.ts';
import { applyOverrides } from './apply-overrides.ts';
import { diffCatalogues, type ChangeSummary } from './changes.ts';
import { NAME_BUDGET } from './name-budget.ts';
import { nameOperations } from './name-pass.ts';
import { collectOperations, serverUrl, type Operation } from './operations.ts';
import { loadOverrides, validateOverridesShape, type Overrides } from './overrides.ts';
import { SchemaConverter } from './schema-converter.ts';
import { SchemaSweep } from './schema-sweep.ts';
import { compactRules } from '../../src/results/options.ts';
import { responseExample } from './examples.ts';
import { addResultShape, resultRules } from './result-shape.ts';
import { loadSpec, SpecError, type LoadOptions } from './spec-loader.ts';
import { readSecurity, type SecurityReport } from './security.ts';
import { scopesOf, withScopeLine } from './titles.ts';
import { buildTool, type ToolText } from './tool.ts';
import { annotate } from './annotations.ts';
import { operationToolsets, ToolsetDescriptions } from './toolsets.ts';
import { trimText } from './trim-text.ts';
import { isDeprecated } from './deprecated.ts';
import { withLead } from './description-lead.ts';
import { readCatalogue } from './catalogue-files.ts';
import { wordnetLexicon } from './lexicon.ts';
import type { SpecOperations } from '../../src/spec-drift/spec-document.ts';
import { writeCatalogue, type CatalogueFiles } from './write-catalogue.ts';

export { OverridesError } from './overrides.ts';
export { SpecError } from './spec-loader.ts';

interface BuildOptions {
  /** Max tool name length (default NAME_BUDGET, docs/naming.md). */
  maxName?: number;
  /** Overrides file path, or an already-parsed object. Unknown tool names are an error. */
  overrides?: string | Overrides | null;
  /** The previous catalogue (e.g. the committed catalog.txt, and its shards directory) for the change report. */
  previous?: { text: string; shardDir?: string } | null;
  /** Shard the catalogue above this many bytes (default SHARD_ABOVE_BYTES in write-catalogue.ts). */
  shardAboveBytes?: number;
  /** Tool description budget in characters (default 1024). */
  descriptionMax?: number;
  /**
   * Check every schema with Ajv (draft-07, as the v1 SDK client) and repair (inputs) or drop (outputs) what fails.
   * true (default): meta-schema validation only, fast; 'full': compile each schema (≈+3 s on GitHub); false: off.
   */
  sweep?: boolean | 'full';
  /** Progress lines (e.g. to stderr). */
  progress?: (line: string) => void;
  /** Fetch options for URL specs (timeout, auth header; default auth from env SPEC_AUTH_HEADER). */
  load?: LoadOptions;
}

interface WarningGroup {
  count: number;
  examples: string[];
}

export interface BuildReport {
  spec: string;
  openapi: string;
  operations: number;
  tools: number;
  hidden: string[];
  withOutputSchema: number;
  wrappedOutputs: number;
  withoutOutputSchema: number;
  dropped: { tool: string; reason: string }[];
  warnings: Record<string, WarningGroup>;
  /** The spec's security schemes, and those this server cannot send (docs/upstream-auth.md). */
  security: SecurityReport;
  /** Differences against `options.previous`, when given. */
  changes?: ChangeSummary;
  /** Tool names (docs/naming.md): the budget, how many were shortened, the hashed ones, deprecated aliases kept. */
  names: { budget: number; shortened: number; hashed: string[]; deprecated: Rename[]; skipped: Rename[] };
  hash: string;
  /** Every file of the catalogue together, and compressed (gzip -6, about what an upload sends). */
  bytes: number;
  gzipBytes: number;
  /** Header and index lines of catalog.txt (what tools/call and slices read), table entries, the largest record. */
  layout: { indexBytes: number; tableEntries: number; largestRecord: { tool: string; bytes: number }; shards: number };
  /** How the tools divide into reads and writes, and the writes whose hint goes against their method (docs/confirmation.md). */
  annotations: AnnotationCounts;
  /** The search index line's bytes and build time (docs/slices-profiles-discovery.md, "Search"). */
  search: { bytes: number; ms: number };
  ms: number;
}

export interface BuildResult {
  catalogue: Catalogue;
  /** catalog.txt */
  text: string;
  /** Shard files (name -> content); empty unless the catalogue is sharded. */
  shards: CatalogueFiles['shards'];
  report: BuildReport;
  /** The spec's digest and operation fingerprints: the drift check's baseline (scripts/catalog/spec-operations-asset.ts). */
  specOperations: SpecOperations;
}

export async function buildCatalogue(spec: string, options: BuildOptions = {}): Promise<BuildResult> {
  const t0 = performance.now();
  const maxName = options.maxName ?? NAME_BUDGET;
  if (!Number.isInteger(maxName) || maxName < 12 || maxName > 64) throw new Error(`maxName must be an integer in 12..64 (got ${maxName})`);
  const descMax = options.descriptionMax ?? 1024;
  const progress = options.progress ?? (() => {});

  // Overrides first: a bad overrides file fails fast before the (slow) build.
  let overrides: Overrides = { tools: {} };
  if (typeof options.overrides === 'string') overrides = await loadOverrides(options.overrides);
  else if (options.overrides) overrides = validateOverridesShape(options.overrides, 'overrides');

  progress(`[catalog] loading ${spec}`);
  const loaded = await loadSpec(spec, options.load);
  const doc = loaded.doc;

  const warnings: Record<string, WarningGroup> = {};
  const warn = (kind: string, detail: string) => {
    const g = (warnings[kind] ??= { count: 0, examples: [] });
    g.count++;
    if (g.examples.length < 5) g.examples.push(detail);
  };
  const conv = new SchemaConverter(doc, warn);

  const ops = collectOperations(doc, conv);
  // An empty catalogue would serve a server with nothing in it as if all were well.
  if (!ops.length) throw new SpecError(`Spec ${loaded.label} has no operations (${Object.keys(doc.paths ?? {}).length ? 'none of its paths has a method' : 'its paths object is empty'}): there is nothing to serve`);
  const security = readSecurity(doc, conv, ops);
  const { naming, titles } = nameOperations(ops, maxName);
  const names = naming.names;
  const scopes = scopesOf(ops);
  progress(`[catalog] ${ops.length} operations`);

  const sweep = options.sweep === false ? undefined : await SchemaSweep.create(options.sweep === 'full');
  const toolsetDescriptions = new ToolsetDescriptions(doc);
  const tools: CatalogueTool[] = [];
  const examples = new Map<CatalogueTool, { value: unknown } | undefined>();
  const bases = new Map<CatalogueTool, string>();
  let i = 0;
  for (const o of ops) {
    if (++i % 200 === 0) progress(`[catalog] ${i}/${ops.length} operations`);
    const name = names.get(o.key)!;
    const text = toolText(o, titles.get(o.key)!, scopes.get(o.key), descMax);
    const annotated = annotate(o, text.title);
    const requirements = security.forOperation(o);
    const tool = buildTool(conv, o, name, text, warn, annotated.annotations, { ...(requirements !== undefined ? { requirements } : {}), slots: security.credentialSlots(o) });
    bases.set(tool, annotated.basis);
    tool.toolsets = operationToolsets(o);
    toolsetDescriptions.add(o, tool.toolsets);
    sweep?.check(tool, warn);
    tools.push(tool);
    examples.set(tool, responseExample(doc, o.op));
  }

  // Each description begins with what the tool does, in its final title's words (an operator's own description stays).
  const described = new Set(tools.filter((t) => Object.hasOwn(overrides.tools, t.name) && overrides.tools[t.name]!.description));
  const { visible, hidden, toolsets, defaultToolsets } = applyOverrides(tools, overrides, toolsetDescriptions.described);
  for (const t of visible) if (!described.has(t)) t.description = trimText(withLead(t.description, t.title, t.http.method, t.http.path), descMax);
  // After the overrides and the sweep: list detection reads each tool's final outputSchema.
  const results = resultRules(doc, loaded.baseUrl, overrides.results);
  const rules = compactRules(results);
  for (const t of visible) addResultShape(t, examples.get(t), rules);
  const info = isObj(doc.info) ? doc.info : {};
  const catalogue: Catalogue = {
    format: 2,
    source: { title: String(info.title ?? ''), version: String(info.version ?? ''), spec: loaded.label, openapi: loaded.originalVersion, digest: loaded.digest },
    defaultUpstream: serverUrl(doc, loaded.baseUrl),
    toolsets,
    ...(defaultToolsets ? { defaultToolsets } : {}),
    tools: visible.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    results,
    ...(security.catalogue ? { security: security.catalogue } : {}),
  };
  let previous: Catalogue | undefined;
  if (options.previous) {
    try {
      previous = await readCatalogue(options.previous.text, options.previous.shardDir);
    } catch (e) {
      warn('previous-unreadable', `previous catalogue not read (${(e as Error).message}); no change report, no deprecated aliases`);
    }
  }
  const aliases = keepRenamedAliases(catalogue, previous);
  const files = await writeCatalogue(catalogue, { shardAboveBytes: options.shardAboveBytes, lexicon: wordnetLexicon() });
  const { text, hash } = files;
  catalogue.hash = hash;
  const changes: ChangeSummary | undefined = previous ? diffCatalogues(previous, catalogue) : undefined;
  const listedNames = new Set(visible.map((t) => t.name));
  const hashedNames = naming.hashed.map((k) => names.get(k)!).filter((n) => listedNames.has(n)).sort();
  if (hashedNames.length) progress(`[catalog] ${hashedNames.length} tool names needed a hash suffix: ${hashedNames.join(', ')}`);
  const report: BuildReport = {
    spec: loaded.label,
    openapi: loaded.originalVersion,
    operations: ops.length,
    tools: visible.length,
    hidden,
    withOutputSchema: visible.filter((t) => t.outputSchema).length,
    wrappedOutputs: visible.filter((t) => t.outputWrapped).length,
    withoutOutputSchema: visible.filter((t) => !t.outputSchema).length,
    dropped: visible.filter((t) => t.outputSchemaDropped).map((t) => ({ tool: t.name, reason: t.outputSchemaDropped! })),
    security: security.report,
    warnings: Object.fromEntries(Object.entries(warnings).sort(([a], [b]) => (a < b ? -1 : 1))),
    changes,
    names: { budget: maxName, shortened: naming.shortened.length, hashed: hashedNames, deprecated: aliases.deprecated, skipped: aliases.skipped },
    hash,
    bytes: files.stats.bytes,
    gzipBytes: [text, ...files.shards.values()].reduce((n, t) => n + gzipSync(t).length, 0),
    layout: { indexBytes: files.stats.indexBytes, tableEntries: files.stats.tableEntries, largestRecord: files.stats.largestRecord, shards: files.shards.size },
    search: files.stats.search,
    annotations: annotationCounts(visible, bases, overrides),
    ms: Math.round(performance.now() - t0),
  };
  progress(`[catalog] ${visible.length} tools, ${(report.bytes / 1e6).toFixed(2)} MB in ${report.ms} ms`);
  return { catalogue, text, shards: files.shards, report, specOperations: { format: 1, digest: loaded.digest, operations: loaded.operations } };
}

interface AnnotationCounts {
  readOnly: number;
  /** Writes per method: [not destructive, destructive]. */
  writes: Record<string, [number, number]>;
  /** A POST read as destructive, or a PUT or PATCH read as not: what decided it. */
  againstMethod: Array<{ tool: string; method: string; destructive: boolean; basis: string }>;
}

function annotationCounts(tools: CatalogueTool[], bases: Map<CatalogueTool, string>, overrides: Overrides): AnnotationCounts {
  const out: AnnotationCounts = { readOnly: 0, writes: {}, againstMethod: [] };
  for (const t of [...tools].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const { method } = t.http;
    const a = t.annotations;
    if (a.readOnlyHint) {
      out.readOnly++;
      continue;
    }
    (out.writes[method] ??= [0, 0])[a.destructiveHint ? 1 : 0]++;
    const against = method === 'POST' ? a.destructiveHint : method === 'PUT' || method === 'PATCH' ? !a.destructiveHint : false;
    const basis = overrides.tools[t.aliases?.find((n) => overrides.tools[n]?.annotations) ?? t.name]?.annotations ? 'override' : (bases.get(t) ?? '');
    if (against) out.againstMethod.push({ tool: t.name, method, destructive: a.destructiveHint, basis });
  }
  return out;
}

/**
 * Title: from the naming pass (name-pass.ts, titles.ts). Description: summary + description, bounded, with a scope
 * line for tools that differ from another only in scope.
 */
function toolText(o: Operation, title: string, scope: string | undefined, descMax: number): ToolText {
  const summary = typeof o.op.summary === 'string' ? o.op.summary.trim() : '';
  const longDesc = typeof o.op.description === 'string' ? o.op.description.trim() : '';
  let description = summary && longDesc && !longDesc.startsWith(summary) ? `${summary}\n\n${longDesc}` : longDesc || summary || o.key;
  if (isDeprecated(o.op)) description = `[Deprecated] ${description}`;
  return { title, description: withScopeLine(trimText(description, descMax), scope, descMax, summary) };
}
