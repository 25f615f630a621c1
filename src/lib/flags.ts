// Yes/no switches given as text (MCP URL parameters, the stdio server's environment): one reading for all of them.
// Anything outside the list is an error naming the valid words, never a silent default, so a switch a customer
// believes is on (readonly=yes, MCP_READONLY=on) is on, and a typo cannot serve write tools.

export const BOOLEAN_WORDS = ['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off'] as const;

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off']);

/** true or false for one of BOOLEAN_WORDS in any case (surrounding spaces ignored); undefined for anything else. */
export function parseBoolean(raw: string): boolean | undefined {
  const word = raw.trim().toLowerCase();
  return TRUE.has(word) ? true : FALSE.has(word) ? false : undefined;
}

/** The error text for a value parseBoolean refused. */
export function booleanError(name: string, raw: string): string {
  return `${name} must be one of ${BOOLEAN_WORDS.join(', ')} (any case); got ${JSON.stringify(raw.slice(0, 100))}`;
}
