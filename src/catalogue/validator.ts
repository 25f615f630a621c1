// JSON Schema validation that works on Workers: @cfworker/json-schema interprets schemas,
// so it needs no eval/new Function (Ajv's compiled validators are blocked there).
import { Validator } from '@cfworker/json-schema';
import { cutQuote, QUOTE_CHARS } from '../lib/cut-quote.ts';
import { compileCheck, type Check } from './fast-check.ts';
import { numberErrors } from './json-numbers.ts';
import type { JsonSchema } from './types.ts';

export interface ValidationOutcome {
  valid: boolean;
  /** Human-readable messages with instance locations, for isError texts a model can act on. */
  errors: string[];
}

// One validator per schema object, built lazily and kept for the isolate's lifetime; beside it the compiled check
// (fast-check.ts), which answers the common "valid" at a fraction of the cost. Null: the schema is outside its subset.
const cache = new WeakMap<JsonSchema, Validator>();
const checks = new WeakMap<JsonSchema, Check | null>();

export function validate(schema: JsonSchema, value: unknown, maxErrors = 10): ValidationOutcome {
  let check = checks.get(schema);
  if (check === undefined) checks.set(schema, (check = compileCheck(schema) ?? null));
  if (check?.(value)) return { valid: true, errors: [] };
  // Not valid by the compiled check (or none): @cfworker gives the verdict and the messages.
  let validator = cache.get(schema);
  if (!validator) {
    validator = new Validator(schema as never, '2020-12', false);
    cache.set(schema, validator);
  }
  const result = validator.validate(value);
  if (result.valid) return { valid: true, errors: [] };
  const errors: string[] = [];
  for (const e of result.errors) {
    // cfworker reports every failing ancestor too; keep the specific leaf messages.
    if (e.keyword === 'properties' || e.keyword === 'items' || e.keyword === 'allOf' || e.keyword === '$ref') continue;
    errors.push(line(e.instanceLocation, e.error));
    if (errors.length >= maxErrors) break;
  }
  if (errors.length === 0) errors.push(...result.errors.slice(0, maxErrors).map((e) => line(e.instanceLocation, e.error)));
  return { valid: false, errors };
}

/**
 * A tool's arguments against its inputSchema: numbers JSON cannot carry (and integers past 2^53 where it says
 * integer) are refused first, since @cfworker passes Infinity as an integer; then the schema itself.
 */
export function validateArguments(schema: JsonSchema, value: unknown): ValidationOutcome {
  const numbers = numberErrors(schema, value);
  return numbers.length ? { valid: false, errors: numbers } : validate(schema, value);
}

/** One message; a location or message that quotes a huge key or value is cut, so ten of them stay small. */
function line(fragment: string, error: string): string {
  return `${cutQuote(location(fragment))}: ${cutQuote(error, 2 * QUOTE_CHARS)}`;
}

/**
 * cfworker writes locations as URI fragments ("#/Site%20name/0"); a model reads the JSON Pointer itself
 * ("/Site name/0"), whose names then match the schema's property names.
 */
function location(fragment: string): string {
  const pointer = fragment.replace(/^#/, '') || '/';
  try {
    return decodeURIComponent(pointer);
  } catch {
    return pointer;
  }
}
