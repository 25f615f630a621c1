// Response side of a tool: `accept` (every 2xx media type, in spec order) and the outputSchema, from the first JSON
// schema of each 2xx response (different ones become anyOf). An object-ish root stays an object; anything else is
// wrapped as {result: X}, nullable when some 2xx has no JSON body (the worker then sends {result: null}).
import type { JsonSchema } from '../../src/catalogue/types.ts';
import { isObj } from '../lib/is-object.ts';
import { isJsonOrJsonWildcard } from './json-media-type.ts';
import type { Operation } from './operations.ts';
import { convertWithBudget } from './schema-budget.ts';
import type { SchemaConverter, Warn } from './schema-converter.ts';


interface ResponseBinding {
  accept: string[];
  outputSchema?: JsonSchema;
  outputWrapped: boolean;
}

export function responseBinding(conv: SchemaConverter, o: Operation, warn: Warn): ResponseBinding {
  const accept: string[] = [];
  const outSchemas: unknown[] = [];
  const outKeys = new Set<string>();
  let emptySuccess = false; // a 2xx without JSON (e.g. 204 next to 200): the worker sends {} / {result: null}
  const responses = isObj(o.op.responses) ? o.op.responses : {};
  for (const code of Object.keys(responses)) {
    if (!/^2(\d\d|xx)$/i.test(code)) continue;
    const r = conv.deref(responses[code]);
    if (!isObj(r) || !isObj(r.content) || Object.keys(r.content).length === 0) {
      emptySuccess = true;
      continue;
    }
    if (!Object.keys(r.content).some(isJsonOrJsonWildcard)) emptySuccess = true;
    let tookSchema = false;
    for (const [mt, m0] of Object.entries(r.content)) {
      if (!accept.includes(mt)) accept.push(mt);
      const m = conv.deref(m0);
      if (tookSchema || !isJsonOrJsonWildcard(mt) || !isObj(m) || m.schema === undefined) continue;
      if (conv.isBinary(m.schema)) continue;
      tookSchema = true;
      const k = JSON.stringify(m.schema);
      if (!outKeys.has(k)) {
        outKeys.add(k);
        outSchemas.push(m.schema);
      }
    }
  }
  if (!outSchemas.length) return { accept, outputWrapped: false };
  const raw = outSchemas.length === 1 ? outSchemas[0] : { anyOf: outSchemas };
  const root = convertWithBudget(conv, raw, 'output', `${o.key} response`, warn);
  if (isObjectish(root) && !Array.isArray(root.type)) return { accept, outputSchema: { ...root, type: 'object' }, outputWrapped: false };
  const result = emptySuccess ? nullableResult(root) : root;
  return { accept, outputSchema: { type: 'object', properties: { result }, required: ['result'] }, outputWrapped: true };
}

function nullableResult(s: JsonSchema): JsonSchema {
  if (Object.keys(s).length === 0) return s;
  if (typeof s.type === 'string') return s.type === 'null' ? s : { ...s, type: [s.type, 'null'] };
  if (Array.isArray(s.type)) return s.type.includes('null') ? s : { ...s, type: [...s.type, 'null'] };
  return { anyOf: [s, { type: 'null' }] };
}

function isObjectish(s: JsonSchema): boolean {
  if (s.type === 'object') return true;
  if (s.type !== undefined) return false;
  if (Array.isArray(s.anyOf)) return (s.anyOf as JsonSchema[]).every(isObjectish);
  if (isObj(s.properties)) return true;
  if (Array.isArray(s.allOf)) return (s.allOf as JsonSchema[]).some(isObjectish);
  return false;
}
