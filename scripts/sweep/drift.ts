// The drift layer: an HTTP proxy in front of the upstream (Prism or a real API) that makes JSON
// responses look like a live API that has moved on from its spec (docs/sweep.md lists each kind):
//   - extras: every JSON object, at every level, gets undeclared fields (a scalar and a nested object); a typed map
//     (additionalProperties: {…}) instead gets two new keys, one valued as declared and one of another type;
//   - nulls (every other response, so the non-null shape of nested objects is exercised too): fields the spec
//     declares nullable are sent as null, and so is one field per object that the spec does not mark nullable;
//   - values: enum fields carry a member the spec does not list, and every other numeric field is sent as a string.
// It needs the spec (OpenAPI 3.x, as loaded by scripts/catalog/spec-loader.ts) to find each response's schema.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isObj } from '../lib/is-object.ts';
import { generateValue } from './args.ts';
import { fieldInfo, otherTypeValue, shapeOf, unknownEnumValue } from './drift-shape.ts';
import { SpecIndex, type Carries } from './spec-index.ts';

export { SpecIndex };

type Schema = Record<string, any>;

export const DRIFT_SCALAR = '_drift_note';
export const DRIFT_OBJECT = '_drift_meta';
/** New keys of a typed map: one whose value follows the declared value schema, one of another type. */
export const DRIFT_MAP_TYPED = '_drift_map_typed';
export const DRIFT_MAP_OTHER = '_drift_map_other';

interface DriftOptions {
  /** Set nullable fields to null, and one non-nullable field per object. */
  nulls: boolean;
  /** Add undeclared fields and map keys. */
  extras: boolean;
  /** Unknown enum members, numbers sent as strings. */
  values: boolean;
}

export interface DriftStats {
  requests: number;
  jsonResponses: number;
  matched: number;
  extrasAdded: number;
  /** Nullable fields sent as null. */
  nullsSet: number;
  /** Fields the spec does not mark nullable, sent as null. */
  strictNulls: number;
  /** New keys in typed maps (both kinds). */
  mapEntries: number;
  unknownEnums: number;
  numbersAsStrings: number;
}

export const emptyDriftStats = (): DriftStats => ({
  requests: 0,
  jsonResponses: 0,
  matched: 0,
  extrasAdded: 0,
  nullsSet: 0,
  strictNulls: 0,
  mapEntries: 0,
  unknownEnums: 0,
  numbersAsStrings: 0,
});

/** Mutates `value` in place and counts what it changed. */
export function drift(idx: SpecIndex, value: unknown, schema: Schema | undefined, opts: Partial<DriftOptions>, stats: DriftStats, depth = 0): unknown {
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
  const fields = [...shape.props].filter(([, ps]) => ps.length).map(([key, ps]) => ({ key, info: fieldInfo(idx, ps) }));
  if (opts.values) {
    let numeric = 0;
    for (const { key, info } of fields) {
      const v = value[key];
      const unknown = info.enum && v !== null && typeof v !== 'object' ? unknownEnumValue(info.enum) : undefined;
      if (unknown !== undefined) {
        value[key] = unknown;
        stats.unknownEnums++;
      } else if (typeof v === 'number' && (info.types.has('integer') || info.types.has('number')) && numeric++ % 2 === 0) {
        value[key] = String(v);
        stats.numbersAsStrings++;
      }
    }
  }
  if (opts.nulls) {
    let strict = false;
    for (const { key, info } of fields) {
      if (value[key] === null) continue;
      if (info.nullable) {
        value[key] = null;
        stats.nullsSet++;
      } else if (!strict && key in value && typeof value[key] !== 'object') {
        // One non-nullable scalar per object, so the object's other fields (and nested drift) still arrive.
        value[key] = null;
        stats.strictNulls++;
        strict = true;
      }
    }
  }
  if (opts.extras && shape.mapValues) {
    // A typed map: a new key whose value follows the declared schema, and one whose value does not.
    const typed = generateValue(shape.mapValues, idx.doc, depth);
    value[DRIFT_MAP_TYPED] = typed;
    value[DRIFT_MAP_OTHER] = otherTypeValue(typed);
    stats.mapEntries += 2;
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
      const url = new URL(req.url ?? '/', 'http://x');
      const method = req.method ?? 'GET';
      const r = idx.successResponse(method, url.pathname, carriesOf(url, req));
      if (!r) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'no such operation in the spec' }));
        return;
      }
      if (!r.json && r.mediaType && r.status >= 200 && r.status < 300 && r.status !== 204 && r.status !== 205 && method !== 'HEAD') {
        // A non-JSON success: a small body of that media type (text for text/*, bytes otherwise).
        const text = r.mediaType.toLowerCase().startsWith('text/');
        const body = text ? (r.mediaType.includes('csv') ? 'id,name\n1,sweep\n' : 'sweep text body\n') : Buffer.from([0x25, 0x50, 0x44, 0x46, 0x2d, 0x00, 0xff, 0x10]);
        res.writeHead(r.status, { 'content-type': r.mediaType }).end(body);
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

/** The request's query parameter and header names, for routing path keys with a query part (spec-index.ts). */
function carriesOf(url: URL, req: IncomingMessage): Carries {
  const query = new Map<string, string[]>();
  for (const [k, v] of url.searchParams) query.set(k.toLowerCase(), [...(query.get(k.toLowerCase()) ?? []), v]);
  return (name, value) => {
    const header = req.headers[name];
    const values = [...(query.get(name) ?? []), ...(header === undefined ? [] : [header].flat())];
    return values.length > 0 && (value === undefined || values.includes(value));
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
  const stats = emptyDriftStats();
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
        const schema = idx.responseSchema(method, target.pathname.slice(prefix.length) || '/', upstreamRes.status, ct, carriesOf(target, req));
        if (schema) stats.matched++;
        const mode: DriftOptions = { extras: opts.extras ?? true, nulls: (opts.nulls ?? true) && n % 2 === 1, values: opts.values ?? true };
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
