// User input quoted into a message (a path, a name, a property) is cut: a 3.9 MB `owner` once came back as a 3.9 MB
// error text. The start is kept, since it is what tells the model which value was meant.

/** How much of a quoted value an error text keeps. */
export const QUOTE_CHARS = 200;

/** `text` cut to `max` characters (never inside a surrogate pair), with how much was cut. */
export function cutQuote(text: string, max = QUOTE_CHARS): string {
  if (text.length <= max) return text;
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}… (${(text.length - end).toLocaleString('en-US')} characters cut)`;
}
