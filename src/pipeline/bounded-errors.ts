// Every JSON error answer within a bound, whoever wrote it. The SDK quotes what a client sent into its refusals, whole:
// a 200 KB MCP-Protocol-Version header came back as a 200 KB error, an Mcp-Name header that disagrees with the body
// as 600 KB (both quoted, twice), and so did a protocol version in _meta and an Origin. Our own refusals cut what they
// quote (src/lib/cut-quote.ts); this step bounds the rest after the fact, so no error costs a client more than a
// few thousand tokens to read. Successes are left alone: their budget is the result budget (docs/results.md).
import type { MiddlewareHandler } from 'hono';
import { cutQuote } from '../lib/cut-quote.ts';

/** An error body longer than this is rewritten: its strings cut, its long lists shortened. */
export const MAX_ERROR_BODY_CHARS = 8_000;
const STRING_CHARS = 1_000;
const LIST_ITEMS = 200;

export const boundedErrors: MiddlewareHandler = async (c, next) => {
  await next();
  const res = c.res;
  if (res.status < 400 || !res.body || !/json/i.test(res.headers.get('content-type') ?? '')) return;
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared <= MAX_ERROR_BODY_CHARS) return;
  const text = await res.text();
  let body = text;
  if (text.length > MAX_ERROR_BODY_CHARS) {
    try {
      body = JSON.stringify(bounded(JSON.parse(text)));
    } catch {
      body = JSON.stringify({ error: 'error', message: cutQuote(text, STRING_CHARS) });
    }
  }
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  c.res = undefined;
  c.res = new Response(body, { status: res.status, statusText: res.statusText, headers });
};

function bounded(value: unknown): unknown {
  if (typeof value === 'string') return cutQuote(value, STRING_CHARS);
  if (Array.isArray(value)) return value.length <= LIST_ITEMS ? value.map(bounded) : [...value.slice(0, LIST_ITEMS).map(bounded), `… (${value.length - LIST_ITEMS} more)`];
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [cutQuote(k, 100), bounded(v)]));
  return value;
}
