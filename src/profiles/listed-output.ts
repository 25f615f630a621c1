// The outputSchema a listing advertises for a catalogue schema under a profile: its top levels whole and deeper
// objects within the output bound, descriptions clipped (listing-compaction.ts), in the profile's dialect. No `$id`:
// tools share schemas, and a client that registers every outputSchema in one Ajv instance throws on a second schema
// with the same `$id`. Memoised per catalogue schema object and dialect, so every profile's and slice's view of one
// catalogue shares one copy, which would otherwise be held once per view.
import type { JsonSchema } from '../catalogue/types.ts';
import { DEFAULT_COMPACT, listedOutputSchema, type CompactOptions } from './listing-compaction.ts';
import { applyDialect } from './dialects.ts';
import type { Profile } from './profiles.ts';

const shared = new WeakMap<JsonSchema, Map<string, JsonSchema>>();

/** `wrapped`: the tool's outputWrapped (structuredContent is `{result}`), which the bound counts levels from. */
export function advertisedOutputSchema(schema: JsonSchema, wrapped: boolean, profile: Profile, options: CompactOptions): JsonSchema {
  const build = () => applyDialect(listedOutputSchema(schema, options, wrapped), profile, true);
  if (options !== DEFAULT_COMPACT) return build();
  let perDialect = shared.get(schema);
  if (!perDialect) shared.set(schema, (perDialect = new Map()));
  const key = wrapped ? `${profile.dialect} wrapped` : profile.dialect;
  let listed = perDialect.get(key);
  if (!listed) perDialect.set(key, (listed = build()));
  return listed;
}
