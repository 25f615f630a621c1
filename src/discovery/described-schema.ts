// The outputSchema describe_tool returns. Its answer is read by the model, so the schema (the listing's: the whole
// shape, descriptions clipped) is cut to fewer object levels when it is larger than DESCRIBE_OUTPUT_MAX JSON chars.
// A cut keeps every type it shows (test/node/output-types-agree.test.ts).
import type { CatalogueTool, JsonSchema } from '../catalogue/types.ts';
import { clippedOutputSchema, cutOutputSchema, DEFAULT_COMPACT } from '../profiles/listing-compaction.ts';
import { applyDialect } from '../profiles/dialects.ts';
import type { Profile } from '../profiles/profiles.ts';

const DESCRIBE_OUTPUT_MAX = 12_000;

/** The outputSchema describe_tool returns for a tool under a profile (none for content-only profiles). */
export function describedOutputSchema(tool: CatalogueTool, profile: Profile): JsonSchema | undefined {
  return tool.outputSchema && profile.carry === 'both' ? applyDialect(fitDescribeOutput(tool.outputSchema), profile, true) : undefined;
}

const describeCache = new WeakMap<JsonSchema, JsonSchema>();

function fitDescribeOutput(schema: JsonSchema): JsonSchema {
  let hit = describeCache.get(schema);
  if (hit) return hit;
  hit = clippedOutputSchema(schema, DEFAULT_COMPACT);
  if (JSON.stringify(hit).length > DESCRIBE_OUTPUT_MAX) {
    const clipped = hit;
    hit = cutOutputSchema(clipped, 1);
    for (let d = 6; d >= 1; d--) {
      const c = cutOutputSchema(clipped, d);
      if (JSON.stringify(c).length <= DESCRIBE_OUTPUT_MAX) {
        hit = c;
        break;
      }
    }
  }
  describeCache.set(schema, hit);
  return hit;
}
