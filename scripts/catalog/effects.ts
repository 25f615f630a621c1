// What an operation does to what already exists, read from the verbs its own words use (docs/confirmation.md,
// "Which tools are destructive"). The lexicon and its rules are src/catalogue/verb-effects.ts, which search shares;
// here the generator adds WordNet for words outside it: a word's commonest verb sense's synonyms, then that sense's
// direct hypernym ("annul" shares a sense with "void"), and the verbs an action noun derives from ("deletion").
import * as lexicon from '../../src/catalogue/verb-effects.ts';
import type { Effect, EffectFallback } from '../../src/catalogue/verb-effects.ts';
import { wordnet, type WordNet } from './wordnet.ts';

export type { Effect };
export { DESTRUCTIVE, identifierWords, worse } from '../../src/catalogue/verb-effects.ts';

const fallbacks = new WeakMap<WordNet, EffectFallback>();

/** WordNet as the lexicon's fallback dictionary (null: none). */
export function fallbackOf(wn: WordNet | null): EffectFallback | null {
  if (!wn) return null;
  let f = fallbacks.get(wn);
  if (!f) fallbacks.set(wn, (f = { effect: (w) => wordnetEffect(w, wn), derivedVerbs: (noun) => wn.derived(noun, 8) }));
  return f;
}

/** The effect one verb means: the lexicon, its prefix, then WordNet (null: not asked). Undefined when nothing says. */
export function verbEffect(word: string, wn: WordNet | null = wordnet()): Effect | undefined {
  return lexicon.verbEffect(word, fallbackOf(wn));
}

/** Through the commonest verb sense: a synonym the lexicon knows, else that sense's direct hypernym. */
function wordnetEffect(w: string, wn: WordNet): Effect | undefined {
  if (!/^[a-z]{3,}$/.test(w)) return undefined;
  const [sense] = wn.senses(w, 'verb', 1);
  if (!sense) return undefined;
  for (const s of sense.words) if (s !== w && lexicon.lexiconHas(s)) return lexicon.verbEffect(s);
  for (const [pos, offset] of sense.hypernyms) for (const h of wn.synset(pos, offset).words) if (lexicon.lexiconHas(h)) return lexicon.verbEffect(h);
  return undefined;
}

/** Whether a word is a verb this module reads an effect from without WordNet (for path segments and extension values). */
export function knownVerb(word: string): boolean {
  return lexicon.verbEffect(word) !== undefined;
}

/** The verbs a title or summary opens with ("Create or update", "Update, add, or delete"); empty when none. */
export function leadingVerbs(text: string, wn: WordNet | null = wordnet()): string[] {
  return lexicon.leadingVerbs(text, fallbackOf(wn));
}

/** The most harmful effect among verbs (undefined when none says). */
export function effectOfVerbs(verbs: readonly string[], wn: WordNet | null = wordnet()): Effect | undefined {
  return lexicon.effectOfVerbs(verbs, fallbackOf(wn));
}
