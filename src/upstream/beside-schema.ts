// A success whose body the tool's outputSchema does not describe (drifted JSON, a list too large to shorten within
// the schema) is still a success, never isError. The body goes beside the empty structured result — {} for an
// object root, {result: null} for a wrapped one, which every generated outputSchema takes (docs/generator.md) —
// under a key the schema leaves free, with a note that says why. Output schemas are open, so strict clients accept
// it, and the text block carries the same JSON for clients that read only content.
import type { JsonSchema } from '../catalogue/types.ts';
import { validate } from '../catalogue/validator.ts';
import { isPlainObject } from './encoding.ts';

/** The structured result that carries `data` and a note beside the schema, or undefined when the schema takes none. */
export function besideSchema(schema: JsonSchema, wrapped: boolean, data: unknown, note: (dataKey: string) => string): Record<string, unknown> | undefined {
  const props = isPlainObject(schema.properties) ? schema.properties : {};
  const free = (k: string) => [k, `_${k}`, `_mcp_${k}`].find((c) => !(c in props)) ?? `_mcp_${k}_${Object.keys(props).length}`;
  const dataKey = free('as_returned');
  const noteKey = free('note');
  const empties: Record<string, unknown>[] = wrapped ? [{ result: null }, {}] : [{}, { result: null }];
  for (const empty of empties) {
    const structured = { ...empty, [dataKey]: data, [noteKey]: note(dataKey) };
    if (validate(schema, structured).valid) return structured;
  }
  return undefined;
}
