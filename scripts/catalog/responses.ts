// Response side of a tool: `accept` (every 2xx media type, in spec order) and the outputSchema, from the first JSON
// schema of each 2xx response (different ones become anyOf). An object-ish root stays an object; anything else is
// wrapped as {result: X}, with `result` nullable.
//
// A success without a body is always possible for some operations: 204 and 205 carry none whatever the spec
// declares for them (one widely used spec declares `204: application/json {}` on dozens of operations), a HEAD
// response never has one, and a 2xx declared without content has none. Such responses contribute no schema, and the
// worker answers them with the empty structured result ({} or {result: null}); the outputSchema must accept it, or
// the tool gets none.
import type { JsonSchema } from '../../src/catalogue/types.ts';
import { validate } from '../../src/catalogue/validator.ts';
import { isObj } from '../lib/is-object.ts';
import { isJsonOrJsonWildcard } from './json-media-type.ts';
import type { Operation } from './operations.ts';
import { acceptNull } from './output-drift.ts';
import { derefReported } from './dangling-refs.ts';
import { convertWithBudget, deeperOutputSchemas } from './schema-budget.ts';
import type { SchemaConverter, Warn } from './schema-converter.ts';

interface ResponseBinding {
  accept: string[];
  outputSchema?: JsonSchema;
  outputWrapped: boolean;
  /** Why a JSON operation has no outputSchema. */
  dropped?: string;
}

/** Status codes whose responses never carry a body (RFC 9110 §15.3.5, §15.3.6). */
const BODYLESS = new Set(['204', '205']);

export function responseBinding(conv: SchemaConverter, o: Operation, warn: Warn): ResponseBinding {
  const accept: string[] = [];
  const outSchemas: unknown[] = [];
  const outKeys = new Set<string>();
  let emptySuccess = o.method === 'head';
  const responses = isObj(o.op.responses) ? o.op.responses : {};
  for (const code of Object.keys(responses)) {
    if (!/^2(\d\d|xx)$/i.test(code)) continue;
    const r = derefReported(conv, responses[code], `${o.key} response ${code}`, 'its content and output schema are lost');
    if (!isObj(r) || !isObj(r.content) || Object.keys(r.content).length === 0) {
      emptySuccess = true;
      continue;
    }
    if (!Object.keys(r.content).some(isJsonOrJsonWildcard)) emptySuccess = true;
    const bodyless = BODYLESS.has(code);
    if (bodyless) emptySuccess = true;
    let tookSchema = false;
    for (const [mt, m0] of Object.entries(r.content)) {
      if (!accept.includes(mt)) accept.push(mt);
      const m = derefReported(conv, m0, `${o.key} response ${code} ${mt}`, 'its output schema is lost');
      if (bodyless || tookSchema || !isJsonOrJsonWildcard(mt) || !isObj(m) || m.schema === undefined) continue;
      if (conv.isBinary(m.schema)) continue;
      tookSchema = true;
      const k = JSON.stringify(m.schema);
      if (!outKeys.has(k)) {
        outKeys.add(k);
        outSchemas.push(m.schema);
      }
    }
  }
  if (o.method === 'head') {
    if (outSchemas.length) warn('bodyless-success', `${o.key}: a HEAD response has no body; its declared schema is not an outputSchema`);
    return { accept, outputWrapped: false };
  }
  if (!outSchemas.length) return { accept, outputWrapped: false };
  const raw = outSchemas.length === 1 ? outSchemas[0] : { anyOf: outSchemas };
  const root = convertWithBudget(conv, raw, 'output', `${o.key} response`, warn);
  const wrapped = !(isObjectish(root) && !Array.isArray(root.type));
  const rooted = (r: JsonSchema): JsonSchema => (wrapped ? { type: 'object', properties: { result: acceptNull(r) }, required: ['result'] } : { ...r, type: 'object' });
  const binding: ResponseBinding = { accept, outputSchema: rooted(root), outputWrapped: wrapped };
  const deeper = deeperOutputSchemas.get(root);
  if (deeper) deeperOutputSchemas.set(binding.outputSchema!, rooted(deeper));
  if (emptySuccess && !validate(binding.outputSchema!, binding.outputWrapped ? { result: null } : {}).valid) {
    warn('bodyless-success', `${o.key}: the outputSchema rejects the empty result of a success without a body; no outputSchema`);
    return { accept, outputWrapped: false, dropped: 'generator: the schema rejects the empty result of a success without a body (204/205, HEAD, or a 2xx without content)' };
  }
  return binding;
}

function isObjectish(s: JsonSchema): boolean {
  if (s.type === 'object') return true;
  if (s.type !== undefined) return false;
  if (Array.isArray(s.anyOf)) return (s.anyOf as JsonSchema[]).every(isObjectish);
  if (isObj(s.properties)) return true;
  if (Array.isArray(s.allOf)) return (s.allOf as JsonSchema[]).some(isObjectish);
  return false;
}
