// npm run catalog -- --report: what tools/list costs a client, per toolset, per client profile and in discovery
// mode: tools, bytes and tokens (o200k_base via gpt-tokenizer, a real BPE tokenizer; not bytes/4).
// Measures the exact entries the worker serves (src/profiles/view.ts, src/discovery/server.ts).
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { definitionOf, loadCatalogue, type LoadedCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import { discoveryTools } from '../../src/discovery/listing.ts';
import { PROFILES, type ProfileId } from '../../src/profiles/profiles.ts';
import { buildView, type WireTool } from '../../src/profiles/view.ts';
import { SHARD_DIR } from './catalogue-files.ts';

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
  /** Mean tokens per typed tool (default profile, each entry tokenised alone). */
  meanTokensPerTool: number;
  checks: Array<{ target: string; ok: boolean; measured: string }>;
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
  const all = view(undefined, 'default');
  const meanTokensPerTool = all.reduce((n, t) => n + encode(JSON.stringify(t)).length, 0) / Math.max(1, all.length);
  const checks: TokenReport['checks'] = [];
  const worstDiscovery = Math.max(...discovery.map((d) => d.tokens));
  checks.push({ target: `discovery mode ≤ ${TARGETS.discoveryTokens} tokens (every profile)`, ok: worstDiscovery <= TARGETS.discoveryTokens, measured: `${worstDiscovery} tokens at most` });
  for (const t of toolsets.filter((t) => t.isDefault)) {
    checks.push({ target: `default toolset ${t.name} ≤ ${TARGETS.toolsetTools} tools and ≤ ${TARGETS.toolsetTokens} tokens`, ok: t.tools <= TARGETS.toolsetTools && t.tokens <= TARGETS.toolsetTokens, measured: `${t.tools} tools, ${t.tokens} tokens` });
  }
  checks.push({ target: `mean ≤ ${TARGETS.meanTokensPerTool} tokens per typed tool`, ok: meanTokensPerTool <= TARGETS.meanTokensPerTool, measured: `${meanTokensPerTool.toFixed(1)} tokens` });
  return {
    catalogue: { title: loaded.catalogue.source.title, tools: loaded.count },
    defaults: known,
    toolsets,
    profiles,
    discovery,
    uncompacted: measure(Array.from({ length: loaded.count }, (_, i) => definitionOf(loaded.tool(i)))),
    meanTokensPerTool,
    checks,
  };
}

export function formatReport(r: TokenReport): string {
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
  out.push('', `Mean tokens per typed tool (default profile): ${r.meanTokensPerTool.toFixed(1)}`, '');
  out.push('## Toolsets (default profile)', '', row(['toolset', 'default', 'tools', 'bytes', 'tokens', 'tokens/tool']), row(['---', ':---:', '---:', '---:', '---:', '---:']));
  for (const t of [...r.toolsets].sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || b.tokens - a.tokens)) {
    out.push(row([t.name, t.isDefault ? 'yes' : '', t.tools, t.bytes, t.tokens, Math.round(t.tokens / Math.max(1, t.tools))]));
  }
  out.push('', '## Targets', '');
  for (const c of r.checks) out.push(`- ${c.ok ? 'met' : 'MISSED'}: ${c.target} (${c.measured})`);
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

/** Entry for `npm run catalog -- --report [--out <dir>]`: reports on <dir>/catalog.txt. Exit code 0 (targets are reported, not enforced). */
export async function runTokenReport(catalogueFile: string, write: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  if (!existsSync(catalogueFile)) {
    process.stderr.write(`catalog: ${catalogueFile} not found; run \`npm run catalog\` first\n`);
    return 1;
  }
  const loaded = loadCatalogue(readFileSync(catalogueFile, 'utf8'));
  if (loaded.sharded) {
    loaded.useShards((file) => readFile(join(dirname(catalogueFile), SHARD_DIR, file), 'utf8'));
    await loaded.load(Array.from({ length: loaded.count }, (_, i) => i));
  }
  write(formatReport(tokenReport(loaded, configuredDefaults(loaded.catalogue.defaultToolsets))));
  return 0;
}
