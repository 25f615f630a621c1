// The operations of an OpenAPI 3.x document by method and concrete path, for the sweep's mock and drift layer:
// which success response an operation has, and which schema describes the response to a given request.
import { isObj } from '../lib/is-object.ts';

type Schema = Record<string, any>;

interface Route {
  method: string;
  re: RegExp;
  params: number;
  /** Names in the path key's query part (`/{Bucket}#cors`, `/rest?method=x`): the request's query or headers carry them. */
  flags: { name: string; value?: string }[];
  op: Schema;
}

/** Whether the request carries a query parameter or header of that name (lower case), with that value when given. */
export type Carries = (name: string, value?: string) => boolean;

export class SpecIndex {
  readonly doc: Schema;
  private routes: Route[] = [];
  constructor(doc: Schema) {
    this.doc = doc;
    for (const [path, item] of Object.entries<Schema>(doc.paths ?? {})) {
      if (!isObj(item)) continue;
      const cut = path.search(/[?#]/);
      const flags = (cut < 0 ? [] : path.slice(cut + 1).split('&').filter(Boolean)).map((t) => {
        const eq = t.indexOf('=');
        return eq < 0 ? { name: t.toLowerCase() } : { name: t.slice(0, eq).toLowerCase(), value: t.slice(eq + 1) };
      });
      const src = (cut < 0 ? path : path.slice(0, cut))
        .split(/(\{[^}]+\})/)
        .map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('');
      const re = new RegExp(`^${src}/?$`);
      const params = (path.match(/\{/g) ?? []).length;
      for (const m of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']) {
        if (isObj(item[m])) this.routes.push({ method: m.toUpperCase(), re, params, flags, op: item[m] });
      }
    }
    // Literal segments win over templated ones, as in every router.
    this.routes.sort((a, b) => a.params - b.params);
  }

  /** The route of a request: among those whose path matches, the one with the most query-part names the request carries. */
  private route(method: string, path: string, carries: Carries = () => false): Route | undefined {
    const candidates = this.routes.filter((r) => r.method === method && r.re.test(path));
    let best: Route | undefined;
    for (const r of candidates) if (r.flags.every((f) => carries(f.name, f.value)) && (!best || r.flags.length > best.flags.length)) best = r;
    return best ?? candidates[0];
  }

  /** The first success response of `method path` (status and JSON schema), for the built-in mock. */
  successResponse(method: string, path: string, carries?: Carries): { status: number; schema?: Schema; json: boolean; mediaType?: string } | undefined {
    const route = this.route(method, path, carries);
    if (!route) return undefined;
    const responses = route.op.responses ?? {};
    const code = Object.keys(responses).filter((k) => /^2(\d\d|XX)$/i.test(k)).sort()[0] ?? (responses.default ? 'default' : undefined);
    if (!code) return { status: 400, json: false };
    const status = /^\d+$/.test(code) ? Number(code) : 200;
    const content = this.deref(responses[code])?.content;
    if (!isObj(content)) return { status, json: false };
    const entry = Object.entries<Schema>(content).find(([k]) => /json|\*\/\*/i.test(k))?.[1];
    if (isObj(entry?.schema)) return { status, schema: entry.schema, json: true };
    // No JSON: the first declared media type (text/csv, application/pdf…), so the mock can answer with such a body.
    const other = Object.keys(content).find((k) => !/json|\*\/\*/i.test(k));
    return other ? { status, json: false, mediaType: other } : { status, json: false };
  }

  /**
   * Whether the first success response of `method path` carries an example of its own (OpenAPI 3 `example` or
   * `examples` on a media type, Swagger 2.0 `examples` on the response); undefined when no operation matches.
   */
  hasSuccessExample(method: string, path: string, carries?: Carries): boolean | undefined {
    const route = this.route(method, path, carries);
    if (!route) return undefined;
    const responses = route.op.responses ?? {};
    const code = Object.keys(responses).filter((k) => /^2(\d\d|XX)$/i.test(k)).sort()[0] ?? (responses.default ? 'default' : undefined);
    const resp = code ? this.deref(responses[code]) : undefined;
    if (!resp) return false;
    if (isObj(resp.examples) && Object.keys(resp.examples).length) return true;
    return Object.values<Schema>(isObj(resp.content) ? resp.content : {}).some(
      (media) => isObj(media) && (media.example !== undefined || (isObj(media.examples) && Object.keys(media.examples).length > 0)),
    );
  }

  /** The JSON schema of the response to `method path` with `status` (path without query). */
  responseSchema(method: string, path: string, status: number, contentType: string | null, carries?: Carries): Schema | undefined {
    const route = this.route(method, path, carries);
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
