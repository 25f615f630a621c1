// One exact upstream HTTP request -> one CallToolResult, plus a record of what happened for the tool_call log line.
// Runs after argument validation (src/tools/call.ts); never throws: every failure becomes an isError result.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CatalogueTool } from '../catalogue/types.ts';
import { CHARS_PER_TOKEN, LIMIT_DEFAULTS } from '../limit-defaults.ts';
import { errorResult } from '../lib/tool-result.ts';
import type { ResultOptions } from '../results/options.ts';
import { planResult, shapeResult, type ResultPlan } from '../results/shape.ts';
import { httpErrorResult, MAX_ERROR_BODY_BYTES } from './errors.ts';
import { BodyAbortedError, readBodyLimited, ResponseTooLargeError } from './limits.ts';
import { fetchWithBody } from './raw-http.ts';
import { ArgumentError, buildRequest, type BuiltRequest } from './request.ts';
import { convertResponse, SCHEMA_MISMATCH_MESSAGE, type ValidationOutcome } from './response.ts';

export interface ExecuteOptions {
  /** Base URL, may include a path prefix (e.g. http://127.0.0.1:4010/api/v3). */
  upstreamUrl: string;
  /** Credential headers to add, e.g. { authorization: 'Bearer …' }. Never logged; dropped on cross-origin redirects. */
  headers?: Record<string, string>;
  /** Whole-call deadline (connect, headers and body). Default LIMIT_DEFAULTS.timeoutMs. */
  timeoutMs?: number;
  /** Largest upstream body read into memory. Default LIMIT_DEFAULTS.maxResponseBytes. */
  maxResponseBytes?: number;
  /** Budget for the text/JSON of a result, in approximate tokens (CHARS_PER_TOKEN). Default LIMIT_DEFAULTS.maxResultTokens. */
  maxResultTokens?: number;
  /** Largest image/audio/file body embedded as base64. Default LIMIT_DEFAULTS.maxBinaryBytes, capped by maxResponseBytes. */
  maxBinaryBytes?: number;
  userAgent?: string;
  fetch?: typeof fetch;
  /** Cancels the upstream call (e.g. the MCP client went away). */
  signal?: AbortSignal;
  /** Redirects followed (same-origin keep credentials; cross-origin drop them). Default 5. */
  maxRedirects?: number;
  /** Result shaping (src/results): the projection argument, compaction, pages that fit. Absent: JSON as the upstream sent it. */
  results?: ResultOptions;
  /**
   * The tool as the catalogue has it, when `tool` carries another outputSchema to check the result against (the one
   * the client listed, src/tools/checked-schema.ts): projection paths are checked against this one's full schema.
   */
  catalogueTool?: CatalogueTool;
}

type CallOutcome =
  | 'ok'
  | 'invalid_arguments'
  | 'upstream_error'
  | 'network_error'
  | 'timeout'
  | 'too_large'
  | 'schema_mismatch'
  | 'invalid_json'
  | 'redirect_not_followed'
  | 'internal_error';

/** What one call did, for the tool_call log line: never argument values, header values or the filled-in URL. */
export interface CallRecord {
  outcome: CallOutcome;
  /** With outcome invalid_arguments from inputSchema validation: how many errors were reported. */
  argumentErrors?: number;
  validation: ValidationOutcome;
  method?: string;
  /** The path template, not the filled-in path. */
  path?: string;
  status?: number;
  contentType?: string;
  bodyBytes?: number;
  kind?: string;
  truncated?: boolean;
  schemaMismatches?: number;
  schemaErrors?: string[];
  message?: string;
  error?: string;
}

interface UpstreamCall {
  result: CallToolResult;
  record: CallRecord;
}

/** Per-tool count of upstream responses that failed the tool's own outputSchema (isolate lifetime). */
export const schemaMismatchCounts = new Map<string, number>();

export function recordSchemaMismatch(tool: string): number {
  const n = (schemaMismatchCounts.get(tool) ?? 0) + 1;
  schemaMismatchCounts.set(tool, n);
  return n;
}

export async function executeTool(tool: CatalogueTool, args: Record<string, unknown>, opts: ExecuteOptions): Promise<UpstreamCall> {
  try {
    return await execute(tool, args, opts);
  } catch (e) {
    // A bug here must not become a protocol error or a hang: report it as a tool error.
    const msg = e instanceof Error ? e.message : String(e);
    const result = errorResult(`Internal error while calling the upstream for ${tool.name}: ${msg}`);
    return { result, record: { outcome: 'internal_error', validation: 'none', method: tool.http.method, error: msg } };
  }
}

async function execute(tool: CatalogueTool, args: Record<string, unknown>, opts: ExecuteOptions): Promise<UpstreamCall> {
  const timeoutMs = opts.timeoutMs ?? LIMIT_DEFAULTS.timeoutMs;
  const maxResponseBytes = opts.maxResponseBytes ?? LIMIT_DEFAULTS.maxResponseBytes;
  const maxResultTokens = opts.maxResultTokens ?? LIMIT_DEFAULTS.maxResultTokens;
  const maxBinaryBytes = Math.min(opts.maxBinaryBytes ?? LIMIT_DEFAULTS.maxBinaryBytes, maxResponseBytes);
  const doFetch = opts.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));

  const record: CallRecord = { outcome: 'ok', validation: 'none', method: tool.http.method };
  const finish = (result: CallToolResult, outcome: CallOutcome, validation: ValidationOutcome, extra?: Partial<CallRecord>): UpstreamCall => {
    Object.assign(record, extra, { outcome, validation });
    return { result, record };
  };

  // The projection argument never reaches the upstream; a bad one is refused before anything is sent.
  let plan: ResultPlan | undefined;
  if (opts.results) {
    const planned = planResult(opts.catalogueTool ?? tool, args, opts.results, maxResultTokens * CHARS_PER_TOKEN);
    if ('error' in planned) return finish(errorResult(planned.error), 'invalid_arguments', 'none');
    ({ args, plan } = planned);
  }

  let req: BuiltRequest;
  try {
    req = buildRequest(tool, args, { upstreamUrl: opts.upstreamUrl, ...(opts.userAgent ? { userAgent: opts.userAgent } : {}) });
  } catch (e) {
    if (e instanceof ArgumentError) return finish(errorResult(`Invalid arguments for ${tool.name}: ${e.message}.`), 'invalid_arguments', 'none');
    throw e;
  }
  record.path = tool.http.path;

  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
  const where = `${req.method} ${req.path}`;
  const timeoutText = () =>
    `The upstream did not answer ${where} within ${timeoutMs} ms, so the call was abandoned. ` +
    'The request may still have taken effect upstream; for a non-idempotent tool, check before retrying.';

  let res: Response;
  try {
    res = await fetchFollowingRedirects(req, opts, doFetch, signal);
  } catch (e) {
    if (timeout.aborted) return finish(errorResult(timeoutText()), 'timeout', 'none');
    if (opts.signal?.aborted) return finish(errorResult(`The call to ${where} was cancelled.`), 'network_error', 'none');
    if (e instanceof RedirectError) return finish(errorResult(e.message), 'redirect_not_followed', 'none');
    const msg = e instanceof Error ? e.message : String(e);
    return finish(
      errorResult(`Could not reach the upstream for ${where}: ${clause(msg)}. This is a network failure, not an answer from the API; retrying later may help.`),
      'network_error',
      'none',
    );
  }
  record.status = res.status;

  // Errors: read a bounded prefix of the problem body.
  if (res.status >= 400) {
    let body: Uint8Array = new Uint8Array(0);
    let incomplete = false;
    try {
      const cap = Math.min(MAX_ERROR_BODY_BYTES, maxResponseBytes);
      body = await readBodyLimited(res, cap, signal, 'truncate');
      incomplete = body.length >= cap;
    } catch {
      incomplete = true;
    }
    const result = httpErrorResult({
      status: res.status,
      statusText: res.statusText,
      method: req.method,
      path: req.path,
      contentType: res.headers.get('content-type'),
      retryAfter: res.headers.get('retry-after'),
      body,
      bodyIncomplete: incomplete,
    });
    return finish(result, 'upstream_error', 'none');
  }
  if (res.status >= 300 && res.status !== 304) {
    await res.body?.cancel().catch(() => undefined);
    return finish(
      errorResult(`The upstream answered ${where} with HTTP ${res.status} ${res.statusText} (a redirect without a usable Location); nothing was returned.`),
      'redirect_not_followed',
      'none',
    );
  }

  let bytes: Uint8Array;
  try {
    bytes = req.method === 'HEAD' ? new Uint8Array(0) : await readBodyLimited(res, maxResponseBytes, signal);
  } catch (e) {
    if (e instanceof ResponseTooLargeError) {
      const size = e.declared !== undefined ? ` (Content-Length: ${e.declared} bytes)` : '';
      return finish(
        errorResult(
          `The upstream response to ${where} is larger than the ${e.limit}-byte limit${size}, so it was not returned. ` +
            'Ask for less: use filters, fewer fields, or a smaller page size.',
        ),
        'too_large',
        'none',
      );
    }
    if (timeout.aborted || e instanceof BodyAbortedError) {
      if (timeout.aborted) return finish(errorResult(timeoutText()), 'timeout', 'none');
      return finish(errorResult(`The call to ${where} was cancelled.`), 'network_error', 'none');
    }
    const msg = e instanceof Error ? e.message : String(e);
    return finish(errorResult(`The connection to the upstream failed while reading the response to ${where}: ${clause(msg)}. Retrying later may help.`), 'network_error', 'none');
  }

  const conv = convertResponse(tool, bytes, {
    status: res.status,
    statusText: res.statusText,
    contentType: res.headers.get('content-type'),
    method: req.method,
    path: req.path,
    maxResultTokens,
    maxBinaryBytes,
    ...(plan ? { shape: (value: unknown) => shapeResult(value, plan, maxResultTokens * CHARS_PER_TOKEN) } : {}),
  });
  const extra: Partial<CallRecord> = { bodyBytes: bytes.length, kind: conv.kind };
  const contentType = res.headers.get('content-type');
  if (contentType) extra.contentType = contentType;
  if (conv.truncated) extra.truncated = true;
  if (conv.validation === 'mismatch' && conv.kind === 'json') {
    extra.schemaMismatches = recordSchemaMismatch(tool.name);
    extra.schemaErrors = conv.schemaErrors;
    extra.message = SCHEMA_MISMATCH_MESSAGE;
    return finish(conv.result, 'schema_mismatch', conv.validation, extra);
  }
  const outcome: CallOutcome = conv.result.isError ? (conv.kind === 'json' ? 'invalid_json' : 'schema_mismatch') : 'ok';
  if (outcome === 'schema_mismatch') {
    extra.schemaMismatches = recordSchemaMismatch(tool.name);
    if (conv.schemaErrors) extra.schemaErrors = conv.schemaErrors;
  }
  return finish(conv.result, outcome, conv.validation, extra);
}

class RedirectError extends Error {}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

async function fetchFollowingRedirects(
  req: BuiltRequest,
  opts: ExecuteOptions,
  doFetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>,
  signal: AbortSignal,
): Promise<Response> {
  const origin = new URL(req.url).origin;
  let url = req.url;
  let method = req.method;
  let body = req.body;
  const maxRedirects = opts.maxRedirects ?? 5;
  for (let hop = 0; ; hop++) {
    const headers = new Headers(req.headers);
    const sameOrigin = new URL(url).origin === origin;
    if (sameOrigin) for (const [k, v] of Object.entries(opts.headers ?? {})) headers.set(k, v);
    else headers.delete('cookie');
    if (body === undefined) headers.delete('content-type');
    // fetch refuses a body on GET/HEAD; those few operations go through a raw HTTP/1.1 socket.
    const res =
      body !== undefined && (method === 'GET' || method === 'HEAD')
        ? await fetchWithBody(url, { method, headers, body, signal })
        : await doFetch(url, { method, headers, ...(body !== undefined ? { body } : {}), redirect: 'manual', signal });
    const location = res.headers.get('location');
    if (!REDIRECTS.has(res.status) || !location) return res;
    await res.body?.cancel().catch(() => undefined);
    if (hop >= maxRedirects) throw new RedirectError(`The upstream redirected ${req.method} ${req.path} more than ${maxRedirects} times; giving up.`);
    const next = new URL(location, url);
    if (next.protocol !== 'https:' && next.protocol !== 'http:') throw new RedirectError(`The upstream redirected to a non-HTTP URL; not followed.`);
    url = next.toString();
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
      method = method === 'HEAD' ? 'HEAD' : 'GET';
      body = undefined;
    }
  }
}

/** A runtime error message as a clause of our sentence: its own closing full stop dropped ("Network connection lost."). */
function clause(message: string): string {
  return message.replace(/[\s.]+$/, '');
}
