// A spec-driven upstream for the result-shaping tests: `GET <prefix><path>` answers any GET operation of a spec with
// its response example (GitHub ships one per operation), or, where the spec has none, a value generated from the
// response schema (scripts/sweep/args.ts). A list answer becomes a page over TOTAL distinct items built from the
// first one (ids and numbers 1…TOTAL), paged by the usual query arguments, so a test can follow the paging a result
// note asks for and check that it continues exactly after the last item shown.
import { derefIn, responseExample } from '../../scripts/catalog/examples.ts';
import { isJsonOrJsonWildcard } from '../../scripts/catalog/json-media-type.ts';
import { isObj } from '../../scripts/lib/is-object.ts';
import { generateValue } from '../../scripts/sweep/args.ts';

export const TOTAL = 95;
const SIZE_ARGS = ['per_page', 'limit', 'page_size'];

interface Route {
  re: RegExp;
  params: number;
  op: Record<string, unknown>;
}

function routes(doc: any): Route[] {
  const out: Route[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    if (!isObj(item) || !isObj(item.get)) continue;
    const src = path
      .split(/(\{[^}]+\})/)
      .map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    out.push({ re: new RegExp(`^${src}/?$`), params: (path.match(/\{/g) ?? []).length, op: item.get });
  }
  return out.sort((a, b) => a.params - b.params);
}

function generated(doc: unknown, op: Record<string, unknown>): unknown {
  for (const [code, r0] of Object.entries(isObj(op.responses) ? op.responses : {})) {
    if (!/^2\d\d$/.test(code)) continue;
    const r = derefIn(doc, r0);
    if (!isObj(r) || !isObj(r.content)) continue;
    for (const [mt, m] of Object.entries(r.content)) if (isJsonOrJsonWildcard(mt) && isObj(m) && m.schema) return generateValue(m.schema, doc as never, 1, 3);
  }
  return undefined;
}

/** The one list in a body: the body itself, or the single array of objects in an envelope. */
function listKey(body: unknown): string | null | undefined {
  if (Array.isArray(body)) return null;
  if (!isObj(body)) return undefined;
  const keys = Object.keys(body).filter((k) => Array.isArray(body[k]) && isObj((body[k] as unknown[])[0]));
  return keys.length === 1 ? keys[0] : undefined;
}

function item(first: Record<string, unknown>, i: number): Record<string, unknown> {
  const copy = structuredClone(first);
  if (typeof copy.id === 'number' || copy.id === undefined) copy.id = i;
  else copy.id = `${String(first.id)}_${i}`;
  if ('number' in copy) copy.number = i;
  return copy;
}

function page(body: unknown, query: URLSearchParams): unknown {
  const key = listKey(body);
  if (key === undefined) return body;
  const list = (key === null ? body : (body as Record<string, unknown>)[key]) as unknown[];
  if (!isObj(list[0])) return body;
  const all = Array.from({ length: TOTAL }, (_, i) => item(list[0] as Record<string, unknown>, i + 1));
  const sizeArg = SIZE_ARGS.find((a) => query.has(a));
  const size = sizeArg ? Number(query.get(sizeArg)) : 30;
  let start = query.has('offset') ? Number(query.get('offset')) : (Math.max(1, Number(query.get('page') ?? 1)) - 1) * size;
  const after = query.get('starting_after') ?? query.get('since');
  if (after !== null) start = all.findIndex((x) => String(x.id) === after) + 1;
  const shown = all.slice(start, start + size);
  if (key === null) return shown;
  const env = { ...(body as Record<string, unknown>), [key]: shown };
  if ('has_more' in env) env.has_more = start + size < TOTAL;
  if ('total_count' in env) env.total_count = TOTAL;
  return env;
}

/** Answers `path` (below the prefix) for a GET, or undefined when the spec has no such operation. */
export function exampleAnswer(doc: unknown): (path: string, query: URLSearchParams) => unknown {
  const table = routes(doc);
  return (path, query) => {
    const route = table.find((r) => r.re.test(path));
    if (!route) return undefined;
    const body = responseExample(doc, route.op)?.value ?? generated(doc, route.op);
    return body === undefined ? undefined : page(body, query);
  };
}
