// npm run catalog -- --report: what tools/list costs a client, per toolset, per client profile, in discovery mode
// and in code mode: tools, bytes and tokens (o200k_base via gpt-tokenizer, a real BPE tokenizer; not bytes/4).
// Typed tool lists count model-visible tokens: the name, title, description and inputSchema, which is what mainstream
// clients (Claude Code, Cursor, VS Code, the OpenAI Agents SDK) hand a model; the outputSchema serves validation and
// code generation, so it is counted in bytes, apart.
// Measures the exact entries the worker serves (src/profiles/view.ts, src/discovery/listing.ts, src/discovery/hybrid.ts,
// src/codemode), and how many of the openai profile's input schemas pass strict mode (openai-strict-rules.ts).
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { definitionOf, loadCatalogue, type LoadedCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import { parseDeclarations, type DeclarationsDoc } from '../../src/codemode/declarations.ts';
import { hybridListing, overToolBudget } from '../../src/discovery/hybrid.ts';
import { discoveryTools } from '../../src/discovery/listing.ts';
import { PROFILES, type ProfileId } from '../../src/profiles/profiles.ts';
import { buildView, type WireTool } from '../../src/profiles/view.ts';
import { annotationSection, formatAnnotationSection, type AnnotationSection } from './annotation-report.ts';
import { SHARD_DIR, toolsOf } from './catalogue-files.ts';
import { NAME_BUDGET } from './name-budget.ts';
import { formatOutputSection, outputSection, type OutputSection } from './output-report.ts';
import { isHashedName } from './naming.ts';
import { formatNameQuality, nameQuality, nameQualityChecks, namedTools, specOperationIds, type NameQuality } from './name-quality.ts';
import { strictProblems } from './openai-strict-rules.ts';
import { formatResultSection, resultSection, resultTargets, type ResultSection } from './result-report.ts';
import { loadSpec } from './spec-loader.ts';
import { CODE_DEFINITIONS_TARGET, codeModeReport, formatCodeMode, type CodeModeReport } from './token-report-code.ts';

/** Recommended DEFAULT_TOOLSETS for the GitHub catalogue (each ≤ 40 tools and ≤ 15k model-visible tokens). */
export const RECOMMENDED_DEFAULTS = ['repos_core', 'issues_core', 'pulls', 'search'];

// Token targets are model-visible tokens (name, title, description, inputSchema; projection argument included).
export const TARGETS = { discoveryTokens: 1500, toolsetTools: 40, toolsetTokens: 15_000, meanTokensPerTool: 250, numericWithStringShare: 0.01 };

export interface Measure {
  tools: number;
  /** The tools/list result ({"tools": [...]}) as serialised on the wire, outputSchemas included. */
  bytes: number;
  /** For typed tool lists, model-visible tokens; for discovery and code mode, the whole entries. */
  tokens: number;
  /** JSON bytes of the outputSchemas in the list. */
  outputBytes?: number;
}

interface TokenReport {
  catalogue: { title: string; tools: number };
  defaults: string[];
  /** Per toolset, default profile. */
  toolsets: Array<{ name: string; isDefault: boolean } & Measure>;
  /** Per profile: the default toolsets together, and the whole catalogue. */
  profiles: Array<{ profile: ProfileId; defaults: Measure; all: Measure }>;
  /** Profiles with a tool budget: the list they are served (a hybrid list over the budget), default toolsets and whole catalogue. */
  served: Array<{ profile: ProfileId; budget: number; defaults: Served; all: Served }>;
  /** The openai profile's listing of the whole catalogue: input schemas that pass OpenAI strict mode. */
  strict: { tools: number; passing: number };
  /** Discovery mode (three meta-tools) per profile. */
  discovery: Array<{ profile: ProfileId } & Measure>;
  /** Code mode: the two definitions, and sampled search answers (with the catalogue's declarations). */
  code: CodeModeReport;
  /** The whole catalogue as the generator wrote it (no compaction), for comparison. */
  uncompacted: Measure;
  /** Mean model-visible tokens per typed tool as served (default profile, whole catalogue, each entry alone, projection argument included). */
  meanTokensPerTool: number;
  /** The listed outputSchemas against the catalogue's. */
  outputs: OutputSection;
  /** Tool names as the catalogue has them (docs/naming.md), and their quality (name-quality.ts). */
  names: { tools: number; hashed: string[]; longest: number; overBudget: string[]; aliases: number; quality: NameQuality };
  /** What the projection argument (`_fields`) adds to tools/list: default toolsets, whole catalogue, per tool. */
  projectionArg: { defaults: number; all: number; perTool: number };
  /** What the annotations cost, and how the tools divide between reads and writes that destroy or not. */
  annotations: AnnotationSection;
  checks: Array<{ target: string; ok: boolean; measured: string }>;
}

type Served = Measure & { hybrid: boolean };

/** A listing without the projection argument (`_fields`), to measure what that argument costs. */
function withoutProjection(loaded: LoadedCatalogue, tools: WireTool[]): WireTool[] {
  return tools.map((w) => {
    const i = loaded.indexOf(w.name);
    const arg = i === undefined ? undefined : loaded.peek(i).result?.fields;
    const props = w.inputSchema.properties as Record<string, unknown> | undefined;
    if (!arg || !props || !(arg in props)) return w;
    const { [arg]: _drop, ...rest } = props;
    return { ...w, inputSchema: { ...w.inputSchema, properties: rest } };
  });
}

/** Bytes and tokens of a tools/list result ({"tools": [...]}) as serialised on the wire. */
export function measure(tools: unknown[]): Measure {
  const text = JSON.stringify({ tools });
  return { tools: tools.length, bytes: new TextEncoder().encode(text).length, tokens: encode(text).length };
}

/** What a model sees of a typed tool: its name, title, description and inputSchema. */
export function modelVisible(t: { name: string; title?: string; description?: string; inputSchema: unknown }): Record<string, unknown> {
  return { name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema };
}

/** A typed tool list: wire bytes, model-visible tokens, and the outputSchemas' bytes apart. */
export function measureListing(tools: Array<{ name: string; title?: string; description?: string; inputSchema: unknown; outputSchema?: unknown }>): Measure {
  const text = JSON.stringify({ tools });
  const outputBytes = tools.reduce((n, t) => n + (t.outputSchema ? JSON.stringify(t.outputSchema).length : 0), 0);
  return { tools: tools.length, bytes: new TextEncoder().encode(text).length, tokens: encode(JSON.stringify({ tools: tools.map(modelVisible) })).length, outputBytes };
}

/** `operationIds`: "METHOD path" -> the spec's operationId, so the name-quality section finds acronym splits exactly. */
export function tokenReport(loaded: LoadedCatalogue, defaults: string[] = RECOMMENDED_DEFAULTS, declarations?: DeclarationsDoc, operationIds?: Map<string, string>): TokenReport {
  const known = defaults.filter((d) => d in loaded.catalogue.toolsets);
  const view = (toolsets: string[] | undefined, profile: ProfileId): WireTool[] => buildView(loaded, sliceOf(loaded, toolsets ? { toolsets } : {}), PROFILES[profile]).tools;
  const toolsets = Object.keys(loaded.catalogue.toolsets).map((name) => ({ name, isDefault: known.includes(name), ...measureListing(view([name], 'default')) }));
  const profiles = (Object.keys(PROFILES) as ProfileId[]).map((profile) => ({
    profile,
    defaults: known.length ? measureListing(view(known, profile)) : { tools: 0, bytes: 0, tokens: 0 },
    all: measureListing(view(undefined, profile)),
  }));
  const discovery = (Object.keys(PROFILES) as ProfileId[]).map((profile) => ({ profile, ...measure(discoveryTools(PROFILES[profile])) }));
  const serve = (toolsets: string[] | undefined, profile: ProfileId): Served => {
    const slice = sliceOf(loaded, toolsets ? { toolsets } : {});
    const hybrid = overToolBudget(slice, PROFILES[profile]);
    return { hybrid, ...measureListing(hybrid ? hybridListing(loaded, slice, PROFILES[profile]).tools : view(toolsets, profile)) };
  };
  const served = (Object.keys(PROFILES) as ProfileId[])
    .filter((p) => PROFILES[p].maxTools !== undefined)
    .map((profile) => ({ profile, budget: PROFILES[profile].maxTools!, defaults: serve(known.length ? known : undefined, profile), all: serve(undefined, profile) }));
  const openaiTools = view(undefined, 'openai');
  const strict = { tools: openaiTools.length, passing: openaiTools.filter((t) => strictProblems(t.inputSchema).length === 0).length };
  const tools = toolsOf(loaded);
  const names = {
    tools: tools.length,
    hashed: tools.map((t) => t.name).filter(isHashedName),
    longest: Math.max(0, ...tools.map((t) => t.name.length)),
    overBudget: tools.map((t) => t.name).filter((n) => n.length > NAME_BUDGET),
    aliases: tools.reduce((n, t) => n + (t.aliases?.length ?? 0), 0),
    quality: nameQuality(namedTools(tools, operationIds)),
  };
  const all = view(undefined, 'default');
  const meanTokensPerTool = all.reduce((n, t) => n + encode(JSON.stringify(modelVisible(t))).length, 0) / Math.max(1, all.length);
  const outputs = outputSection(loaded, all);
  // What the projection argument costs: the same lists without it.
  const bareView = (toolsets: string[] | undefined): WireTool[] => withoutProjection(loaded, view(toolsets, 'default'));
  const allTokens = profiles[0]!.all.tokens - measureListing(bareView(undefined)).tokens;
  const projectionArg = {
    defaults: known.length ? profiles[0]!.defaults.tokens - measureListing(bareView(known)).tokens : 0,
    all: allTokens,
    perTool: allTokens / Math.max(1, all.length),
  };
  const checks: TokenReport['checks'] = [];
  checks.push({ target: 'hashed tool names ≤ 1%', ok: names.hashed.length <= names.tools / 100, measured: `${names.hashed.length} of ${names.tools}` });
  checks.push({ target: `every tool name ≤ ${NAME_BUDGET} characters`, ok: !names.overBudget.length, measured: `longest ${names.longest}` });
  checks.push(...nameQualityChecks(names.quality));
  for (const p of served) {
    const worst = Math.max(p.defaults.tools, p.all.tools);
    checks.push({ target: `${p.profile}: every list served within its ${p.budget}-tool budget (hybrid lists over it)`, ok: worst <= p.budget, measured: `${worst} tools at most` });
  }
  checks.push({ target: 'openai: 100% of input schemas pass strict mode', ok: strict.passing === strict.tools, measured: `${strict.passing} of ${strict.tools}` });
  const worstDiscovery = Math.max(...discovery.map((d) => d.tokens));
  checks.push({ target: `discovery mode ≤ ${TARGETS.discoveryTokens} tokens (every profile)`, ok: worstDiscovery <= TARGETS.discoveryTokens, measured: `${worstDiscovery} tokens at most` });
  for (const t of toolsets.filter((t) => t.isDefault)) {
    checks.push({ target: `default toolset ${t.name} ≤ ${TARGETS.toolsetTools} tools and ≤ ${TARGETS.toolsetTokens} model-visible tokens`, ok: t.tools <= TARGETS.toolsetTools && t.tokens <= TARGETS.toolsetTokens, measured: `${t.tools} tools, ${t.tokens} tokens` });
  }
  const code = codeModeReport(loaded, declarations);
  checks.push({ target: `code mode definitions ≤ ${CODE_DEFINITIONS_TARGET} tokens (whole catalogue)`, ok: code.definitions.tokens <= CODE_DEFINITIONS_TARGET, measured: `${code.definitions.tokens} tokens` });
  checks.push({ target: 'no tool listed as a bare object when its catalogue outputSchema names fields', ok: !outputs.thinned.length, measured: `${outputs.thinned.length} of ${outputs.listed}` });
  checks.push({ target: 'every top-level output field the catalogue types is typed in the listing', ok: outputs.typed.topTyped === outputs.typed.topFields, measured: `${outputs.typed.topTyped} of ${outputs.typed.topFields}` });
  checks.push({
    target: `≤ ${TARGETS.numericWithStringShare * 100}% of listed numeric properties also allow a string`,
    ok: outputs.numericWithString <= outputs.numeric * TARGETS.numericWithStringShare,
    measured: `${outputs.numericWithString} of ${outputs.numeric}`,
  });
  checks.push({
    target: `mean ≤ ${TARGETS.meanTokensPerTool} model-visible tokens per typed tool, as served (projection argument included)`,
    ok: meanTokensPerTool <= TARGETS.meanTokensPerTool,
    measured: `${meanTokensPerTool.toFixed(1)} tokens; ${(meanTokensPerTool - projectionArg.perTool).toFixed(1)} without the argument`,
  });
  return {
    catalogue: { title: loaded.catalogue.source.title, tools: loaded.count },
    defaults: known,
    toolsets,
    profiles,
    discovery,
    served,
    strict,
    code,
    uncompacted: measureListing(Array.from({ length: loaded.count }, (_, i) => definitionOf(loaded.tool(i)))),
    meanTokensPerTool,
    outputs,
    names,
    projectionArg,
    annotations: annotationSection(all),
    checks,
  };
}

export function formatReport(r: TokenReport, results?: ResultSection | string): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const row = (cells: Array<string | number>) => `| ${cells.map((c) => (typeof c === 'number' ? n(c) : c)).join(' | ')} |`;
  const out: string[] = [];
  out.push(`# Token report: ${r.catalogue.title} (${n(r.catalogue.tools)} tools)`, '');
  out.push(
    'Tokens: o200k_base (gpt-tokenizer). For typed tool lists, model-visible tokens: the name, title, description and inputSchema of each tool as served, ' +
      'which is what clients hand a model; bytes: the whole tools/list result as served, outputSchemas included, whose JSON bytes are also given apart. ' +
      'Discovery and code mode: the whole entries. Default toolsets: ' +
      (r.defaults.join(', ') || '(none)') +
      '.',
    '',
  );
  out.push('## Discovery mode (/mcp/discover)', '', row(['profile', 'tools', 'bytes', 'tokens']), row(['---', '---:', '---:', '---:']));
  for (const d of r.discovery) out.push(row([d.profile, d.tools, d.bytes, d.tokens]));
  out.push('', ...formatCodeMode(r.code));
  out.push(
    '## Profiles (default toolsets together / whole catalogue)',
    '',
    row(['profile', 'default: tools', 'tools/list bytes', 'outputSchema bytes', 'model-visible tokens', 'all: tools', 'tools/list bytes', 'outputSchema bytes', 'model-visible tokens']),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
  );
  for (const p of r.profiles) out.push(row([p.profile, p.defaults.tools, p.defaults.bytes, p.defaults.outputBytes ?? 0, p.defaults.tokens, p.all.tools, p.all.bytes, p.all.outputBytes ?? 0, p.all.tokens]));
  out.push(row(['(uncompacted catalogue)', '', '', '', '', r.uncompacted.tools, r.uncompacted.bytes, r.uncompacted.outputBytes ?? 0, r.uncompacted.tokens]));
  out.push('', `Mean model-visible tokens per typed tool as served (default profile): ${r.meanTokensPerTool.toFixed(1)}, of which the projection argument ${r.projectionArg.perTool.toFixed(1)}.`, '');
  out.push(...formatOutputSection(r.outputs));
  out.push(`The projection argument (\`_fields\` on every tool with a JSON result) adds ${n(r.projectionArg.defaults)} tokens to the default toolsets and ${n(r.projectionArg.all)} to the whole catalogue (${r.projectionArg.perTool.toFixed(1)} per tool).`, '');
  out.push(...formatAnnotationSection(r.annotations));
  out.push(
    '## Lists served to clients with a tool budget (hybrid = discovery trio + typed tools)',
    '',
    row(['profile', 'budget', 'default: tools', 'model-visible tokens', 'bytes', 'hybrid', 'all: tools', 'model-visible tokens', 'bytes', 'hybrid']),
    row(['---', '---:', '---:', '---:', '---:', ':---:', '---:', '---:', '---:', ':---:']),
  );
  for (const p of r.served) out.push(row([p.profile, p.budget, p.defaults.tools, p.defaults.tokens, p.defaults.bytes, p.defaults.hybrid ? 'yes' : '', p.all.tools, p.all.tokens, p.all.bytes, p.all.hybrid ? 'yes' : '']));
  out.push('', `OpenAI strict mode (openai profile, whole catalogue): ${r.strict.passing} of ${r.strict.tools} input schemas pass.`, '');
  out.push(
    '## Toolsets (default profile; each is a slice, /mcp/x/<toolset>)',
    '',
    row(['toolset', 'default', 'tools', 'tools/list bytes', 'outputSchema bytes', 'model-visible tokens', 'tokens/tool']),
    row(['---', ':---:', '---:', '---:', '---:', '---:', '---:']),
  );
  for (const t of [...r.toolsets].sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || b.tokens - a.tokens)) {
    out.push(row([t.name, t.isDefault ? 'yes' : '', t.tools, t.bytes, t.outputBytes ?? 0, t.tokens, Math.round(t.tokens / Math.max(1, t.tools))]));
  }
  out.push('', '## Tool names', '', `- ${n(r.names.tools)} tools; hashed names: ${r.names.hashed.length}${r.names.hashed.length ? ` (${r.names.hashed.join(', ')})` : ''}`);
  out.push(`- longest name: ${r.names.longest} characters (budget ${NAME_BUDGET}); aliases (deprecated renames and hand renames, never listed): ${r.names.aliases}`);
  out.push('', ...formatNameQuality(r.names.quality));
  if (typeof results === 'string') out.push('', '## Results (response examples)', '', results);
  else if (results) out.push('', formatResultSection(results, r.defaults));
  out.push(
    '',
    '## Checks',
    '',
    'Each line is a limit that MCP clients impose or a size this service aims for, with what this catalogue measures. ' +
      'A line marked "over" is where some clients may see fewer tools, longer lists or larger results than intended; docs/generator.md (overrides) and docs/slices-profiles-discovery.md (toolsets and profiles) say what changes it.',
    '',
  );
  for (const c of [...r.checks, ...(results && typeof results !== 'string' ? resultTargets(results) : [])]) out.push(`- ${c.ok ? 'ok' : 'over'}: ${c.target} (${c.measured})`);
  return out.join('\n') + '\n';
}

/** DEFAULT_TOOLSETS from wrangler.toml [vars] when set, else the catalogue's own defaults, else the recommended list. */
function configuredDefaults(catalogueDefaults?: string[], wranglerToml = 'wrangler.toml'): string[] {
  if (existsSync(wranglerToml)) {
    const m = /^\s*DEFAULT_TOOLSETS\s*=\s*"([^"]*)"/m.exec(readFileSync(wranglerToml, 'utf8'));
    const list = (m?.[1] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    if (list.length) return list;
  }
  return catalogueDefaults ?? RECOMMENDED_DEFAULTS;
}

/**
 * Entry for `npm run catalog -- --report [--out <dir>]`: reports on <dir>/catalog.txt, and on the response examples of
 * the spec it was built from (`source.spec`, else `spec`). Exit code 0 (targets are reported, not enforced).
 */
export async function runTokenReport(catalogueFile: string, spec?: string, write: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  if (!existsSync(catalogueFile)) {
    process.stderr.write(`catalog: ${catalogueFile} not found; run \`npm run catalog\` first\n`);
    return 1;
  }
  const loaded = loadCatalogue(readFileSync(catalogueFile, 'utf8'));
  if (loaded.sharded) {
    loaded.useShards((file) => readFile(join(dirname(catalogueFile), SHARD_DIR, file), 'utf8'));
    await loaded.load(Array.from({ length: loaded.count }, (_, i) => i));
  }
  const declarationsFile = join(dirname(catalogueFile), 'declarations.txt');
  let declarations = existsSync(declarationsFile) ? parseDeclarations(readFileSync(declarationsFile, 'utf8')) : undefined;
  // A sharded catalogue's declarations are a static asset beside its shards; declarations.txt only names it.
  if (declarations?.asset) declarations = parseDeclarations(await readFile(join(dirname(catalogueFile), SHARD_DIR, declarations.asset), 'utf8'));
  let results: ResultSection | string;
  let operationIds: Map<string, string> | undefined;
  const source = loaded.catalogue.source.spec;
  try {
    const doc = (await loadSpec(source && (/^https?:/.test(source) || existsSync(source)) ? source : (spec ?? source))).doc;
    results = resultSection(loaded, doc);
    operationIds = specOperationIds(doc);
  } catch (e) {
    results = `Not measured: the spec ${source} could not be loaded (${(e as Error).message}).`;
  }
  write(formatReport(tokenReport(loaded, configuredDefaults(loaded.catalogue.defaultToolsets), declarations, operationIds), results));
  return 0;
}
