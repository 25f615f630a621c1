// The generator's Lexicon for the search index (src/discovery/search-index.ts), from WordNet (wordnet.ts): for a word
// of the catalogue, the everyday words a person may use for it instead. Only common senses and common words count
// (those seen in WordNet's sense-tagged corpus), so "star" brings "headliner" no closer than it is.
import type { Lexicon } from '../../src/discovery/search-index.ts';
import { fallbackOf } from './effects.ts';
import { wordnet, type WordNet } from './wordnet.ts';

/** Same concept, another part of speech ("subscribe" / "subscription"): nearly the word itself. */
const DERIVED = 0.8;
/** A synonym in one of the word's common senses. */
const SYNONYM = 0.5;
/** How many senses of a word count: its most frequent ones. Derivations are read over more, being less ambiguous. */
const SYNONYM_SENSES = 3;
const DERIVED_SENSES = 8;

/** WordNet is read on first use, so that time counts as the search index's build time. */
export function wordnetLexicon(given?: WordNet): Lexicon {
  let loaded: WordNet | undefined = given;
  const wn = () => (loaded ??= wordnet());
  return {
    related(word) {
      const out = new Map<string, number>();
      const put = (w: string, weight: number) => {
        if (w !== word && /^[a-z]{2,}$/.test(w) && wn().common(w)) out.set(w, Math.max(out.get(w) ?? 0, weight));
      };
      for (const w of wn().synonyms(word, SYNONYM_SENSES)) put(w, SYNONYM);
      for (const w of wn().derived(word, DERIVED_SENSES)) put(w, DERIVED);
      return [...out];
    },
    person: (word) => wn().person(word),
    verb: (word) => wn().mostlyVerb(word),
    // What a verb outside the lexicon of effects does, as the generator's annotations read it.
    effects: {
      effect: (word) => fallbackOf(wn())!.effect(word),
      derivedVerbs: (noun) => fallbackOf(wn())!.derivedVerbs(noun),
    },
  };
}
