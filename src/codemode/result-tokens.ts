// Tokens of an execute's result, estimated the way the server budgets every result (CHARS_PER_TOKEN characters per
// token, src/limit-defaults.ts) for ASCII, which is what that rule was measured on, and per character for the scripts
// where it is far off: with o200k, CJK, kana and hangul are about one token per character (`'字'.repeat(1000)` is
// 1,000 tokens, not 250), Greek and Cyrillic one per 1.5–3.5, an emoji (two UTF-16 units) about one.
import { CHARS_PER_TOKEN } from '../limit-defaults.ts';

const ASCII = 1 / CHARS_PER_TOKEN;
/** U+0080–U+2FFF: Latin with diacritics, Greek, Cyrillic, Hebrew, Arabic, Indic, symbols. */
const OTHER = 0.7;

/** Estimated tokens of `text`. */
export function estimateTokens(text: string): number {
  let tokens = 0;
  for (let i = 0; i < text.length; i++) tokens += weight(text.charCodeAt(i));
  return Math.ceil(tokens);
}

/** The longest prefix of `text` within `maxTokens`. */
export function fitTokens(text: string, maxTokens: number): string {
  let tokens = 0;
  for (let i = 0; i < text.length; i++) {
    tokens += weight(text.charCodeAt(i));
    if (tokens > maxTokens) return text.slice(0, i > 0 && isHighSurrogate(text.charCodeAt(i - 1)) ? i - 1 : i);
  }
  return text;
}

function weight(c: number): number {
  if (c < 0x80) return ASCII;
  if (c >= 0xd800 && c <= 0xdfff) return 0.5; // half of a surrogate pair
  if (c < 0x3000) return OTHER;
  return 1;
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}
