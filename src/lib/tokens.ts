// Tokens of a text, estimated in one pass for any script, so that every result the server writes stays within its
// token budget (src/results/budget.ts). Characters are not tokens: with o200k, a CJK character costs about one token
// where an English word of five letters costs one, base64 about one token per 1.5 characters.
//
// The estimate follows how o200k splits text before it merges (a run of letters with one leading space or
// punctuation, digits in threes, runs of punctuation, whitespace) and charges each piece what such pieces cost:
//   - ASCII: one token per piece, letters past the third of a word 0.3 each (long and non-English words split),
//     every letter 0.5 in a piece that starts without a separator (camelCase, base64, hex), punctuation past the
//     third of a run 0.4;
//   - other characters: what the character costs on its own (src/lib/token-costs.ts, generated from the tokenizer:
//     rare CJK characters cost 2–3, an emoji 1–3), less for a character that is one token alone, since those merge
//     in running text: 0.8 (Latin letters with diacritics, CJK, kana, hangul), 0.45 (other alphabets);
//   - past LONG_RUN letters in a row, no discount for merging.
// Against gpt-tokenizer's o200k (test/node/token-estimate.test.ts) it never undercounts real text in any script by
// more than 3%, and overcounts English JSON by about 17% (GitHub's examples), CJK by 5–30% and Russian by up to 2.4×:
// a result the estimate lets through is within its budget in real tokens. The gpt-tokenizer itself is far too large
// for the Worker (its o200k ranks are megabytes), hence an estimate.
import { TOKEN_COSTS_BASE64 } from './token-costs.ts';

// ASCII character classes.
const LOWER = 0;
const UPPER = 1;
const DIGIT = 2;
const SPACE = 3;
const NEWLINE = 4;
const PUNCT = 5;
const ASCII_CLASS = new Uint8Array(128).map((_, c) =>
  c >= 97 && c <= 122 ? LOWER : c >= 65 && c <= 90 ? UPPER : c >= 48 && c <= 57 ? DIGIT : c === 10 || c === 13 ? NEWLINE : c === 32 || c === 9 || c === 11 || c === 12 ? SPACE : PUNCT,
);

/** Letters of a word that come free (most words of three letters are one token). */
const FREE_LETTERS = 3;
/**
 * Letters past this many in one run get no discount for merging: no language has words that long, while a long run of
 * one letter or of random letters merges little ('z'.repeat(n) is n/2 tokens, 'ж'.repeat(n) and '字'.repeat(n) n).
 */
const LONG_RUN = 32;
const LONG_WORD_LETTER = 0.3;
const GLUED_LETTER = 0.5;
const LONG_PUNCT = 0.4;
const MERGED_LATIN_CJK = 0.8;
const MERGED_ALPHABET = 0.45;
/** A run of spaces merges into few tokens; o200k has single tokens for up to about 80 spaces. */
const MORE_SPACE = 0.02;
/** A character outside the table (4 bytes of UTF-8: at most 4 tokens). */
const UNLISTED = 4;
/** The most one UTF-16 unit adds to the estimate: a BMP character of 3 tokens. */
export const MAX_TOKENS_PER_UNIT = 3;

// The scan's states: what the text before the next character ended with. WORD + n is the (n+1)th letter of a word
// that began after a separator, lower case; WORD_UPPER + n the same in upper case (the count stops at LONG_RUN+1).
const START = 0; // the start of the text, or a newline
const SPACE1 = 1; // one space: a word or punctuation after it joins its piece
const SPACES = 2;
const PUNCT1 = 3; // one punctuation mark: a word after it joins its piece
const PUNCT2 = 4;
const PUNCT3 = 5;
const PUNCT_MORE = 6;
const DIGIT1 = 7;
const DIGIT2 = 8;
const DIGIT3 = 9;
const LETTER = 10; // a letter outside ASCII
const SYMBOL = 11; // punctuation or a symbol outside ASCII
const GLUED = 12; // letters of a piece that began without a separator (camelCase, base64, hex), lower case
const GLUED_UPPER = 13;
const WORD = 14;
const WORD_UPPER = WORD + LONG_RUN + 1;
const STATES = WORD_UPPER + LONG_RUN + 1;

/** One step of the scan for an ASCII character of class `k` after state `s`: the next state and its weight. */
function step(s: number, k: number): [number, number] {
  const wordLetters = s >= WORD ? ((s - WORD) % (LONG_RUN + 1)) + 1 : 0;
  const lowerBefore = (s >= WORD && s < WORD_UPPER) || s === GLUED || s === LETTER;
  switch (k) {
    case LOWER:
    case UPPER: {
      const upper = k === UPPER;
      if (upper && lowerBefore && s !== LETTER) return [GLUED_UPPER, 1]; // camelCase starts a piece
      if (s === GLUED || s === GLUED_UPPER) return [upper ? GLUED_UPPER : GLUED, GLUED_LETTER];
      if (wordLetters || s === LETTER) {
        const n = s === LETTER ? FREE_LETTERS + 1 : Math.min(wordLetters + 1, LONG_RUN + 1);
        return [(upper ? WORD_UPPER : WORD) + n - 1, n <= FREE_LETTERS ? 0 : n <= LONG_RUN ? LONG_WORD_LETTER : GLUED_LETTER];
      }
      if (s === SPACE1 || s === PUNCT1 || s === SYMBOL) return [upper ? WORD_UPPER : WORD, 0];
      if (s === DIGIT1 || s === DIGIT2 || s === DIGIT3) return [upper ? GLUED_UPPER : GLUED, 1];
      return [upper ? WORD_UPPER : WORD, 1];
    }
    case DIGIT:
      return s === DIGIT1 ? [DIGIT2, 0] : s === DIGIT2 ? [DIGIT3, 0] : [DIGIT1, 1];
    case PUNCT:
      if (s === PUNCT1) return [PUNCT2, 0];
      if (s === PUNCT2) return [PUNCT3, 0];
      if (s === PUNCT3 || s === PUNCT_MORE) return [PUNCT_MORE, LONG_PUNCT];
      return [PUNCT1, s === SPACE1 ? 0 : 1];
    case SPACE:
      return s === SPACE1 || s === SPACES ? [SPACES, MORE_SPACE] : [SPACE1, 1];
    default:
      return [START, s === SPACE1 || s === SPACES ? 0.5 : s === START ? MORE_SPACE : 1];
  }
}

// The ASCII steps as tables, indexed by state × 8 + class: the scan's inner loop is two lookups and an addition.
const NEXT = new Uint8Array(STATES * 8);
const WEIGHT = new Float64Array(STATES * 8);
for (let s = 0; s < STATES; s++) {
  for (let k = LOWER; k <= PUNCT; k++) [NEXT[s * 8 + k], WEIGHT[s * 8 + k]] = step(s, k);
}

const BMP_ENTRIES = 0x10000 - 0x80;
let costs: string | undefined;

/** What `cp` (non-ASCII) costs on its own, from the generated table, unpacked on first use. */
function ownCost(cp: number): number {
  const i = cp < 0x10000 ? cp - 0x80 : cp >= 0x1f000 && cp <= 0x1ffff ? BMP_ENTRIES + cp - 0x1f000 : -1;
  if (i < 0) return UNLISTED;
  costs ??= atob(TOKEN_COSTS_BASE64);
  return (costs.charCodeAt(i >> 2) >> ((i & 3) * 2)) & 3;
}

/** Punctuation and symbols outside ASCII: they split words instead of joining them. */
function isSymbol(c: number): boolean {
  return (
    (c >= 0xa0 && c <= 0xbf) ||
    c === 0xd7 ||
    c === 0xf7 ||
    (c >= 0x2000 && c <= 0x2bff) ||
    (c >= 0x3000 && c <= 0x303f) ||
    (c >= 0xfe00 && c <= 0xfe4f) ||
    (c >= 0xff00 && c <= 0xff0f) ||
    (c >= 0xff1a && c <= 0xff20) ||
    (c >= 0xff3b && c <= 0xff40) ||
    (c >= 0xff5b && c <= 0xff65)
  );
}

/** The weight of a BMP letter that is one token on its own: what it costs in running text. */
function mergedWeight(c: number): number {
  return c < 0x300 || (c >= 0x1e00 && c < 0x1f00) || c >= 0x3000 ? MERGED_LATIN_CJK : MERGED_ALPHABET;
}

/**
 * The scan: estimated tokens of `text`, stopping at the first character that takes the estimate over `limit`.
 * `end` is where it stopped (text.length when it did not), never inside a surrogate pair.
 */
function scan(text: string, limit: number): { tokens: number; end: number } {
  let t = 0;
  let s = START;
  /** Letters outside ASCII in a row. */
  let run = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      const j = (s << 3) | ASCII_CLASS[c]!;
      t += WEIGHT[j]!;
      s = NEXT[j]!;
      if (t > limit) return { tokens: t, end: i };
      continue;
    }
    const start = i;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      const cp = ((c - 0xd800) << 10) + (text.charCodeAt(++i) - 0xdc00) + 0x10000;
      t += ownCost(cp);
      s = cp >= 0x1f000 && cp <= 0x1faff ? SYMBOL : LETTER;
    } else if (isSymbol(c)) {
      t += ownCost(c);
      s = SYMBOL;
    } else {
      const cost = ownCost(c);
      run = s === LETTER ? run + 1 : 1;
      t += cost === 1 && run <= LONG_RUN ? mergedWeight(c) : cost;
      s = LETTER;
    }
    if (t > limit) return { tokens: t, end: start };
  }
  return { tokens: t, end: n };
}

/** Estimated o200k tokens of `text`. */
export function estimateTokens(text: string): number {
  return Math.ceil(scan(text, Infinity).tokens);
}

/** Whether `text` is estimated within `maxTokens`; a short text is answered without a scan. */
export function withinTokens(text: string, maxTokens: number): boolean {
  if (text.length * MAX_TOKENS_PER_UNIT <= maxTokens) return true;
  // ASCII costs at most a token a character, and the regex is several times faster than the scan.
  if (text.length <= maxTokens && !NON_ASCII.test(text)) return true;
  return scan(text, maxTokens).end === text.length;
}

const NON_ASCII = /[^\0-\x7f]/;

/** The longest prefix of `text` estimated within `maxTokens` (never ending inside a surrogate pair). */
export function fitTokens(text: string, maxTokens: number): string {
  if (text.length * MAX_TOKENS_PER_UNIT <= maxTokens) return text;
  const { end } = scan(text, maxTokens);
  return end === text.length ? text : text.slice(0, end);
}
