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

/** Words of a text: split at non-letters/digits and at camelCase humps, lower-cased ("OAuth2" -> oauth, 2). */
export function words(text: string): string[] {
  // A possessive's "s" is no word: "the team's drive" is about a team and a drive.
  const found = text.replace(POSSESSIVE, '').match(WORD);
  if (!found) return [];
  for (let i = 0; i < found.length; i++) found[i] = found[i]!.toLowerCase();
  return found;
}
/**
 * A lone capital starting a word with the capitalised word after it ("OAuth", "ETag": what people type as "oauth"), an
 * acronym (up to the next capitalised word), a capitalised or lower-case word, or a number: "getHTTPStatus" -> get,
 * http, status.
 */
const WORD = /(?<![A-Za-z])[A-Z](?=[A-Z][a-z])[A-Z][a-z]+|[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g;
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

/** A number is a value, never a term: "OAuth2" is about OAuth, "v1.2.3" about a release, "#42" about an issue. */
export const DIGITS = /^[0-9]+$/;

/** The terms of a text: its words without function words and numbers, stemmed. */
export function terms(text: string): string[] {
  return words(text)
    .filter((w) => !STOP.has(w) && !DIGITS.test(w))
    .map(stem);
}

/**
 * Values a query names rather than words it asks with: URLs, e-mail addresses, `#ids` and hashtags, versions, numbers
 * with or without a unit (dates, times, sizes, durations, ordinals), commit hashes and UUIDs. "publish release v1.2.3"
 * asks to publish a release; "comment on issue #42" to comment on an issue. A number glued to a word ("OAuth2",
 * "2FA") loses only its digits (DIGITS).
 */
/** Units a number carries: sizes, durations, times of day, ordinals. */
const UNITS = '[kmgtp]i?b|[kmbgx]|px|ms|s|sec|secs|min|mins|h|hr|hrs|d|w|am|pm|st|nd|rd|th';
const VALUES = new RegExp(
  [
    String.raw`https?:\/\/\S+`,
    String.raw`[\w.+-]+@[\w-]+(?:\.[\w-]+)+`,
    String.raw`#[\w-]+`,
    String.raw`\b[vV]?\d+(?:[.,:/-]\d+)*(?:${UNITS}|%)?(?![\w])`,
    String.raw`\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b`,
    String.raw`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`,
  ].join('|'),
  'gi',
);

/** The query with the values it names blanked out (their words are no terms), for reading and matching its words. */
export function withoutValues(query: string): string {
  return query.replace(VALUES, ' ');
}
