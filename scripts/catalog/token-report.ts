// npm run catalog -- --report: what tools/list costs a client, per toolset, per client profile and in discovery
// mode: tools, bytes and tokens (o200k_base via gpt-tokenizer, a real BPE tokenizer; not bytes/4).
// Measures the exact entries the worker serves (src/profiles/view.ts, src/discovery/server.ts).
import { existsSync, readFileSync } from 'node:fs';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { loadCatalogue, type LoadedCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import { discoveryTools } from '../../src/discovery/listing.ts';
import { PROFILES, type ProfileId } from '../../src/profiles/profiles.ts';
import { buildView, type WireTool } from '../../src/profiles/view.ts';
import { formatResultSection, resultSection, resultTargets, type ResultSection } from './result-report.ts';
import { loadSpec } from './spec-loader.ts';

/** Recommended DEFAULT_TOOLSETS for the GitHub catalogue (each ≤ 40 tools and ≤ 15k tokens). */
export const RECOMMENDED_DEFAULTS = ['repos_core', 'issues_core', 'pulls', 'search'];

export const TARGETS = { discoveryTokens: 1500, toolsetTools: 40, toolsetTokens: 15_000, meanTokensPerTool: 250 };

export interface Measure {
  tools: number;
  bytes: number;
  tokens: number;
}

interface TokenReport {
  catalogue: { title: string; tools: number };
  defaults: string[];
  /** Per toolset, default profile. */
  toolsets: Array<{ name: string; isDefault: boolean } & Measure>;
  /** Per profile: the default toolsets together, and the whole catalogue. */
  profiles: Array<{ profile: ProfileId; defaults: Measure; all: Measure }>;
  /** Discovery mode (three meta-tools) per profile. */
  discovery: Array<{ profile: ProfileId } & Measure>;
  /** The whole catalogue as the generator wrote it (no compaction), for comparison. */
  uncompacted: Measure;
  /** Mean tokens per typed tool (default profile, each entry tokenised alone), without the projection argument. */
  meanTokensPerTool: number;
  /** What the projection argument (`_fields`) adds to tools/list: default toolsets, whole catalogue, per tool. */
  projectionArg: { defaults: number; all: number; perTool: number };
  checks: Array<{ target: string; ok: boolean; measured: string }>;
}

/** The catalogue as it would be without the projection argument, to measure what that argument costs. */
function withoutProjection(loaded: LoadedCatalogue): LoadedCatalogue {
  const tools = loaded.catalogue.tools.map((t) => {
    const arg = t.result?.fields;
    if (!arg) return t;
    const { [arg]: _drop, ...props } = (t.inputSchema.properties ?? {}) as Record<string, unknown>;
    return { ...t, inputSchema: { ...t.inputSchema, properties: props } };
  });
  return loadCatalogue(JSON.stringify({ ...loaded.catalogue, tools }));
}

/** Bytes and tokens of a tools/list result ({"tools": [...]}) as serialised on the wire. */
export function measure(tools: unknown[]): Measure {
  const text = JSON.stringify({ tools });
  return { tools: tools.length, bytes: new TextEncoder().encode(text).length, tokens: encode(text).length };
}

export function tokenReport(loaded: LoadedCatalogue, defaults: string[] = RECOMMENDED_DEFAULTS): TokenReport {
  const known = defaults.filter((d) => d in loaded.catalogue.toolsets);
  const view = (toolsets: string[] | undefined, profile: ProfileId): WireTool[] => buildView(loaded, sliceOf(loaded, toolsets ? { toolsets } : {}), PROFILES[profile]).tools;
  const toolsets = Object.keys(loaded.catalogue.toolsets).map((name) => ({ name, isDefault: known.includes(name), ...measure(view([name], 'default')) }));
  const profiles = (Object.keys(PROFILES) as ProfileId[]).map((profile) => ({
    profile,
    defaults: known.length ? measure(view(known, profile)) : { tools: 0, bytes: 0, tokens: 0 },
    all: measure(view(undefined, profile)),
  }));
  const discovery = (Object.keys(PROFILES) as ProfileId[]).map((profile) => ({ profile, ...measure(discoveryTools(PROFILES[profile])) }));
  const bare = withoutProjection(loaded);
  const bareView = (toolsets: string[] | undefined): WireTool[] => buildView(bare, sliceOf(bare, toolsets ? { toolsets } : {}), PROFILES.default).tools;
  const all = bareView(undefined);
  const meanTokensPerTool = all.reduce((n, t) => n + encode(JSON.stringify(t)).length, 0) / Math.max(1, all.length);
  const allTokens = profiles[0]!.all.tokens - measure(all).tokens;
  const projectionArg = {
    defaults: known.length ? profiles[0]!.defaults.tokens - measure(bareView(known)).tokens : 0,
    all: allTokens,
    perTool: allTokens / Math.max(1, all.length),
  };
  const checks: TokenReport['checks'] = [];
  const worstDiscovery = Math.max(...discovery.map((d) => d.tokens));
  checks.push({ target: `discovery mode ≤ ${TARGETS.discoveryTokens} tokens (every profile)`, ok: worstDiscovery <= TARGETS.discoveryTokens, measured: `${worstDiscovery} tokens at most` });
  for (const t of toolsets.filter((t) => t.isDefault)) {
    checks.push({ target: `default toolset ${t.name} ≤ ${TARGETS.toolsetTools} tools and ≤ ${TARGETS.toolsetTokens} tokens`, ok: t.tools <= TARGETS.toolsetTools && t.tokens <= TARGETS.toolsetTokens, measured: `${t.tools} tools, ${t.tokens} tokens` });
  }
  checks.push({
    target: `mean ≤ ${TARGETS.meanTokensPerTool} tokens per typed tool, before the projection argument`,
    ok: meanTokensPerTool <= TARGETS.meanTokensPerTool,
    measured: `${meanTokensPerTool.toFixed(1)} tokens; ${(meanTokensPerTool + projectionArg.perTool).toFixed(1)} with it`,
  });
  return {
    catalogue: { title: loaded.catalogue.source.title, tools: loaded.catalogue.tools.length },
    defaults: known,
    toolsets,
    profiles,
    discovery,
    uncompacted: measure(loaded.listed),
    meanTokensPerTool,
    projectionArg,
    checks,
  };
}

export function formatReport(r: TokenReport, results?: ResultSection | string): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const row = (cells: Array<string | number>) => `| ${cells.map((c) => (typeof c === 'number' ? n(c) : c)).join(' | ')} |`;
  const out: string[] = [];
  out.push(`# Token report: ${r.catalogue.title} (${n(r.catalogue.tools)} tools)`, '');
  out.push('Tokens: o200k_base (gpt-tokenizer) of the tools/list result JSON exactly as served. Default toolsets: ' + (r.defaults.join(', ') || '(none)') + '.', '');
  out.push('## Discovery mode (/mcp/discover)', '', row(['profile', 'tools', 'bytes', 'tokens']), row(['---', '---:', '---:', '---:']));
  for (const d of r.discovery) out.push(row([d.profile, d.tools, d.bytes, d.tokens]));
  out.push('', '## Profiles (default toolsets together / whole catalogue)', '', row(['profile', 'default: tools', 'bytes', 'tokens', 'all: tools', 'bytes', 'tokens']), row(['---', '---:', '---:', '---:', '---:', '---:', '---:']));
  for (const p of r.profiles) out.push(row([p.profile, p.defaults.tools, p.defaults.bytes, p.defaults.tokens, p.all.tools, p.all.bytes, p.all.tokens]));
  out.push(row(['(uncompacted catalogue)', '', '', '', r.uncompacted.tools, r.uncompacted.bytes, r.uncompacted.tokens]));
  out.push('', `Mean tokens per typed tool (default profile): ${r.meanTokensPerTool.toFixed(1)} before the projection argument, ${(r.meanTokensPerTool + r.projectionArg.perTool).toFixed(1)} with it.`, '');
  out.push(`The projection argument (\`_fields\` on every tool with a JSON result) adds ${n(r.projectionArg.defaults)} tokens to the default toolsets and ${n(r.projectionArg.all)} to the whole catalogue (${r.projectionArg.perTool.toFixed(1)} per tool).`, '');
  out.push('## Toolsets (default profile)', '', row(['toolset', 'default', 'tools', 'bytes', 'tokens', 'tokens/tool']), row(['---', ':---:', '---:', '---:', '---:', '---:']));
  for (const t of [...r.toolsets].sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || b.tokens - a.tokens)) {
    out.push(row([t.name, t.isDefault ? 'yes' : '', t.tools, t.bytes, t.tokens, Math.round(t.tokens / Math.max(1, t.tools))]));
  }
  if (typeof results === 'string') out.push('', '## Results (response examples)', '', results);
  else if (results) out.push('', formatResultSection(results, r.defaults));
  out.push('', '## Targets', '');
  for (const c of [...r.checks, ...(results && typeof results !== 'string' ? resultTargets(results) : [])]) out.push(`- ${c.ok ? 'met' : 'MISSED'}: ${c.target} (${c.measured})`);
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
  let results: ResultSection | string;
  const source = loaded.catalogue.source.spec;
  try {
    const doc = (await loadSpec(source && (/^https?:/.test(source) || existsSync(source)) ? source : (spec ?? source))).doc;
    results = resultSection(loaded, doc);
  } catch (e) {
    results = `Not measured: the spec ${source} could not be loaded (${(e as Error).message}).`;
  }
  write(formatReport(tokenReport(loaded, configuredDefaults(loaded.catalogue.defaultToolsets)), results));
  return 0;
}
