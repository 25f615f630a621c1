// The outputSchema a listing advertises for a catalogue schema under a profile: the whole schema, descriptions
// clipped (compact.ts), in the profile's dialect. No `$id`: tools share schemas, and a client that registers every
// outputSchema in one Ajv instance throws on a second schema with the same `$id`. Memoised per catalogue schema
// object and dialect, so every profile's and slice's view of one catalogue shares one copy: listings carry whole
// outputSchemas (GitHub: 2.8 MB of JSON for the whole catalogue), which would otherwise be held once per view.
import type { JsonSchema } from '../catalogue/types.ts';
import { DEFAULT_COMPACT, listedOutputSchema, type CompactOptions } from './listing-compaction.ts';
import { applyDialect } from './dialects.ts';
import type { Profile } from './profiles.ts';

const shared = new WeakMap<JsonSchema, Map<string, JsonSchema>>();

export function advertisedOutputSchema(schema: JsonSchema, profile: Profile, options: CompactOptions): JsonSchema {
  const build = () => applyDialect(listedOutputSchema(schema, options), profile, true);
  if (options !== DEFAULT_COMPACT) return build();
  let perDialect = shared.get(schema);
  if (!perDialect) shared.set(schema, (perDialect = new Map()));
  let listed = perDialect.get(profile.dialect);
  if (!listed) perDialect.set(profile.dialect, (listed = build()));
  return listed;
}
