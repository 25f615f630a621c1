// The drift layer: an HTTP proxy in front of the upstream (Prism or a real API) that makes JSON
// responses look like a live API that has moved on from its spec:
//   - every JSON object, at every level, gets undeclared fields (a scalar and a nested object);
//   - fields the spec declares nullable are sent as null (every other response, so the non-null
//     shape of nested objects is exercised too).
// It needs the spec (OpenAPI 3.x, as loaded by scripts/catalog/spec-loader.ts) to find each response's schema.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isObj } from '../lib/is-object.ts';
import { generateValue } from './args.ts';

type Schema = Record<string, any>;

export const DRIFT_SCALAR = '_drift_note';
export const DRIFT_OBJECT = '_drift_meta';

interface DriftOptions {
  /** Set nullable fields to null. */
  nulls: boolean;
  /** Add undeclared fields. */
  extras: boolean;
}

export interface DriftStats {
  requests: number;
  jsonResponses: number;
  matched: number;
  extrasAdded: number;
  nullsSet: number;
}

interface Route {
  method: string;
  re: RegExp;
  params: number;
  op: Schema;
}

export class SpecIndex {
  readonly doc: Schema;
  private routes: Route[] = [];
  constructor(doc: Schema) {
    this.doc = doc;
    for (const [path, item] of Object.entries<Schema>(doc.paths ?? {})) {
      if (!isObj(item)) continue;
      const src = path
        .split(/(\{[^}]+\})/)
        .map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('');
      const re = new RegExp(`^${src}/?$`);
      const params = (path.match(/\{/g) ?? []).length;
      for (const m of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']) {
        if (isObj(item[m])) this.routes.push({ method: m.toUpperCase(), re, params, op: item[m] });
      }
    }
    // Literal segments win over templated ones, as in every router.
    this.routes.sort((a, b) => a.params - b.params);
  }

  /** The first success response of `method path` (status and JSON schema), for the built-in mock. */
  successResponse(method: string, path: string): { status: number; schema?: Schema; json: boolean } | undefined {
    const route = this.routes.find((r) => r.method === method && r.re.test(path));
    if (!route) return undefined;
    const responses = route.op.responses ?? {};
    const code = Object.keys(responses).filter((k) => /^2(\d\d|XX)$/i.test(k)).sort()[0] ?? (responses.default ? 'default' : undefined);
    if (!code) return { status: 400, json: false };
    const status = /^\d+$/.test(code) ? Number(code) : 200;
    const content = this.deref(responses[code])?.content;
    if (!isObj(content)) return { status, json: false };
    const entry = Object.entries<Schema>(content).find(([k]) => /json|\*\/\*/i.test(k))?.[1];
    return isObj(entry?.schema) ? { status, schema: entry.schema, json: true } : { status, json: false };
  }

  /** The JSON schema of the response to `method path` with `status` (path without query). */
  responseSchema(method: string, path: string, status: number, contentType: string | null): Schema | undefined {
    const route = this.routes.find((r) => r.method === method && r.re.test(path));
    if (!route) return undefined;
    const responses = route.op.responses ?? {};
    const resp = this.deref(responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default);
    const content = resp?.content;
    if (!isObj(content)) return undefined;
    const mt = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    const entry = content[mt] ?? Object.entries<Schema>(content).find(([k]) => /json|\*\/\*/.test(k))?.[1];
    return isObj(entry?.schema) ? entry.schema : undefined;
  }

  deref(s: unknown, depth = 0): Schema | undefined {
    if (!isObj(s)) return undefined;
    if (typeof s.$ref === 'string' && s.$ref.startsWith('#/') && depth < 30) {
      const target = s.$ref
        .slice(2)
        .split('/')
        .reduce<any>((o, k) => (o == null ? o : o[decodeURIComponent(k).replace(/~1/g, '/').replace(/~0/g, '~')]), this.doc);
      const { $ref: _r, ...rest } = s;
      const t = this.deref(target, depth + 1) ?? {};
      return Object.keys(rest).length ? { ...t, ...rest } : t;
    }
    return s;
  }
}

interface Shape {
  props: Map<string, Schema[]>;
  required: Set<string>;
  /** A map-like object (additionalProperties is a schema): values follow it, no drift fields. */
  mapValues?: Schema;
  items: Schema[];
}

/** Everything a value may be, flattened over $ref / allOf / anyOf / oneOf (a few levels). */
function shapeOf(idx: SpecIndex, schemas: Schema[]): Shape {
  const shape: Shape = { props: new Map(), required: new Set(), items: [] };
  const visit = (raw: unknown, depth: number, viaAllOf: boolean) => {
    const s = idx.deref(raw);
    if (!s || depth > 6) return;
    if (isObj(s.properties)) {
      for (const [k, v] of Object.entries(s.properties)) {
        if (!shape.props.has(k)) shape.props.set(k, []);
        if (isObj(v)) shape.props.get(k)!.push(v);
      }
    }
    if (Array.isArray(s.required) && (viaAllOf || depth === 0)) for (const r of s.required) shape.required.add(r);
    if (isObj(s.additionalProperties) && Object.keys(s.additionalProperties).length && !shape.mapValues) shape.mapValues = s.additionalProperties;
    if (isObj(s.items)) shape.items.push(s.items);
    for (const part of s.allOf ?? []) visit(part, depth + 1, true);
    for (const part of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) visit(part, depth + 1, false);
  };
  for (const s of schemas) visit(s, 0, true);
  return shape;
}

function isNullable(idx: SpecIndex, raw: unknown, depth = 0): boolean {
  const s = idx.deref(raw);
  if (!s || depth > 5) return false;
  if (s.nullable === true || s['x-nullable'] === true || s.type === 'null') return true;
  if (Array.isArray(s.type) && s.type.includes('null')) return true;
  if (Array.isArray(s.enum) && s.enum.includes(null)) return true;
  for (const part of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) if (isNullable(idx, part, depth + 1)) return true;
  return false;
}

/** Mutates `value` in place; returns counts. */
export function drift(idx: SpecIndex, value: unknown, schema: Schema | undefined, opts: DriftOptions, stats: DriftStats, depth = 0): unknown {
  if (depth > 40) return value;
  const schemas = schema ? [schema] : [];
  if (Array.isArray(value)) {
    const shape = shapeOf(idx, schemas);
    for (let i = 0; i < value.length; i++) value[i] = drift(idx, value[i], shape.items[0], opts, stats, depth + 1);
    return value;
  }
  if (!isObj(value)) return value;
  const shape = shapeOf(idx, schemas);
  for (const key of Object.keys(value)) {
    const ps = shape.props.get(key)?.[0] ?? (shape.props.has(key) ? undefined : shape.mapValues);
    value[key] = drift(idx, value[key], ps, opts, stats, depth + 1);
  }
  if (opts.nulls) {
    for (const [key, ps] of shape.props) {
      if (ps.length && ps.some((p) => isNullable(idx, p)) && value[key] !== null) {
        value[key] = null;
        stats.nullsSet++;
      }
    }
  }
  if (opts.extras && shape.mapValues) {
    // additionalProperties is a schema: the undeclared field must follow it, as the spec allows.
    value[DRIFT_SCALAR] = generateValue(shape.mapValues, idx.doc, depth);
    stats.extrasAdded++;
  } else if (opts.extras) {
    value[DRIFT_SCALAR] = `undeclared field added by the sweep at depth ${depth}`;
    value[DRIFT_OBJECT] = { level: depth, tags: ['drift'], nested: { flag: true } };
    stats.extrasAdded += 2;
  }
  return value;
}

/**
 * A spec-driven mock for specs Prism cannot load in time (Stripe's 65-schema $ref cycle keeps it busy for
 * minutes): answers each operation with its first success response, generated from the response schema
 * (scripts/sweep/args.ts; deep and cyclic structures cut to required properties). No request validation.
 */
export async function startBuiltinMock(idx: SpecIndex): Promise<{ url: string; close(): Promise<void> }> {
  let n = 0;
  const server = createServer((req, res) => {
    void (async () => {
      for await (const _ of req) {
        /* drain */
      }
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const method = req.method ?? 'GET';
      const r = idx.successResponse(method, path);
      if (!r) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'no such operation in the spec' }));
        return;
      }
      if (!r.json || !r.schema || r.status === 204) {
        res.writeHead(r.status === 204 || !r.json ? (r.status >= 200 && r.status < 300 ? 204 : r.status) : r.status).end();
        return;
      }
      const body = JSON.stringify(generateValue(r.schema, idx.doc, n++ % 2 === 0 ? 1 : 2, 3));
      res.writeHead(r.status, { 'content-type': 'application/json' }).end(body);
    })().catch((e) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(e));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections?.();
        server.close(() => r());
      }),
  };
}

export interface DriftProxy {
  url: string;
  stats: DriftStats;
  close(): Promise<void>;
}

/** Starts the proxy on 127.0.0.1:<free port>, forwarding to `upstream` (base URL, path prefix kept). */
export async function startDriftProxy(upstream: string, idx: SpecIndex, opts: Partial<DriftOptions> = {}): Promise<DriftProxy> {
  const base = new URL(upstream);
  const prefix = base.pathname.replace(/\/+$/, '');
  const stats: DriftStats = { requests: 0, jsonResponses: 0, matched: 0, extrasAdded: 0, nullsSet: 0 };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`drift proxy: ${(err as Error).message}`);
    });
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const n = stats.requests++;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const target = new URL(prefix + (req.url ?? '/'), base.origin);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined || ['host', 'connection', 'content-length', 'transfer-encoding', 'accept-encoding'].includes(k)) continue;
      headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    }
    const method = req.method ?? 'GET';
    const upstreamRes = await fetch(target, {
      method,
      headers,
      redirect: 'manual',
      ...(body && method !== 'GET' && method !== 'HEAD' ? { body } : {}),
    });
    let out = Buffer.from(await upstreamRes.arrayBuffer());
    const outHeaders: Record<string, string> = {};
    upstreamRes.headers.forEach((v, k) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k)) outHeaders[k] = v;
    });
    const ct = upstreamRes.headers.get('content-type');
    if (ct && /json/i.test(ct) && out.length) {
      try {
        const data = JSON.parse(out.toString('utf8'));
        stats.jsonResponses++;
        const schema = idx.responseSchema(method, target.pathname.slice(prefix.length) || '/', upstreamRes.status, ct);
        if (schema) stats.matched++;
        const mode: DriftOptions = { extras: opts.extras ?? true, nulls: (opts.nulls ?? true) && n % 2 === 1 };
        out = Buffer.from(JSON.stringify(drift(idx, data, schema, mode, stats)));
      } catch {
        /* not JSON after all: pass it through */
      }
    }
    outHeaders['content-length'] = String(out.length);
    res.writeHead(upstreamRes.status, upstreamRes.statusText, outHeaders);
    res.end(method === 'HEAD' ? undefined : out);
  }
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections?.();
        server.close(() => r());
      }),
  };
}
