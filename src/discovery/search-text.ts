// Words and terms for search, the same at build time (the generator's index) and at run time (queries): words split
// at case changes and punctuation, function words left out, each term the word's Porter stem (the `stemmer`
// package), so "reviewers", "reviewer" and "review" meet, and "reminders" meets "remind".
import { stemmer } from 'stemmer';

/** Function words: they say nothing about which operation is meant (question words are read as intents instead). */
export const STOP: ReadonlySet<string> = new Set(
  ('a an the of for to in on by with and or but if then than so as at from into onto via per about over under up out off ' +
    'this that these those it its it\'s is are was were be been being am do does did doing done have has had having ' +
    'can could would should will shall may might must need want wanting wanted please let lets just also too very really ' +
    'some any all each every both either neither such own same other another more most much many few lot lots ' +
    'there here where when why what which who whom whose how whether ' +
    'i me my mine myself we us our ours you your yours he him his she her hers they them their theirs someone somebody something ' +
    'one ones thing things stuff way given specific certain particular using use via ' +
    'no not longer anymore again already still yet ever never maybe perhaps')
    .split(/\s+/),
);

/** Words of a text: split at non-letters/digits and at camelCase humps, lower-cased. */
export function words(text: string): string[] {
  // A possessive's "s" is no word: "the team's drive" is about a team and a drive.
  const found = text.replace(POSSESSIVE, '').match(WORD);
  if (!found) return [];
  for (let i = 0; i < found.length; i++) found[i] = found[i]!.toLowerCase();
  return found;
}
/** An acronym (up to the next capitalised word), a capitalised or lower-case word, or a number: "getHTTPStatus" -> get, http, status. */
const WORD = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g;
const POSSESSIVE = /(?<=[A-Za-z])['’]s\b/g;

const stems = new Map<string, string>();
/** Longer words are stemmed but not cached: a query chooses them, and a word can be as long as a request body. */
export const MAX_CACHED_WORD = 32;

/** A word's term: its Porter stem (cached; the catalogue's and queries' words repeat). */
export function stem(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    s = /^[a-z]+$/.test(word) ? stemmer(word) : word;
    if (stems.size < 50_000 && word.length <= MAX_CACHED_WORD) stems.set(word, s);
  }
  return s;
}

/** The terms of a text: its words without function words, stemmed. */
export function terms(text: string): string[] {
  return words(text)
    .filter((w) => !STOP.has(w))
    .map(stem);
}
