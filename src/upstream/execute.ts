// tools/call after argument validation: one exact upstream HTTP request -> one CallToolResult.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CatalogueTool } from '../catalogue/types.ts';
import { errorResult, httpErrorResult, MAX_ERROR_BODY_BYTES } from './errors.ts';
import {
  BodyAbortedError,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_RESULT_TOKENS,
  DEFAULT_TIMEOUT_MS,
  readBodyLimited,
  ResponseTooLargeError,
} from './limits.ts';
import { fetchWithBody } from './raw-http.ts';
import { ArgumentError, buildRequest, type BuiltRequest } from './request.ts';
import { convertResponse, SCHEMA_MISMATCH_MESSAGE, type ValidationOutcome } from './response.ts';

export type { CallToolResult };

export interface ExecuteOptions {
  /** Base URL, may include a path prefix (e.g. http://127.0.0.1:4010/api/v3). */
  upstreamUrl: string;
  /** Credential headers to add, e.g. { authorization: 'Bearer …' }. Never logged; dropped on cross-origin redirects. */
  headers?: Record<string, string>;
  /** Whole-call deadline (connect, headers and body). Default 30000. */
  timeoutMs?: number;
  /** Largest upstream body read into memory. Default 10 MiB. */
  maxResponseBytes?: number;
  /** Budget for the text/JSON of a result, in approximate tokens (chars/4). Default 25000. */
  maxResultTokens?: number;
  /** Largest image/audio/file body embedded as base64. Default 5 MiB (also capped by maxResponseBytes). */
  maxBinaryBytes?: number;
  userAgent?: string;
  fetch?: typeof fetch;
  /** One structured line per call. Default: console.log(JSON.stringify(line)). */
  log?: (line: Record<string, unknown>) => void;
  /** Identifies the caller's key in logs (never the key itself). */
  keyId?: string;
  /** Cancels the upstream call (e.g. the MCP client went away). */
  signal?: AbortSignal;
  /** Redirects followed (same-origin keep credentials; cross-origin drop them). Default 5. */
  maxRedirects?: number;
}

/** Per-tool count of upstream responses that failed the tool's own outputSchema (isolate lifetime). */
export const schemaMismatchCounts = new Map<string, number>();

export function recordSchemaMismatch(tool: string): number {
  const n = (schemaMismatchCounts.get(tool) ?? 0) + 1;
  schemaMismatchCounts.set(tool, n);
  return n;
}

type Outcome =
  | 'ok'
  | 'invalid_arguments'
  | 'upstream_error'
  | 'network_error'
  | 'timeout'
  | 'too_large'
  | 'schema_mismatch'
  | 'invalid_json'
  | 'redirect_not_followed';

export async function executeTool(tool: CatalogueTool, args: Record<string, unknown>, opts: ExecuteOptions): Promise<CallToolResult> {
  try {
    return await execute(tool, args, opts);
  } catch (e) {
    // A bug here must not become a protocol error or a hang: report it as a tool error.
    const msg = e instanceof Error ? e.message : String(e);
    try {
      (opts.log ?? ((l: Record<string, unknown>) => console.log(JSON.stringify(l))))({ event: 'tool_call', tool: tool.name, outcome: 'internal_error', error: msg });
    } catch {
      /* ignore */
    }
    return errorResult(`Internal error while calling the upstream for ${tool.name}: ${msg}`);
  }
}

async function execute(tool: CatalogueTool, args: Record<string, unknown>, opts: ExecuteOptions): Promise<CallToolResult> {
  const started = Date.now();
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const maxResultTokens = opts.maxResultTokens ?? DEFAULT_MAX_RESULT_TOKENS;
  const maxBinaryBytes = Math.min(opts.maxBinaryBytes ?? 5 * 1024 * 1024, maxResponseBytes);
  const doFetch = opts.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const log = opts.log ?? ((line: Record<string, unknown>) => console.log(JSON.stringify(line)));

  const line: Record<string, unknown> = { event: 'tool_call', tool: tool.name, method: tool.http.method };
  if (opts.keyId) line.keyId = opts.keyId;
  const finish = (result: CallToolResult, outcome: Outcome, validation: ValidationOutcome, extra?: Record<string, unknown>): CallToolResult => {
    Object.assign(line, extra, {
      outcome,
      validation,
      isError: result.isError === true,
      latencyMs: Date.now() - started,
      resultBytes: JSON.stringify(result).length,
    });
    try {
      log(line);
    } catch {
      /* logging must never fail a call */
    }
    return result;
  };

  let req: BuiltRequest;
  try {
    req = buildRequest(tool, args, { upstreamUrl: opts.upstreamUrl, ...(opts.userAgent ? { userAgent: opts.userAgent } : {}) });
  } catch (e) {
    if (e instanceof ArgumentError) return finish(errorResult(`Invalid arguments for ${tool.name}: ${e.message}.`), 'invalid_arguments', 'none');
    throw e;
  }
  line.path = tool.http.path;

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
      errorResult(`Could not reach the upstream for ${where}: ${msg}. This is a network failure, not an answer from the API; retrying later may help.`),
      'network_error',
      'none',
    );
  }
  line.status = res.status;

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
    return finish(errorResult(`The connection to the upstream failed while reading the response to ${where}: ${msg}. Retrying later may help.`), 'network_error', 'none');
  }

  const conv = convertResponse(tool, bytes, {
    status: res.status,
    statusText: res.statusText,
    contentType: res.headers.get('content-type'),
    method: req.method,
    path: req.path,
    maxResultTokens,
    maxBinaryBytes,
  });
  const extra: Record<string, unknown> = { contentType: res.headers.get('content-type') ?? undefined, bodyBytes: bytes.length, kind: conv.kind };
  if (conv.truncated) extra.truncated = true;
  if (conv.validation === 'mismatch' && conv.kind === 'json') {
    extra.schemaMismatches = recordSchemaMismatch(tool.name);
    extra.schemaErrors = conv.schemaErrors;
    extra.message = SCHEMA_MISMATCH_MESSAGE;
    return finish(conv.result, 'schema_mismatch', conv.validation, extra);
  }
  const outcome: Outcome = conv.result.isError ? (conv.kind === 'json' ? 'invalid_json' : 'schema_mismatch') : 'ok';
  if (outcome === 'schema_mismatch') extra.schemaMismatches = recordSchemaMismatch(tool.name);
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
