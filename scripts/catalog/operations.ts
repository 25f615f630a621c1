// The operations of a spec: every path × method, each with its path-level parameters, in sorted "METHOD path" order
// (the order every later step, naming included, depends on for determinism).
import { isObj } from '../lib/is-object.ts';
import { derefReported } from './dangling-refs.ts';
import type { SchemaConverter } from './schema-converter.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface Operation {
  /** "GET /repos/{owner}/{repo}": unique, and the key of every per-operation map. */
  key: string;
  method: (typeof METHODS)[number];
  path: string;
  op: Record<string, any>;
  pathParams: unknown[];
}


export function collectOperations(doc: any, conv: SchemaConverter): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item0] of Object.entries(doc.paths ?? {})) {
    const item = derefReported(conv, item0, `path ${path}`, 'its operations are lost');
    if (!isObj(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      ops.push({ key: `${method.toUpperCase()} ${path}`, method, path, op, pathParams: Array.isArray(item.parameters) ? item.parameters : [] });
    }
  }
  return ops.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** `servers[0]` with its variables filled from their defaults, resolved against the spec URL, no trailing slash. */
export function serverUrl(doc: any, baseUrl?: string): string {
  const s = Array.isArray(doc.servers) ? doc.servers[0] : undefined;
  if (!isObj(s) || typeof s.url !== 'string') return baseUrl ? new URL('/', baseUrl).toString().replace(/\/$/, '') : '';
  let url = s.url.replace(/\{([^}]+)\}/g, (_m: string, v: string) => {
    const d = s.variables?.[v];
    return String(d?.default ?? d?.enum?.[0] ?? '');
  });
  if (baseUrl && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    try {
      url = new URL(url, baseUrl).toString();
    } catch {
      /* keep */
    }
  }
  return url.replace(/\/+$/, '');
}
