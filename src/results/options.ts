// What result shaping needs from the deployment: the compiled compaction rules of the catalogue (its API origins
// plus the configured upstream's), and whether the deployment compacts at all (COMPACT_RESULTS). Built once per
// (catalogue, upstream, switch) and reused by every call of the isolate.
import type { Catalogue, CatalogueTool, ResultRules } from '../catalogue/types.ts';
import { Lru } from '../lib/lru.ts';
import type { CompactRules } from './result-compaction.ts';
import { compilePatterns } from './field-pattern.ts';
import { originOf } from './links.ts';

export interface ResultOptions {
  /** false: the deployment switched compaction off; projection and pages that fit still apply. */
  compact: boolean;
  rules: CompactRules;
  /**
   * false: nested API resources stay whole. Code mode's programs are typed by declarations of the full resources and
   * their results reach the model only through what the program returns, so shortening there saves nothing.
   */
  shortenEmbedded?: boolean;
}

/** What result shaping reads of a catalogue: its result rules and default upstream (a catalogue head will do). */
export type ResultCatalogue = Pick<Catalogue, 'results' | 'defaultUpstream'>;

// Keyed by the deployment's settings, so a handful of entries; bounded all the same (each charged a flat 4 KiB:
// compiled rules of one catalogue), since nothing stops a caller of this module passing other upstreams.
const cache = new WeakMap<ResultCatalogue, Lru<string, ResultOptions>>();
const MAX_OPTIONS = 16;
const OPTIONS_BYTES = 4096;

/** `shortenEmbedded`: false for code mode (see ResultOptions). */
export function resultOptions(catalogue: ResultCatalogue, upstreamUrl: string, compact: boolean, shortenEmbedded = true): ResultOptions {
  let perCatalogue = cache.get(catalogue);
  if (!perCatalogue) cache.set(catalogue, (perCatalogue = new Lru('result options', MAX_OPTIONS, MAX_OPTIONS * OPTIONS_BYTES)));
  const key = `${compact ? 1 : 0}${shortenEmbedded ? 1 : 0} ${upstreamUrl}`;
  let hit = perCatalogue.get(key);
  if (!hit) perCatalogue.set(key, (hit = build(catalogue, upstreamUrl, compact, shortenEmbedded)), OPTIONS_BYTES);
  return hit;
}

function build(catalogue: ResultCatalogue, upstreamUrl: string, compact: boolean, shortenEmbedded: boolean): ResultOptions {
  const r = catalogue.results ?? { origins: [catalogue.defaultUpstream] };
  return { compact, rules: compactRules(r, [upstreamUrl]), ...(shortenEmbedded ? {} : { shortenEmbedded: false }) };
}

/** The compiled rules of a catalogue; `moreOrigins` (the configured upstream) count as the API's own too. */
export function compactRules(r: ResultRules, moreOrigins: string[] = []): CompactRules {
  const origins = new Set<string>();
  for (const u of [...r.origins, ...moreOrigins]) {
    const o = originOf(u);
    if (o) origins.add(o);
  }
  const patterns = Boolean(r.keep?.length || r.drop?.length);
  return { origins, linkFields: new Set(r.linkFields ?? []), keep: compilePatterns(r.keep), drop: compilePatterns(r.drop), patterns };
}

/** A projection given as an array of names (natural in code mode) becomes the comma-separated string the schema declares. */
export function fieldsAsText(tool: CatalogueTool, args: Record<string, unknown>): Record<string, unknown> {
  const name = tool.result?.fields;
  const v = name ? args[name] : undefined;
  return name && Array.isArray(v) && v.every((x) => typeof x === 'string') ? { ...args, [name]: v.join(',') } : args;
}
