// Parameter bindings: path-level parameters overridden by operation-level ones with the same in+name, in the order
// path, query, header, cookie. Accept, Content-Type and Authorization headers are the transport's, as OpenAPI says.
import type { JsonSchema, ParamBinding, ParamLocation, ParamStyle } from '../../src/catalogue/types.ts';
import { isObj } from '../lib/is-object.ts';
import type { ArgNames } from './arg-names.ts';
import type { Operation } from './operations.ts';
import { derefReported } from './dangling-refs.ts';
import { convertWithBudget, INPUT_DESC } from './schema-budget.ts';
import type { SchemaConverter, Warn } from './schema-converter.ts';
import { trimText } from './trim-text.ts';

const LOC_ORDER: ParamLocation[] = ['path', 'query', 'header', 'cookie'];
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);
/** The serialisation styles OpenAPI defines; shared with the form-body encoding. */
export const STYLES = new Set<unknown>(['simple', 'label', 'matrix', 'form', 'spaceDelimited', 'pipeDelimited', 'deepObject']);


interface ParameterInputs {
  properties: Record<string, JsonSchema>;
  required: string[];
  params: ParamBinding[];
}

const req0 = (loc: string, p: Record<string, unknown>) => loc === 'path' || p.required === true;
const admitsArray = (s: JsonSchema) => s.type === 'array' || (Array.isArray(s.type) && s.type.includes('array') && !s.type.includes('null'));

/**
 * `credentialSlots`: `in:name` (name lower-cased) of the API keys the operation's security places; a parameter in such
 * a slot is the credential itself, which the server sends, so it is no argument for the model to fill.
 */
export function parameterBindings(conv: SchemaConverter, o: Operation, args: ArgNames, warn: Warn, credentialSlots: ReadonlySet<string> = new Set()): ParameterInputs {
  const where = o.key;
  const pmap = new Map<string, Record<string, any>>();
  for (const p0 of [...o.pathParams, ...(Array.isArray(o.op.parameters) ? o.op.parameters : [])]) {
    const p = derefReported(conv, p0, where, 'a parameter is lost (the tool cannot send it)');
    if (!isObj(p) || typeof p.name !== 'string' || !LOC_ORDER.includes(p.in)) continue;
    if (p.in === 'header' && IGNORED_HEADERS.has(p.name.toLowerCase())) continue;
    if (credentialSlots.has(`${p.in}:${p.name.toLowerCase()}`)) {
      warn('credential-parameter', `${where}: ${p.in} parameter ${p.name} is the API key of a security scheme; the server sends it, so it is not an argument`);
      continue;
    }
    pmap.set(`${p.in}:${p.name}`, p);
  }
  for (const m of o.path.matchAll(/\{([^}]+)\}/g)) {
    if (!pmap.has(`path:${m[1]}`)) {
      warn('missing-path-param', `${where}: path parameter {${m[1]}} is not declared; added as a string`);
      pmap.set(`path:${m[1]}`, { name: m[1], in: 'path', required: true, schema: { type: 'string' } });
    }
  }
  const plist = [...pmap.values()].sort((a, b) => LOC_ORDER.indexOf(a.in) - LOC_ORDER.indexOf(b.in));

  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const params: ParamBinding[] = [];
  for (const p of plist) {
    const loc = p.in as ParamLocation;
    let schema = p.schema;
    if (!schema && isObj(p.content)) {
      const first = Object.values(p.content)[0] as any;
      schema = first?.schema;
      warn('param-content', `${where}: parameter ${p.name} uses "content"; its value is sent as given`);
    }
    const arg = args.take(p.name, loc);
    const s: JsonSchema = { ...convertWithBudget(conv, schema ?? { type: 'string' }, 'input', `${where} ${loc}:${p.name}`, warn) };
    // A required list sent empty serialises to nothing, and the upstream says the parameter is missing.
    if (req0(loc, p) && admitsArray(s) && s.minItems === undefined) s.minItems = 1;
    const d = [typeof p.description === 'string' ? p.description : '', p.deprecated ? 'Deprecated.' : ''].filter(Boolean).join(' ');
    if (d) s.description = trimText(d, INPUT_DESC);
    properties[arg] = s;
    const req = req0(loc, p);
    if (req) required.push(arg);
    const style: ParamStyle = STYLES.has(p.style) ? (p.style as ParamStyle) : loc === 'query' || loc === 'cookie' ? 'form' : 'simple';
    const explode = typeof p.explode === 'boolean' ? p.explode : style === 'form';
    const b: ParamBinding = { arg, name: p.name, in: loc, style, explode, required: req };
    if (p.allowReserved === true) b.allowReserved = true;
    params.push(b);
  }
  return { properties, required, params };
}
