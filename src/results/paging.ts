// Pages that fit: how many whole items of a list fit the result budget, the page size to ask for when the caller
// chose none, and the exact arguments of the call that continues after the last item shown.
import type { CatalogueTool, JsonSchema, PagingArgs } from '../catalogue/types.ts';

/** The paging the upstream call used: the caller's arguments, the schema's defaults, or a page size chosen here. */
export interface PageRequest {
  /** 1-based page number, when the operation pages by number. */
  page?: number;
  /** Page size sent (or the API's documented default when none was sent). */
  size?: number;
  offset?: number;
  /** Set when this call chose the page size because the caller gave none. */
  fitted?: { value: number; apiDefault?: number };
}

/**
 * Share of the budget a chosen page is sized for; the rest absorbs items larger than the spec's example. The token
 * estimate already counts English JSON about 15% over o200k (src/lib/tokens.ts), so 0.9 of it is under 0.8 of real.
 */
const FIT_SHARE = 0.9;

function propSchema(tool: CatalogueTool, arg: string | undefined): JsonSchema | undefined {
  const props = tool.inputSchema.properties as Record<string, JsonSchema> | undefined;
  return arg ? props?.[arg] : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : undefined;
}

/**
 * The paging of this call. When the operation has a page size the caller did not set, and the spec's example says
 * how large an item is, the page is sized to fit the budget if that is smaller than the API's documented default:
 * the size is added to `args`.
 */
export function pageRequest(tool: CatalogueTool, paging: PagingArgs | undefined, args: Record<string, unknown>, budgetTokens: number, mayFit: boolean): PageRequest {
  if (!paging) return {};
  const req: PageRequest = {};
  const sizeSchema = propSchema(tool, paging.size);
  if (paging.size && args[paging.size] === undefined && mayFit && paging.itemTokens && sizeSchema) {
    const apiDefault = num(sizeSchema.default);
    let n = Math.max(1, Math.floor((budgetTokens * FIT_SHARE) / paging.itemTokens));
    const max = num(sizeSchema.maximum);
    if (max !== undefined) n = Math.min(n, max);
    n = Math.max(n, num(sizeSchema.minimum) ?? 1);
    if (apiDefault !== undefined && n < apiDefault) {
      args[paging.size] = n;
      req.fitted = { value: n, apiDefault };
    }
  }
  if (paging.size) req.size = num(args[paging.size]) ?? num(sizeSchema?.default);
  if (paging.page) req.page = num(args[paging.page]) ?? num(propSchema(tool, paging.page)?.default) ?? 1;
  if (paging.offset) req.offset = num(args[paging.offset]) ?? 0;
  return req;
}

/** How many leading items fit in `available` tokens, whole (sizes are each item's estimated JSON tokens). */
export function wholeItemsThatFit(sizes: number[], available: number): number {
  let used = 0;
  for (let i = 0; i < sizes.length; i++) {
    used += sizes[i]! + (i ? 1 : 0);
    if (used > available) return i;
  }
  return sizes.length;
}

export interface Continuation {
  /** Items to show: at most the number that fit, fewer when the next page must start exactly after them. */
  show: number;
  /** Arguments to add to the same call to get the items after the ones shown; absent when the operation cannot. */
  next?: Record<string, string | number>;
  /** For page numbers: the argument that counts on (then page+1 …). */
  then?: string;
  /** For opaque cursors: the next call repeats the page at this size and its cursor continues. */
  viaCursor?: string;
}

/**
 * The exact next call after showing the first `fit` of `items` (this call's page). Page numbers need the shown items
 * to end on a page boundary of the new size, so for page p > 1 the count shown is the largest size ≤ fit that
 * divides the items before this page.
 */
export function continuation(paging: PagingArgs | undefined, req: PageRequest, items: unknown[], fit: number): Continuation {
  const show = Math.max(0, fit);
  if (!paging || show === 0) return { show };
  const withSize = (n: number) => (paging.size ? { [paging.size]: n } : {});
  if (paging.page && paging.size) {
    const p = Math.max(1, req.page ?? 1);
    if (p === 1) return { show, next: { [paging.size]: show, [paging.page]: 2 }, then: paging.page };
    if (req.size === undefined) return { show };
    const before = (p - 1) * req.size;
    let d = show;
    while (d > 1 && before % d !== 0) d--;
    return { show: d, next: { [paging.size]: d, [paging.page]: before / d + 2 }, then: paging.page };
  }
  if (paging.offset) return { show, next: { [paging.offset]: (req.offset ?? 0) + show, ...withSize(show) } };
  if (paging.after) {
    const last = items[show - 1];
    const id = last && typeof last === 'object' ? (last as Record<string, unknown>).id : undefined;
    if (typeof id === 'string' || typeof id === 'number') return { show, next: { [paging.after]: id, ...withSize(show) } };
  }
  if (paging.cursor && paging.size) return { show, next: withSize(show), viaCursor: paging.cursor };
  return { show };
}
