// Whether a body the worker delivered beside its outputSchema (`as_returned`, docs/tool-execution.md) broke the schema
// only through the two kinds of type drift that generated schemas do not absorb (docs/generator.md, "Drift"): null
// where the spec does not allow it, and a number sent as a string. The sweep's drift proxy injects both, and the worker
// handling them as designed (a success, the data beside the schema) is not a schema failure. Anything else the body
// breaks is.
import type { JsonSchema } from '../../src/catalogue/types.ts';
import { validate } from '../../src/catalogue/validator.ts';
import { isObj } from '../lib/is-object.ts';

const MAX_ROUNDS = 20;
const NUMERIC_STRING = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

/** The structured content's `as_returned` data, when the worker put a body beside the schema. */
export function besideData(structured: unknown): { found: boolean; data?: unknown } {
  if (!isObj(structured)) return { found: false };
  const key = Object.keys(structured).find((k) => /^_*(mcp_)?as_returned(_\d+)?$/.test(k));
  return key ? { found: true, data: structured[key] } : { found: false };
}

/**
 * What `data` (as the upstream sent it) still breaks of `schema` once every null the schema rejects is removed and
 * every numeric string where the schema rejects a string is read as a number (the validator's messages): empty when
 * type drift explains it all. A wrapped schema's data goes under `result`.
 */
export function typeDriftLeft(schema: JsonSchema, data: unknown): string[] {
  const wrapped = JSON.stringify(schema.required) === '["result"]';
  const root: Record<string, unknown> = wrapped ? { result: structuredClone(data) } : (structuredClone(data) as Record<string, unknown>);
  if (!isObj(root)) return ['the body is not an object'];
  let left: string[] = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const check = validate(schema, root, 1000);
    if (check.valid) return [];
    left = check.errors;
    let repaired = false;
    for (const error of check.errors) {
      const m = /^(\/[^:]*): Instance type "(null|string)" is invalid/.exec(error);
      if (!m) continue;
      // The validator's instance locations are URI fragments: `/Site%20name` is the key "Site name".
      const path = m[1]!.split('/').slice(1).map((p) => safeDecode(p).replace(/~1/g, '/').replace(/~0/g, '~'));
      const key = path.pop();
      const parent = path.reduce<unknown>((node, p) => (isObj(node) || Array.isArray(node) ? (node as Record<string, unknown>)[p] : undefined), root);
      if (key === undefined || !(isObj(parent) || Array.isArray(parent))) continue;
      const holder = parent as Record<string, unknown>;
      const value = holder[key];
      if (value === null && !Array.isArray(parent)) {
        delete holder[key];
        repaired = true;
      } else if (m[2] === 'string' && typeof value === 'string' && NUMERIC_STRING.test(value) && /Expected "(integer|number)"/.test(error)) {
        holder[key] = Number(value);
        repaired = true;
      }
    }
    if (!repaired) return left;
  }
  return left;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
