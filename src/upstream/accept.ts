// The Accept header of an upstream request. An operation that lists several success media types (say
// application/json, application/yaml and a protobuf type) would otherwise get them all at equal weight, and a server
// may then pick one the tool cannot turn into structured output. JSON types go first at full weight; the others follow
// in spec order with falling q-values, and wildcards last. A list without JSON is sent as declared.
import { baseMediaType, isJsonMediaType, isWildcardMediaType } from '../lib/media-type.ts';

/** What a tool with no declared success media type asks for. */
const DEFAULT_ACCEPT = 'application/json, */*;q=0.8';

export function acceptHeader(declared: readonly string[]): string {
  const seen = new Set<string>();
  const types = declared.map((t) => t.trim()).filter((t) => t && !seen.has(t.toLowerCase()) && seen.add(t.toLowerCase()));
  if (!types.length) return DEFAULT_ACCEPT;
  const json = types.filter((t) => isJsonMediaType(t));
  if (!json.length || json.length === types.length) return types.join(', ');
  const wildcards = types.filter((t) => !isJsonMediaType(t) && isWildcardMediaType(baseMediaType(t)));
  const others = types.filter((t) => !isJsonMediaType(t) && !wildcards.includes(t));
  // q has at most three decimals (RFC 9110 §12.4.2); 0.9, 0.8, … down to 0.2, then 0.1 for wildcards.
  const weighted = others.map((t, i) => `${t};q=${Math.max(0.2, 0.9 - i * 0.1).toFixed(1)}`);
  return [...json, ...weighted, ...wildcards.map((t) => `${t};q=0.1`)].join(', ');
}
