// Per-tool schema budgets: a converted schema over its size budget is converted again at a smaller depth
// (cheap, thanks to the converter's memo). Inputs keep more depth and text than outputs.
import type { JsonSchema } from '../../src/catalogue/types.ts';
import type { Mode, SchemaConverter, Warn } from './schema-converter.ts';
import { schemaSize } from './schema-size.ts';

/** Description characters kept per input property (and per output node near the root). */
export const INPUT_DESC = 400;
const OUTPUT_DESC = 120;
const INPUT_DEPTHS = [8, 6, 4, 3, 2, 1];
const OUTPUT_DEPTHS = [6, 5, 4, 3, 2, 1, 0];
const INPUT_BUDGET = 60_000;
const OUTPUT_BUDGET = 24_000;

/**
 * Output schemas cut to fit their budget, with the deepest conversion (the first one tried): build-time decisions
 * about a result's shape (scripts/catalog/embedded-resources.ts) read what the API returns, not what fits a listing.
 * Keyed by the cut schema object, so a schema the overrides replace or drop no longer matches.
 */
export const deeperOutputSchemas = new WeakMap<JsonSchema, JsonSchema>();

export function convertWithBudget(conv: SchemaConverter, schema: unknown, mode: Mode, where: string, warn: Warn): JsonSchema {
  const depths = mode === 'input' ? INPUT_DEPTHS : OUTPUT_DEPTHS;
  const budget = mode === 'input' ? INPUT_BUDGET : OUTPUT_BUDGET;
  const descMax = mode === 'input' ? INPUT_DESC : OUTPUT_DESC;
  let out: JsonSchema = {};
  let deepest: JsonSchema | undefined;
  for (let i = 0; i < depths.length; i++) {
    out = conv.convert(schema, mode, { depth: depths[i]!, descMax }, where);
    deepest ??= out;
    if (schemaSize(out) <= budget || i === depths.length - 1) {
      if (i > 0) {
        warn('size-budget', `${where}: ${mode} schema cut to depth ${depths[i]} to fit ${budget} bytes`);
        if (mode === 'output') deeperOutputSchemas.set(out, deepest);
      }
      return out;
    }
  }
  return out;
}
