// Which declared media types the generator reads as JSON. The shared test (src/lib/media-type.ts) does not count
// wildcards as JSON; the generator does for the two that a JSON document satisfies, `*/*` and `application/*`:
// a spec that puts a schema under them describes JSON in practice, so the tool keeps its outputSchema
// (docs/generator.md, "outputSchema").
import { baseMediaType, isJsonMediaType, isWildcardMediaType } from '../../src/lib/media-type.ts';

export function isJsonOrJsonWildcard(mediaType: string): boolean {
  if (isJsonMediaType(mediaType)) return true;
  const t = baseMediaType(mediaType);
  return isWildcardMediaType(t) && (t === '*/*' || t === 'application/*');
}
