// A `$ref` that points nowhere, outside a schema (a parameter, a request body, a response, a media type, a path
// item): what it stood for is lost, and the build report says what (docs/generator.md, "Lossy conversions"). Inside
// a schema the converter reports it itself.
import { isObj } from '../lib/is-object.ts';
import type { SchemaConverter } from './schema-converter.ts';

/** The node with its `$ref`s followed; undefined, reported as `unresolved-ref` with what was lost, when one dangles. */
export function derefReported<T = any>(conv: SchemaConverter, node: unknown, where: string, lost: string): T | undefined {
  const r = conv.deref(node);
  if (isObj(r) && typeof r.$ref === 'string' && conv.resolvePointer(r.$ref) === undefined) {
    conv.warn('unresolved-ref', `${where}: $ref ${r.$ref} not found; ${lost}`);
    return undefined;
  }
  return r as T;
}
