// Per-isolate caches of the search ranker, behind one small interface so they can be bounded or cleared from one
// place: the decoded index of each catalogue (a few MB for GitHub's 1,223 tools), and which tools each slice holds.
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import { slicePart, type Slice } from '../catalogue/slices.ts';
import { titlePhrase, titleVerbs, type Phrase } from './head-nouns.ts';
import { buildSearchIndex, decodeSearchIndex, type SearchIndex } from './search-index.ts';
import { stem } from './search-text.ts';

/** The index plus what ranking derives from the catalogue's titles, once per catalogue. */
export interface RankingData extends SearchIndex {
  /** Per tool: what its title says it does and acts on, stemmed. */
  phrases: Array<Phrase & { plural: boolean }>;
  /** Words titles start with (their verbs), plus everyday query verbs. */
  verbs: Set<string>;
  /** Per tool: in one of the catalogue's default toolsets. */
  everyday: Uint8Array;
  /** Per term: in how many tools' paths it is a noun. */
  nounCount: Uint32Array;
  /** Per tool: 1 for a read of one item whose collection is listed too, 2 for a list whose items are read too. */
  paired: Uint8Array;
}

/** Catalogues served by one isolate: one, or a few in tests; the oldest is dropped past this. */
const MAX_CATALOGUES = 4;
const byCatalogue = new Map<object, RankingData>();

/** Forgets every cached index (they are rebuilt on the next search). */
export function clearSearchCaches(): void {
  byCatalogue.clear();
}

/** Whether ranking this catalogue needs its tools' records (a catalogue written before the search index). */
export function needsRecords(loaded: LoadedCatalogue): boolean {
  return !byCatalogue.has(loaded.identity) && !loaded.searchData();
}

/** The ranking data of a catalogue; one without a search index line must have loaded every record (needsRecords). */
export function rankingData(loaded: LoadedCatalogue): RankingData {
  let data = byCatalogue.get(loaded.identity);
  if (data) return data;
  const stored = loaded.searchData();
  const index = decodeSearchIndex(stored ?? buildSearchIndex(Array.from({ length: loaded.count }, (_, i) => loaded.tool(i)), loaded.catalogue.toolsets));
  const titles = Array.from({ length: loaded.count }, (_, i) => loaded.title(i));
  const verbs = titleVerbs(titles);
  const everydaySets = new Set(loaded.catalogue.defaultToolsets ?? []);
  const everyday = new Uint8Array(loaded.count);
  for (let i = 0; i < loaded.count; i++) everyday[i] = loaded.toolsetsOf(i).some((s) => everydaySets.has(s)) ? 1 : 0;
  data = { ...index, phrases: titles.map((t) => stemmedPhrase(titlePhrase(t, verbs))), verbs, everyday, nounCount: nounCounts(index), paired: pairedReads(index) };
  if (byCatalogue.size >= MAX_CATALOGUES) byCatalogue.delete(byCatalogue.keys().next().value!);
  byCatalogue.set(loaded.identity, data);
  return data;
}

/** Reads of one item and lists of the same collection (same resource, same path nouns): `/members/{id}` and `/members`. */
function pairedReads(index: SearchIndex): Uint8Array {
  const out = new Uint8Array(index.resources.length);
  if (!index.acts || !index.nouns) return out;
  const key = (d: number) => `${index.resources[d]}:${[...index.nouns![d]!].sort((a, b) => a - b).join(',')}`;
  const seen = new Map<string, number>();
  index.acts.forEach((act, d) => {
    if (act === 'get') seen.set(key(d), (seen.get(key(d)) ?? 0) | 1);
    else if (act === 'list') seen.set(key(d), (seen.get(key(d)) ?? 0) | 2);
  });
  index.acts.forEach((act, d) => {
    if (seen.get(key(d)) !== 3) return;
    if (act === 'get') out[d] = 1;
    else if (act === 'list') out[d] = 2;
  });
  return out;
}

/** In how many tools' paths each term is a noun (what makes `repos` too common to count). */
function nounCounts(index: SearchIndex): Uint32Array {
  const counts = new Uint32Array(index.terms.length);
  for (const list of index.nouns ?? []) for (const t of list) counts[t]!++;
  return counts;
}

/** Which tools (by catalogue index) a slice holds: a part of the slice, its bytes charged to the slice's cache entry. */
export function sliceMembers(loaded: LoadedCatalogue, slice: Slice): Uint8Array {
  return slicePart(
    slice,
    'search-members',
    () => {
      const m = new Uint8Array(loaded.count);
      for (const i of slice.tools) m[i] = 1;
      return m;
    },
    (m) => m.byteLength,
  );
}

/** The phrase stemmed; `plural`: its head was a plural ("repositories"). */
export function stemmedPhrase(p: Phrase): Phrase & { plural: boolean } {
  const out: Phrase & { plural: boolean } = { plural: false };
  if (p.verb) out.verb = stem(p.verb);
  if (p.also) out.also = stem(p.also);
  if (p.owner) out.owner = stem(p.owner);
  if (p.head) {
    out.head = stem(p.head);
    out.plural = /[^s]s$|ies$/.test(p.head);
  }
  return out;
}

