// The request body binding. Media type by preference: JSON (not `*/*`), form-urlencoded, multipart, octet-stream,
// then the first listed. An object body (through $ref and allOf) is merged into the arguments; anything else goes
// under one `body` argument. Binary bodies and multipart files travel as base64.
import type { BodyBinding, JsonSchema, ParamStyle } from '../../src/catalogue/types.ts';
import { baseMediaType } from '../../src/lib/media-type.ts';
import { isObj } from '../lib/is-object.ts';
import type { ArgNames } from './arg-names.ts';
import { isJsonOrJsonWildcard } from './json-media-type.ts';
import type { Operation } from './operations.ts';
import { STYLES } from './parameters.ts';
import { derefReported } from './dangling-refs.ts';
import { convertWithBudget, INPUT_DESC } from './schema-budget.ts';
import type { SchemaConverter, Warn } from './schema-converter.ts';
import { trimText } from './trim-text.ts';
import { admittedTypes } from './type-conflict.ts';

// Padded standard base64, so every schema-valid value is one the worker can decode
// (contentEncoding alone is only an annotation; validators do not check it).
const BASE64_STRING = {
  type: 'string',
  contentEncoding: 'base64',
  pattern: '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$',
} as const;


interface BodyInputs {
  properties: Record<string, JsonSchema>;
  required: string[];
  body?: BodyBinding;
}

export function requestBodyBinding(conv: SchemaConverter, o: Operation, args: ArgNames, warn: Warn): BodyInputs {
  const where = o.key;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const rb = derefReported(conv, o.op.requestBody, where, 'the request body is lost (the tool takes no body)');
  if (!isObj(rb) || !isObj(rb.content) || !Object.keys(rb.content).length) return { properties, required };

  const mts = Object.keys(rb.content);
  const pick =
    mts.find((m) => isJsonOrJsonWildcard(m) && baseMediaType(m) !== '*/*') ??
    mts.find((m) => baseMediaType(m) === 'application/x-www-form-urlencoded') ??
    mts.find((m) => baseMediaType(m) === 'multipart/form-data') ??
    mts.find((m) => baseMediaType(m) === 'application/octet-stream') ??
    mts[0]!;
  const media = derefReported(conv, rb.content[pick], `${where} request body ${pick}`, 'its schema is lost (the body is taken as any value)') ?? {};
  const bodyRequired = rb.required === true;
  const kind = baseMediaType(pick);
  const isForm = kind === 'application/x-www-form-urlencoded' || kind.startsWith('multipart/');
  const isJson = isJsonOrJsonWildcard(pick);
  const schema = media.schema;
  const flat = isJson || isForm ? flattenObject(conv, schema) : undefined;
  let body: BodyBinding;
  if (flat) {
    const props: Record<string, string> = {};
    const fileFields: string[] = [];
    for (const [pn, ps] of flat.props) {
      if (conv.flag(ps, 'readOnly')) continue;
      const arg = args.take(pn, 'body');
      props[arg] = pn;
      let s: JsonSchema;
      if (kind.startsWith('multipart/') && conv.isBinary(ps)) {
        fileFields.push(pn);
        const r = conv.deref(ps);
        s = {
          type: 'object',
          properties: {
            data: { ...BASE64_STRING, description: 'File content, base64-encoded.' },
            filename: { type: 'string' },
            contentType: { type: 'string', description: 'Media type of the file, e.g. image/png.' },
          },
          required: ['data'],
        };
        if (typeof r.description === 'string') s.description = trimText(r.description, INPUT_DESC);
      } else {
        s = convertWithBudget(conv, ps, 'input', `${where} body.${pn}`, warn);
      }
      properties[arg] = s;
      if (bodyRequired && flat.required.has(pn)) required.push(arg);
    }
    body = { mediaType: pick, required: bodyRequired, mode: 'merged', props };
    if (fileFields.length) body.fileFields = fileFields;
  } else {
    const arg = args.take('body', 'request');
    let s: JsonSchema;
    let binary = false;
    if (isJson || isForm) {
      s = { ...convertWithBudget(conv, schema ?? {}, 'input', `${where} body`, warn) };
      // A form is a set of fields, and the worker encodes only an object; a schema that does not say so
      // (`schema: {}`, a scalar type) would let the model send a value every call refuses.
      if (isForm && !admittedTypes(s)?.has('object')) {
        if (s.type !== undefined || s.anyOf !== undefined || s.allOf !== undefined) warn('form-body-object', `${where}: a ${kind} body that is not an object schema is sent as an object of fields`);
        s = { type: 'object', ...(typeof s.description === 'string' ? { description: s.description } : {}) };
      }
    } else if (kind.startsWith('text/') && !conv.isBinary(schema)) {
      s = { type: 'string' };
    } else {
      binary = true;
      s = { ...BASE64_STRING, description: `Request body (${pick}), base64-encoded.` };
    }
    const rd = typeof rb.description === 'string' ? rb.description : '';
    if (rd && !binary) s.description = trimText(rd, INPUT_DESC);
    properties[arg] = s;
    if (bodyRequired) required.push(arg);
    body = { mediaType: pick, required: bodyRequired, mode: 'wrapped', arg };
    if (binary) body.binary = true;
  }
  if (isForm && isObj(media.encoding)) {
    const enc: NonNullable<BodyBinding['encoding']> = {};
    for (const [k, e] of Object.entries(media.encoding).sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (!isObj(e)) continue;
      const x: { style?: ParamStyle; explode?: boolean; contentType?: string } = {};
      if (STYLES.has(e.style)) x.style = e.style as ParamStyle;
      if (typeof e.explode === 'boolean') x.explode = e.explode;
      if (typeof e.contentType === 'string') x.contentType = e.contentType;
      if (Object.keys(x).length) enc[k] = x;
    }
    if (Object.keys(enc).length) body.encoding = enc;
  }
  return { properties, required, body };
}

/** Properties of an object body (following $ref and allOf). Undefined when the body is not a plain object with properties. */
function flattenObject(conv: SchemaConverter, schema: unknown, guard = 0): { props: [string, unknown][]; required: Set<string> } | undefined {
  const s = conv.deref(schema);
  if (!isObj(s) || guard > 20) return undefined;
  if ((Array.isArray(s.oneOf) && s.oneOf.length) || (Array.isArray(s.anyOf) && s.anyOf.length)) return undefined;
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.some((t: string) => t !== 'object')) return undefined;
  const props = new Map<string, unknown>();
  const required = new Set<string>();
  if (Array.isArray(s.allOf)) {
    for (const m of s.allOf) {
      const f = flattenObject(conv, m, guard + 1);
      if (!f) return undefined;
      for (const [k, v] of f.props) props.set(k, v);
      for (const r of f.required) required.add(r);
    }
  }
  if (isObj(s.properties)) for (const [k, v] of Object.entries(s.properties)) props.set(k, v);
  if (Array.isArray(s.required)) for (const r of s.required) if (typeof r === 'string') required.add(r);
  if (props.size === 0) return undefined;
  return { props: [...props.entries()], required };
}
