// Arguments + HttpBinding -> one exact HTTP request.
// Every value is encoded so that it can only ever fill its own slot: a path value cannot add a
// segment, a query value cannot add a parameter, a header value cannot add a header.
import type { BodyBinding, CatalogueTool, ParamBinding } from '../catalogue/types.ts';
import { Base64Error, base64ToBytes } from '../lib/bytes.ts';
import { baseMediaType, isJsonMediaType, isTextMediaType } from '../lib/media-type.ts';
import { acceptHeader } from './accept.ts';
import { encodeAllowReserved, encodeQueryKey, encodeStrict, isPlainObject, primitiveToString } from './encoding.ts';

/** The arguments cannot be turned into a request; the message is meant for the model. */
export class ArgumentError extends Error {}

export interface BuiltRequest {
  method: string;
  /** Absolute URL: base URL + encoded path + query. */
  url: string;
  /** The encoded path after the template was filled (no query), relative to the base URL. */
  path: string;
  headers: Headers;
  body?: BodyInit;
}

interface RequestOptions {
  upstreamUrl: string;
  userAgent?: string;
}

const DEFAULT_USER_AGENT = 'mcp-catalogue/0.1 (MCP tool gateway; +https://modelcontextprotocol.io)';

// Header parameters the spec says to ignore, plus ones fetch or this module owns.
const RESERVED_HEADERS = new Set([
  'accept', 'content-type', 'authorization', 'host', 'content-length', 'transfer-encoding', 'connection',
  'cookie', 'user-agent', 'te', 'trailer', 'upgrade', 'keep-alive', 'proxy-authorization', 'expect',
]);

export function buildRequest(tool: CatalogueTool, args: Record<string, unknown>, opts: RequestOptions): BuiltRequest {
  const b = tool.http;
  const consumed = new Set<string>();
  const get = (p: ParamBinding): unknown => {
    consumed.add(p.arg);
    const v = args[p.arg];
    if (v === undefined && p.required) throw new ArgumentError(`missing required ${p.in} parameter '${p.arg}'`);
    return v;
  };

  // Path.
  const pathParams = new Map(b.params.filter((p) => p.in === 'path').map((p) => [p.name, p]));
  const filled = b.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const p = pathParams.get(name);
    if (!p) throw new ArgumentError(`the path template has {${name}} but no parameter binds it`);
    const v = get({ ...p, required: true });
    return serializePath(p, v);
  });
  // A template with a query part (`/rest?method=x`, or AWS's `/{Bucket}#cors`: a fragment in a path key stands for
  // the query that tells operations apart) sends that part as query: a fragment would never reach the upstream, and a
  // second `?` would corrupt the arguments' query.
  const cut = filled.search(/[?#]/);
  const path = cut < 0 ? filled : filled.slice(0, cut);
  checkDotSegments(path, b.path.split(/[?#]/, 1)[0]!);

  // Query: the template's own part first, without the names a declared parameter sends.
  const query: string[] = cut < 0 ? [] : templateQuery(filled.slice(cut + 1), b.params);
  for (const p of b.params) {
    if (p.in !== 'query') continue;
    const v = get(p);
    if (v === undefined) continue;
    query.push(...serializeQuery(p, v));
  }

  // Headers and cookies.
  const headers = new Headers();
  const cookies: string[] = [];
  for (const p of b.params) {
    if (p.in === 'header') {
      const v = get(p);
      if (v === undefined) continue;
      const value = serializeSimple(v, p.explode, (s) => s);
      if (/[\r\n\0]/.test(value)) throw new ArgumentError(`header parameter '${p.arg}' must not contain CR, LF or NUL characters`);
      if (RESERVED_HEADERS.has(p.name.toLowerCase())) continue;
      try {
        headers.set(p.name, value);
      } catch {
        throw new ArgumentError(`header parameter '${p.arg}' has a value that is not allowed in an HTTP header (use ASCII text)`);
      }
    } else if (p.in === 'cookie') {
      const v = get(p);
      if (v === undefined) continue;
      cookies.push(serializeCookie(p, v));
    }
  }
  if (cookies.length) headers.set('cookie', cookies.join('; '));
  headers.set('accept', acceptHeader(b.accept));
  headers.set('user-agent', opts.userAgent ?? DEFAULT_USER_AGENT);

  // Body.
  let body: BodyInit | undefined;
  if (b.body && b.method !== 'HEAD') {
    const built = buildBody(b.body, args, consumed);
    if (built) {
      body = built.body;
      if (built.contentType) headers.set('content-type', built.contentType);
    }
  }

  const base = opts.upstreamUrl.replace(/\/+$/, '');
  const rel = path.startsWith('/') ? path : `/${path}`;
  const url = base + rel + (query.length ? `?${query.join('&')}` : '');
  return { method: b.method, url, path: rel, headers, ...(body !== undefined ? { body } : {}) };
}

// ---------- path ----------

function templateQuery(part: string, params: ParamBinding[]): string[] {
  // A query, header or cookie parameter of that name carries it already (AWS: `#uploadId` beside the `uploadId` query
  // parameter, `#X-Amz-Target=…` beside the header); a path parameter may fill a value (`?filename={filename}`).
  const declared = new Set(params.filter((p) => p.in !== 'path').map((p) => p.name.toLowerCase()));
  return part
    .split('&')
    .filter((t) => t !== '' && !declared.has(decodeSafe(t.split('=', 1)[0]!).toLowerCase()))
    .map((t) => t.replace(/[^A-Za-z0-9\-._~%=!$'()*+,;:@/?]/g, (c) => encodeURIComponent(c)));
}

function serializePath(p: ParamBinding, v: unknown): string {
  if (v === null || v === '' || (Array.isArray(v) && v.length === 0)) {
    throw new ArgumentError(`path parameter '${p.arg}' must not be empty`);
  }
  const enc = encodeStrict;
  switch (p.style) {
    case 'label': {
      if (Array.isArray(v)) return '.' + v.map((x) => enc(primitiveToString(x))).join(p.explode ? '.' : ',');
      if (isPlainObject(v)) return '.' + objectPairs(v, enc, p.explode).join(p.explode ? '.' : ',');
      return '.' + enc(primitiveToString(v));
    }
    case 'matrix': {
      const n = encodeStrict(p.name);
      if (Array.isArray(v)) {
        return p.explode
          ? v.map((x) => `;${n}=${enc(primitiveToString(x))}`).join('')
          : `;${n}=${v.map((x) => enc(primitiveToString(x))).join(',')}`;
      }
      if (isPlainObject(v)) return p.explode ? ';' + objectPairs(v, enc, true).join(';') : `;${n}=${objectPairs(v, enc, false).join(',')}`;
      return `;${n}=${enc(primitiveToString(v))}`;
    }
    default:
      return serializeSimple(v, p.explode, enc);
  }
}

/** simple style: a,b,c / k,v,k,v / k=v,k=v (explode). */
function serializeSimple(v: unknown, explode: boolean, enc: (s: string) => string): string {
  if (Array.isArray(v)) return v.map((x) => enc(primitiveToString(x))).join(',');
  if (isPlainObject(v)) return objectPairs(v, enc, explode).join(',');
  return enc(primitiveToString(v));
}

function objectPairs(v: Record<string, unknown>, enc: (s: string) => string, explode: boolean): string[] {
  const out: string[] = [];
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined) continue;
    if (explode) out.push(`${enc(k)}=${enc(primitiveToString(x))}`);
    else out.push(enc(k), enc(primitiveToString(x)));
  }
  return out;
}

// WHATWG URL parsing (and so fetch) collapses ".", "..", "%2e" and "%2e%2e" segments, so encoding
// the dots is not enough: a filled segment that is a dot segment is refused outright.
function checkDotSegments(filled: string, template: string): void {
  const isDot = (s: string) => /^(?:\.|%2e){1,2}$/i.test(s);
  const tmplSegs = template.split('/');
  const segs = filled.split('/');
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i] ?? '';
    if (isDot(seg) && !isDot(tmplSegs[i] ?? '')) {
      throw new ArgumentError(`a path parameter value may not be '.' or '..' (it would change the path); got segment '${decodeSafe(seg)}'`);
    }
  }
}

/** A percent-encoded name as the upstream reads it (left as it is when it is not valid percent-encoding). */
export function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

// ---------- query ----------

function serializeQuery(p: ParamBinding, v: unknown): string[] {
  const key = encodeQueryKey(p.name);
  const enc = p.allowReserved ? encodeAllowReserved : encodeStrict;
  if (p.style === 'deepObject') {
    const pairs: Array<[string, string]> = [];
    flattenDeep(key, v, pairs, encodeStrict);
    return pairs.map(([k, x]) => `${k}=${enc(x)}`);
  }
  if (Array.isArray(v)) {
    if (v.length === 0) return [];
    const items = v.map((x) => enc(primitiveToString(x)));
    if (p.explode) return items.map((x) => `${key}=${x}`);
    const sep = p.style === 'spaceDelimited' ? '%20' : p.style === 'pipeDelimited' ? '|' : ',';
    return [`${key}=${items.join(sep)}`];
  }
  if (isPlainObject(v)) {
    if (p.explode) return objectPairs(v, enc, true);
    const sep = p.style === 'spaceDelimited' ? '%20' : p.style === 'pipeDelimited' ? '|' : ',';
    return [`${key}=${objectPairs(v, enc, false).join(sep)}`];
  }
  return [`${key}=${enc(primitiveToString(v))}`];
}

/**
 * deepObject / Rails / Stripe bracket notation:
 *   {a:{b:1}} -> a[b]=1, arrays of primitives -> a[]=x, arrays of objects -> a[0][k]=v.
 * `keyEnc` encodes each bracketed key (identity for URLSearchParams, which encodes itself).
 */
function flattenDeep(prefix: string, v: unknown, out: Array<[string, string]>, keyEnc: (s: string) => string): void {
  if (v === undefined) return;
  if (Array.isArray(v)) {
    const allPrimitive = v.every((x) => !isPlainObject(x) && !Array.isArray(x));
    v.forEach((x, i) => flattenDeep(allPrimitive ? `${prefix}[]` : `${prefix}[${i}]`, x, out, keyEnc));
    return;
  }
  if (isPlainObject(v)) {
    for (const [k, x] of Object.entries(v)) flattenDeep(`${prefix}[${keyEnc(k)}]`, x, out, keyEnc);
    return;
  }
  out.push([prefix, primitiveToString(v)]);
}

// ---------- cookies ----------

function serializeCookie(p: ParamBinding, v: unknown): string {
  const name = p.name;
  if (/[\s;,=\0-\x1f\x7f]/.test(name)) throw new ArgumentError(`cookie parameter '${p.arg}' has an invalid cookie name`);
  if (Array.isArray(v)) return `${name}=${v.map((x) => encodeStrict(primitiveToString(x))).join(',')}`;
  if (isPlainObject(v)) return `${name}=${objectPairs(v, encodeStrict, false).join(',')}`;
  return `${name}=${encodeStrict(primitiveToString(v))}`;
}

// ---------- bodies ----------

function buildBody(
  body: BodyBinding,
  args: Record<string, unknown>,
  consumed: Set<string>,
): { body: BodyInit; contentType?: string } | undefined {
  const mt = baseMediaType(body.mediaType);
  // A concrete Content-Type is required on the wire; wildcards from the spec become octet-stream.
  const contentType = body.mediaType.includes('*') ? 'application/octet-stream' : body.mediaType;

  if (body.mode === 'wrapped') {
    const arg = body.arg ?? 'body';
    const v = args[arg];
    if (v === undefined) {
      if (body.required) throw new ArgumentError(`missing required request body argument '${arg}'`);
      return undefined;
    }
    if (mt === 'application/x-www-form-urlencoded' || mt === 'multipart/form-data') {
      if (!isPlainObject(v)) throw new ArgumentError(`argument '${arg}' must be an object for a ${mt} body`);
      return mt === 'multipart/form-data' ? { body: multipart(v, body, arg) } : { body: formUrlEncoded(v, body), contentType };
    }
    if (isJsonMediaType(mt)) return { body: JSON.stringify(v), contentType };
    const binary = body.binary ?? !isTextMediaType(mt);
    if (binary) {
      if (typeof v !== 'string') throw new ArgumentError(`argument '${arg}' must be a base64 string (the ${mt} request body)`);
      return { body: decodeArg(v, arg), contentType };
    }
    return { body: typeof v === 'string' ? v : JSON.stringify(v), contentType };
  }

  // merged: the body object's properties sit at the input root.
  const props = body.props ?? Object.fromEntries(Object.keys(args).filter((a) => !consumed.has(a)).map((a) => [a, a]));
  const obj: Record<string, unknown> = {};
  let any = false;
  for (const [arg, prop] of Object.entries(props)) {
    if (args[arg] === undefined) continue;
    obj[prop] = args[arg];
    any = true;
  }
  if (!any && !body.required) return undefined;
  if (mt === 'application/x-www-form-urlencoded') return { body: formUrlEncoded(obj, body), contentType };
  if (mt === 'multipart/form-data') return { body: multipart(obj, body) };
  return { body: JSON.stringify(obj), contentType: isJsonMediaType(mt) ? contentType : 'application/json' };
}

function decodeArg(v: string, arg: string): Uint8Array {
  try {
    return base64ToBytes(v);
  } catch (e) {
    if (e instanceof Base64Error) throw new ArgumentError(`argument '${arg}' is not valid base64`);
    throw e;
  }
}

/** application/x-www-form-urlencoded; nested values use bracket notation (Stripe: metadata[k]=v, items[0][price]=p). */
function formUrlEncoded(obj: Record<string, unknown>, body: BodyBinding): string {
  const out = new URLSearchParams();
  for (const [prop, v] of Object.entries(obj)) {
    if (v === undefined) continue;
    const enc = body.encoding?.[prop];
    if (enc?.contentType && isJsonMediaType(enc.contentType)) {
      out.append(prop, JSON.stringify(v));
      continue;
    }
    const style = enc?.style;
    const explode = enc?.explode ?? true;
    if (style === 'deepObject' || (style === undefined && needsBrackets(v))) {
      const pairs: Array<[string, string]> = [];
      flattenDeep(prop, v, pairs, (s) => s);
      for (const [k, x] of pairs) out.append(k, x);
    } else if (Array.isArray(v)) {
      if (explode && style !== 'spaceDelimited' && style !== 'pipeDelimited') for (const x of v) out.append(prop, primitiveToString(x));
      else out.append(prop, v.map(primitiveToString).join(style === 'spaceDelimited' ? ' ' : style === 'pipeDelimited' ? '|' : ','));
    } else if (isPlainObject(v)) {
      if (explode) for (const [k, x] of Object.entries(v)) out.append(k, primitiveToString(x));
      else out.append(prop, Object.entries(v).flatMap(([k, x]) => [k, primitiveToString(x)]).join(','));
    } else {
      out.append(prop, primitiveToString(v));
    }
  }
  return out.toString();
}

function needsBrackets(v: unknown): boolean {
  return isPlainObject(v) || (Array.isArray(v) && v.some((x) => isPlainObject(x) || Array.isArray(x)));
}

function isFileValue(v: unknown): v is { data: string; filename?: string; contentType?: string } {
  return isPlainObject(v) && typeof v.data === 'string';
}

function multipart(obj: Record<string, unknown>, body: BodyBinding, argName?: string): FormData {
  const fd = new FormData();
  const files = new Set(body.fileFields ?? []);
  for (const [prop, v] of Object.entries(obj)) {
    if (v === undefined) continue;
    const encType = body.encoding?.[prop]?.contentType;
    const label = argName ? `${argName}.${prop}` : prop;
    if (files.has(prop) || (isFileValue(v) && encType !== 'application/json')) {
      for (const f of Array.isArray(v) ? v : [v]) {
        let data: string;
        let filename = prop;
        let type = encType && !encType.includes('*') && !encType.includes(',') ? encType : 'application/octet-stream';
        if (typeof f === 'string') data = f;
        else if (isFileValue(f)) {
          data = f.data;
          if (typeof f.filename === 'string' && f.filename) filename = f.filename;
          if (typeof f.contentType === 'string' && f.contentType) type = f.contentType;
        } else throw new ArgumentError(`file field '${label}' must be {data: <base64>, filename?, contentType?}`);
        if (/[\r\n"]/.test(filename)) throw new ArgumentError(`file field '${label}' has a filename with quotes or line breaks`);
        const bytes = decodeArg(data, label);
        fd.append(prop, new Blob([bytes], { type }), filename);
      }
      continue;
    }
    if (Array.isArray(v) && v.every((x) => !isPlainObject(x) && !Array.isArray(x))) {
      for (const x of v) fd.append(prop, primitiveToString(x));
    } else if (isPlainObject(v) || Array.isArray(v)) {
      fd.append(prop, JSON.stringify(v));
    } else {
      fd.append(prop, primitiveToString(v));
    }
  }
  return fd;
}
