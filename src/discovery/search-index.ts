// The catalogue's search index: every tool's search document (search-doc.ts) and the query-side vocabulary, built by
// the generator and stored as the catalogue's `search` index line (docs/catalogue-format.md), so the Worker ranks
// without reading any tool record. Encoded compactly: terms are numbered in sorted order, and each tool's postings
// are (term number delta in base 36, weight as one capital letter) pairs.
import type { SearchIndexData } from '../catalogue/search-data.ts';
import type { EffectFallback } from '../catalogue/verb-effects.ts';
import { titlePhrase, titleVerbs } from './head-nouns.ts';
import { searchDocument, type DocumentTool } from './search-doc.ts';
import { decodeHarm, encodeHarm, readHarm, type ToolRisk } from './search-harm.ts';
import { operationShape } from './search-shape.ts';
import { ACT_CODE, CODE_ACT, type ActClass } from './verb-classes.ts';
import { MAX_CACHED_WORD, stem } from './search-text.ts';

export type { SearchIndexData };

/** What the generator knows of English (WordNet, scripts/catalog/wordnet.ts); absent, the index has no vocabulary. */
export interface Lexicon {
  /** Everyday words for the same thing as `word`, each with how close it is (0..1). */
  related(word: string): ReadonlyArray<readonly [string, number]>;
  /** Whether the noun names people ("member", "stargazer"). */
  person(word: string): boolean;
  /** Whether the word is used mostly as a verb ("merge", "approve"; not "content"). */
  verb?(word: string): boolean;
  /** What a verb outside the lexicon of effects does (src/catalogue/verb-effects.ts), for what a tool destroys. */
  effects?: EffectFallback;
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** A title's head noun in the plural ("members", "replies"; not "status"). */
const PLURAL_HEAD = /[^su]s$|ies$/;
/** Document weights are stored in quarters (0.25 … 6.5); expansion weights in 26ths. */
const DOC_SCALE = 4;
const EXPAND_SCALE = 26;

function encode(pairs: Array<[number, number]>, scale: number): string {
  pairs.sort((a, b) => a[0] - b[0]);
  let out = '';
  let prev = 0;
  for (const [id, w] of pairs) {
    const q = Math.min(26, Math.max(1, Math.round(w * scale)));
    out += (id - prev).toString(36) + LETTERS[q - 1];
    prev = id;
  }
  return out;
}

/** Postings back into (term number, weight) pairs. */
export function decodePostings(text: string, scale: number, each: (id: number, weight: number) => void): void {
  let id = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 65 || c > 90) continue;
    id += parseInt(text.slice(start, i), 36);
    each(id, (c - 64) / scale);
    start = i + 1;
  }
}

function toolsetDescription(toolsets: Readonly<Record<string, { description: string }>>, name: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(toolsets, name) ? toolsets[name]!.description : undefined;
}

/** The index of these tools (catalogue order). Deterministic: same tools, same lexicon, same text. */
export function buildSearchIndex(tools: readonly DocumentTool[], toolsets: Readonly<Record<string, { description: string }>>, lexicon?: Lexicon): SearchIndexData {
  const memo = new Map<string, string[]>();
  const verbs = titleVerbs(tools.map((t) => t.title));
  const isVerb = lexicon?.verb ? (w: string) => lexicon.verb!(w) : undefined;
  const shapes = tools.map((t) => {
    const phrase = titlePhrase(t.title, verbs);
    return operationShape(t.http.method, t.http.path, phrase.verb, phrase.head !== undefined && PLURAL_HEAD.test(phrase.head), isVerb);
  });
  const docs = tools.map((t, i) => searchDocument(t, (s) => toolsetDescription(toolsets, s), memo, shapes[i]!));
  const vocabulary = new Set<string>();
  for (const d of docs) for (const t of d.tf.keys()) vocabulary.add(t);
  const terms = [...vocabulary].sort();
  const id = new Map(terms.map((t, i) => [t, i]));
  const encoded = docs.map((d) => encode([...d.tf].filter(([, w]) => w * DOC_SCALE >= 0.5).map(([t, w]) => [id.get(t)!, w]), DOC_SCALE));
  const resources = docs.map((d) => (d.resource.length ? (id.get(stem(d.resource[d.resource.length - 1]!)) ?? -1) : -1));
  // What a tool acts on: its title's head noun ("Add assignees to an issue": assignees), else its path's resource.
  const kinds = docs
    .map((d, i) => {
      const head = titlePhrase(tools[i]!.title, verbs).head ?? d.resource[d.resource.length - 1];
      return lexicon && head && lexicon.person(singular(head)) ? 'p' : '-';
    })
    .join('');

  // Query words worth expanding into: the words of titles, names, paths and toolsets (what operations are about).
  const expand = new Map<string, Map<number, number>>();
  if (lexicon) {
    const keyWords = new Set<string>();
    for (const d of docs) for (const w of d.keyWords) keyWords.add(w);
    for (const word of [...keyWords].sort()) {
      const target = id.get(stem(word));
      if (target === undefined) continue;
      for (const [other, weight] of lexicon.related(singular(word))) {
        const key = stem(other);
        if (key === terms[target]) continue;
        let m = expand.get(key);
        if (!m) expand.set(key, (m = new Map()));
        m.set(target, Math.max(m.get(target) ?? 0, weight));
      }
    }
  }
  const expandOut: Record<string, string> = {};
  for (const key of [...expand.keys()].sort()) expandOut[key] = encode([...expand.get(key)!], EXPAND_SCALE);
  const acts = shapes.map((sh) => ACT_CODE[sh.act]).join('');
  const actions = shapes.map((sh) => (sh.action ? (id.get(stem(sh.action)) ?? -1) : -1));
  const nouns = shapes.map((sh) => encode([...new Set(sh.nouns.map((w) => id.get(stem(w))).filter((t) => t !== undefined))].map((t) => [t, 1]), 1));
  // Operations the spec deprecates (the generator marks their descriptions) lose close calls.
  const deprecated = tools.flatMap((t, i) => (t.description.startsWith('[Deprecated]') ? [i] : []));
  // What each tool may destroy, for search never to lead with it unasked (search-risk.ts).
  const harms = tools
    .map((t, i) => {
      const a = t.annotations;
      if (!a) return '-';
      const { action, target } = shapes[i]!;
      const resource = target.at(-1);
      const source = { readOnly: a.readOnlyHint, destructive: a.destructiveHint, title: t.title, method: t.http.method };
      return encodeHarm(readHarm({ ...source, ...(action ? { action } : {}), ...(resource ? { resource } : {}) }, lexicon?.effects));
    })
    .join('');
  return { v: 1, terms, docs: encoded, kinds, resources, expand: expandOut, acts, actions, nouns, deprecated, harms };
}

/** A plural path or title word's singular, for looking it up in a dictionary ("stargazers" -> "stargazer"). */
function singular(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && /(ches|shes|sses|xes)$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** The index decoded for ranking: an inverted list per term. */
export interface SearchIndex {
  terms: string[];
  termId: Map<string, number>;
  /** Per term: the tools that have it and its weighted frequency in each. */
  postings: Array<{ docs: Int32Array; tf: Float32Array }>;
  /** Per tool: the sum of its weights (BM25's document length). */
  len: Float32Array;
  avgLen: number;
  people: Uint8Array;
  resources: Int32Array;
  /** Per tool: what it does (search-shape.ts); undefined for an index written before shapes. */
  acts?: Array<ActClass | 'action'>;
  /** Per tool: the term of its own action (`merge`), -1 for none. */
  actions?: Int32Array;
  /** Per tool: the terms of the nouns its path names. */
  nouns?: Int32Array[];
  /** Per tool: 1 when the spec deprecates it. */
  deprecated: Uint8Array;
  /** Per tool: what it may destroy; undefined for an index written before it kept this (search-risk.ts reads it then). */
  harms?: Array<ToolRisk | undefined>;
  /** Query stem -> [term number, weight] pairs. */
  expansions(queryStem: string): ReadonlyArray<readonly [number, number]>;
}

function flagged(n: number, tools: readonly number[]): Uint8Array {
  const out = new Uint8Array(n);
  for (const i of tools) if (i >= 0 && i < n) out[i] = 1;
  return out;
}

export function decodeSearchIndex(data: SearchIndexData): SearchIndex {
  const n = data.docs.length;
  const lists: Array<{ docs: number[]; tf: number[] }> = data.terms.map(() => ({ docs: [], tf: [] }));
  const len = new Float32Array(n);
  data.docs.forEach((text, doc) => {
    decodePostings(text, DOC_SCALE, (t, w) => {
      lists[t]!.docs.push(doc);
      lists[t]!.tf.push(w);
      len[doc]! += w;
    });
  });
  let total = 0;
  for (const l of len) total += l;
  const people = new Uint8Array(n);
  for (let i = 0; i < n; i++) people[i] = data.kinds[i] === 'p' ? 1 : 0;
  const cache = new Map<string, Array<[number, number]>>();
  return {
    terms: data.terms,
    termId: new Map(data.terms.map((t, i) => [t, i])),
    postings: lists.map((l) => ({ docs: Int32Array.from(l.docs), tf: Float32Array.from(l.tf) })),
    len,
    avgLen: n ? total / n : 1,
    people,
    resources: Int32Array.from(data.resources),
    deprecated: flagged(n, data.deprecated ?? []),
    ...(data.harms && data.harms.length === n ? { harms: Array.from(data.harms, decodeHarm) } : {}),
    ...(data.acts && data.actions && data.nouns
      ? {
          acts: Array.from(data.acts, (c) => CODE_ACT[c] ?? 'get'),
          actions: Int32Array.from(data.actions),
          nouns: data.nouns.map((text) => {
            const out: number[] = [];
            decodePostings(text, 1, (t) => out.push(t));
            return Int32Array.from(out);
          }),
        }
      : {}),
    expansions(queryStem) {
      let hit = cache.get(queryStem);
      if (!hit) {
        hit = [];
        const text = Object.prototype.hasOwnProperty.call(data.expand, queryStem) ? data.expand[queryStem]! : '';
        const out = hit;
        decodePostings(text, EXPAND_SCALE, (t, w) => out.push([t, w]));
        if (cache.size < 4096 && queryStem.length <= MAX_CACHED_WORD) cache.set(queryStem, hit);
      }
      return hit;
    },
  };
}
