// One exact upstream HTTP request -> one CallToolResult, plus a record of what happened for the tool_call log line.
// Runs after argument validation (src/tools/call.ts); never throws: every failure becomes an isError result.
// In order: plan the result (the projection argument, a page that fits), build the request, send it (one deadline,
// redirects by hand, cancelled with the client), read the body within limits, and turn it into the result in one pass
// (src/upstream/response.ts).
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CatalogueTool, JsonSchema } from '../catalogue/types.ts';
import type { CallOutcome } from '../lib/call-outcome.ts';
import { LIMIT_DEFAULTS } from '../limit-defaults.ts';
import { cutQuote } from '../lib/cut-quote.ts';
import { errorResult } from '../lib/tool-result.ts';
import { resultBudget, type ResultBudget } from '../results/budget.ts';
import type { ResultOptions } from '../results/options.ts';
import { planResult, shapeResult, type ResultPlan } from '../results/shape.ts';
import { SCHEMA_MISMATCH_MESSAGE, type ValidationOutcome } from './conversion.ts';
import { httpErrorResult, MAX_ERROR_BODY_BYTES } from './errors.ts';
import { JSON_SCAN_FROM_BYTES, jsonHeapEstimate, MAX_JSON_HEAP_BYTES, mayBeJsonContainer } from './json-cost.ts';
import { BodyAbortedError, readBodyLimited, ResponseTooLargeError } from './limits.ts';
import { fetchWithBody } from './raw-http.ts';
import { encodeQueryKey, encodeStrict } from './encoding.ts';
import { ArgumentError, buildRequest, decodeSafe, type BuiltRequest } from './request.ts';
import { convertResponse } from './response.ts';

/** What to call and how its result is checked and shaped: a ToolHandle (src/tools/handle.ts) is one. */
export interface UpstreamTarget {
  /** The tool as the catalogue has it: its binding, and what projection paths are checked against. */
  tool: CatalogueTool;
  /** The outputSchema the client was shown: structuredContent is shaped to it and checked against it (none: no structuredContent). */
  outputSchema: JsonSchema | undefined;
  /** Result shaping (src/results): the projection argument, compaction, pages that fit. Absent: JSON as the upstream sent it. */
  results?: ResultOptions;
  /** Cancels the upstream call (the MCP client went away). */
  signal?: AbortSignal;
}

/**
 * Credentials for one request, in HTTP terms (chosen by src/auth/upstream-security.ts from the tool's security). Never
 * logged; headers and cookies are dropped on cross-origin redirects.
 */
export interface UpstreamCredentials {
  /** Headers to set, e.g. { authorization: 'Bearer …' } or { 'x-api-key': … }: they replace any the arguments set. */
  headers?: Record<string, string>;
  /** Query parameters to add (apiKey in query): they replace any of the same name the arguments set. */
  query?: ReadonlyArray<readonly [string, string]>;
  /** Cookies to add beside the arguments' own (apiKey in cookie). */
  cookies?: ReadonlyArray<readonly [string, string]>;
  /** What was sent, schemes and places but never values: the 401 text says it ("the credential of scheme …"). */
  sent?: string;
  /** After a 401, fresh credentials to send the request with once more (a renewed token); undefined keeps the 401. */
  renew?: () => Promise<UpstreamCredentials | undefined>;
}

/** The deployment's limits and the caller's credential for one call. */
export interface UpstreamLimits {
  /** Base URL, may include a path prefix (e.g. http://127.0.0.1:4010/api/v3). */
  upstreamUrl: string;
  credentials?: UpstreamCredentials;
  /** Whole-call deadline (connect, headers and body). Default LIMIT_DEFAULTS.timeoutMs. */
  timeoutMs?: number;
  /** Largest upstream body read into memory. Default LIMIT_DEFAULTS.maxResponseBytes. */
  maxResponseBytes?: number;
  /** The result budget in approximate tokens (src/results/budget.ts). Default LIMIT_DEFAULTS.maxResultTokens. */
  maxResultTokens?: number;
  /** Largest image/audio/file body embedded as base64. Default LIMIT_DEFAULTS.maxBinaryBytes, capped by maxResponseBytes. */
  maxBinaryBytes?: number;
  userAgent?: string;
}

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
  /** With outcome schema_mismatch: the first validation errors (what the automatic drop counts). */
  schemaErrors?: string[];
  /** With outcome schema_mismatch: this tool's mismatches in this isolate so far (src/schema-health). */
  schemaMismatches?: number;
  message?: string;
  /** The client went away and the call was abandoned. */
  cancelled?: true;
  /** The upstream refused the first credential (401) and the call was sent once more with a renewed token. */
  renewed?: true;
  error?: string;
}

export interface Executed {
  result: CallToolResult;
  record: CallRecord;
  /** The result's JSON when it was assembled from the one serialisation of its structured value. */
  json?: string;
}

/** Redirects followed (same-origin keep credentials; cross-origin drop them). */
const MAX_REDIRECTS = 5;

export function executeTool(target: UpstreamTarget, args: Record<string, unknown>, limits: UpstreamLimits): Promise<Executed> {
  return execute(target, args, limits).catch((e: unknown) => {
    // A bug here must not become a protocol error or a hang: report it as a tool error.
    const msg = e instanceof Error ? e.message : String(e);
    const result = errorResult(`Internal error while calling the upstream for ${target.tool.name}: ${msg}`);
    return { result, record: { outcome: 'internal_error', validation: 'none', method: target.tool.http.method, error: msg } };
  });
}

/** One call in flight: its request, its deadline and cancellation, and the record it fills in. */
interface InFlight {
  req: BuiltRequest;
  record: CallRecord;
  timeout: AbortSignal;
  signal: AbortSignal;
  where: string;
  timeoutMs: number;
}

function failed(record: CallRecord, result: CallToolResult, outcome: CallOutcome, extra?: Partial<CallRecord>): Executed {
  Object.assign(record, extra, { outcome, validation: 'none' });
  return { result, record };
}

async function execute(target: UpstreamTarget, given: Record<string, unknown>, limits: UpstreamLimits): Promise<Executed> {
  const { tool } = target;
  const record: CallRecord = { outcome: 'ok', validation: 'none', method: tool.http.method };
  const budget = resultBudget(limits.maxResultTokens ?? LIMIT_DEFAULTS.maxResultTokens);
  const maxResponseBytes = limits.maxResponseBytes ?? LIMIT_DEFAULTS.maxResponseBytes;

  // The projection argument never reaches the upstream; a bad one is refused before anything is sent.
  let args = given;
  let plan: ResultPlan | undefined;
  if (target.results) {
    const planned = planResult(tool, args, target.results, budget);
    if ('error' in planned) return failed(record, errorResult(planned.error), 'invalid_arguments');
    ({ args, plan } = planned);
  }
  let req: BuiltRequest;
  try {
    req = buildRequest(tool, args, { upstreamUrl: limits.upstreamUrl, ...(limits.userAgent ? { userAgent: limits.userAgent } : {}) });
  } catch (e) {
    if (e instanceof ArgumentError) return failed(record, errorResult(`Invalid arguments for ${tool.name}: ${e.message}.`), 'invalid_arguments');
    throw e;
  }
  record.path = tool.http.path;

  const timeoutMs = limits.timeoutMs ?? LIMIT_DEFAULTS.timeoutMs;
  const timeout = AbortSignal.timeout(timeoutMs);
  const call: InFlight = { req, record, timeout, signal: target.signal ? AbortSignal.any([timeout, target.signal]) : timeout, where: `${req.method} ${cutQuote(req.path)}`, timeoutMs };
  let sent = limits.credentials;
  // Sending sets the credentials on the request's own headers: a call that may be sent again keeps them as built.
  const asBuilt = sent?.renew ? new Headers(req.headers) : undefined;
  let res = await send(call, sent);
  if (!(res instanceof Response)) return res;
  if (res.status === 401 && sent?.renew) {
    // A token the upstream refused (expired or revoked early): renewed once, and the request sent once more.
    const fresh = await sent.renew();
    if (fresh) {
      await res.body?.cancel().catch(() => undefined);
      sent = fresh;
      call.req = { ...req, headers: asBuilt! };
      res = await send(call, fresh);
      if (!(res instanceof Response)) return res;
      record.renewed = true;
    }
  }
  record.status = res.status;
  if (res.status >= 400) return upstreamError(call, res, maxResponseBytes, sent);
  if (res.status >= 300 && res.status !== 304) {
    await res.body?.cancel().catch(() => undefined);
    return failed(record, errorResult(`The upstream answered ${call.where} with HTTP ${res.status} ${res.statusText} (a redirect without a usable Location); nothing was returned.`), 'redirect_not_followed');
  }
  const bytes = await readSuccess(call, res, maxResponseBytes);
  if (!(bytes instanceof Uint8Array)) return bytes;
  const tooDense = denseJson(call, bytes);
  if (tooDense) return tooDense;
  return converted(target, call, res, bytes, budget, limits, plan);
}

/** The success body -> the result, in one pass (src/upstream/response.ts), and what the record keeps of it. */
function converted(target: UpstreamTarget, call: InFlight, res: Response, bytes: Uint8Array, budget: ResultBudget, limits: UpstreamLimits, plan: ResultPlan | undefined): Executed {
  const contentType = res.headers.get('content-type');
  const conv = convertResponse(target.tool, target.outputSchema, bytes, {
    status: res.status,
    statusText: res.statusText,
    contentType,
    method: call.req.method,
    path: call.req.path,
    budget,
    maxBinaryBytes: Math.min(limits.maxBinaryBytes ?? LIMIT_DEFAULTS.maxBinaryBytes, limits.maxResponseBytes ?? LIMIT_DEFAULTS.maxResponseBytes),
    ...(plan ? { shape: (value: unknown) => shapeResult(value, plan) } : {}),
  });
  const { record } = call;
  Object.assign(record, { outcome: conv.outcome, validation: conv.validation, bodyBytes: bytes.length, kind: conv.kind });
  if (contentType) record.contentType = contentType;
  if (conv.truncated) record.truncated = true;
  if (conv.outcome === 'schema_mismatch') {
    if (conv.schemaErrors) record.schemaErrors = conv.schemaErrors;
    record.message = SCHEMA_MISMATCH_MESSAGE;
  }
  return conv.json !== undefined ? { result: conv.result, record, json: conv.json } : { result: conv.result, record };
}

/** Sends the request; a transport failure, the deadline or the client going away is the call's result. */
async function send(call: InFlight, credentials: UpstreamCredentials | undefined): Promise<Response | Executed> {
  try {
    return await fetchFollowingRedirects(call.req, credentials, call.signal);
  } catch (e) {
    const aborted = abandoned(call);
    if (aborted) return aborted;
    if (e instanceof RedirectError) return failed(call.record, errorResult(e.message), 'redirect_not_followed');
    const msg = e instanceof Error ? e.message : String(e);
    return failed(call.record, errorResult(`Could not reach the upstream for ${call.where}: ${clause(msg)}. This is a network failure, not an answer from the API; retrying later may help.`), 'network_error');
  }
}

/** The result of a call that hit its deadline or whose client went away; undefined when neither happened. */
function abandoned(call: InFlight): Executed | undefined {
  if (call.timeout.aborted) {
    const text =
      `The upstream did not answer ${call.where} within ${call.timeoutMs} ms, so the call was abandoned. ` +
      'The request may still have taken effect upstream; for a non-idempotent tool, check before retrying.';
    return failed(call.record, errorResult(text), 'timeout');
  }
  if (call.signal.aborted) return failed(call.record, errorResult(`The call to ${call.where} was cancelled.`), 'network_error', { cancelled: true });
  return undefined;
}

/** 4xx/5xx: a bounded prefix of the problem body, as a text the model can act on. */
async function upstreamError(call: InFlight, res: Response, maxResponseBytes: number, credentials: UpstreamCredentials | undefined): Promise<Executed> {
  let body: Uint8Array = new Uint8Array(0);
  let incomplete = false;
  try {
    const cap = Math.min(MAX_ERROR_BODY_BYTES, maxResponseBytes);
    body = await readBodyLimited(res, cap, call.signal, 'truncate');
    incomplete = body.length >= cap;
  } catch {
    incomplete = true;
  }
  const result = httpErrorResult({
    status: res.status,
    statusText: res.statusText,
    method: call.req.method,
    path: call.req.path,
    contentType: res.headers.get('content-type'),
    retryAfter: res.headers.get('retry-after'),
    body,
    bodyIncomplete: incomplete,
    ...(credentials?.sent ? { credentialsSent: credentials.sent } : {}),
  });
  return failed(call.record, result, res.status >= 500 ? 'upstream_5xx' : 'upstream_4xx');
}

/** The success body within the size limit, or the call's result when it cannot be read. */
async function readSuccess(call: InFlight, res: Response, maxResponseBytes: number): Promise<Uint8Array | Executed> {
  if (call.req.method === 'HEAD') return new Uint8Array(0);
  try {
    return await readBodyLimited(res, maxResponseBytes, call.signal);
  } catch (e) {
    if (e instanceof ResponseTooLargeError) {
      const size = e.declared !== undefined ? ` (Content-Length: ${e.declared} bytes)` : '';
      const text = `The upstream response to ${call.where} is larger than the ${e.limit}-byte limit${size}, so it was not returned. Ask for less: use filters, fewer fields, or a smaller page size.`;
      return failed(call.record, errorResult(text), 'too_large');
    }
    const aborted = e instanceof BodyAbortedError || call.signal.aborted ? abandoned(call) : undefined;
    if (aborted) return aborted;
    const msg = e instanceof Error ? e.message : String(e);
    return failed(call.record, errorResult(`The connection to the upstream failed while reading the response to ${call.where}: ${clause(msg)}. Retrying later may help.`), 'network_error');
  }
}

/** A large body that would cost more parsed than an isolate can spare (json-cost.ts): refused before it is parsed. */
function denseJson(call: InFlight, bytes: Uint8Array): Executed | undefined {
  if (bytes.length < JSON_SCAN_FROM_BYTES || !mayBeJsonContainer(bytes)) return undefined;
  if (jsonHeapEstimate(bytes) <= MAX_JSON_HEAP_BYTES) return undefined;
  const text =
    `The upstream response to ${call.where} (${bytes.length} bytes) holds too many JSON values to read on this server: parsed, it would take more than ` +
    `${MAX_JSON_HEAP_BYTES / 1024 / 1024} MB, so it was not returned. Ask for less: use filters, fewer fields, or a smaller page size.`;
  return failed(call.record, errorResult(text), 'too_large');
}

class RedirectError extends Error {}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

async function fetchFollowingRedirects(req: BuiltRequest, credentials: UpstreamCredentials | undefined, signal: AbortSignal): Promise<Response> {
  let origin: string | undefined;
  let url = credentials?.query?.length ? withQuery(req.url, credentials.query) : req.url;
  let method = req.method;
  let body = req.body;
  // The first request sends the built headers themselves (they are this call's own) with the credentials added; a
  // redirect starts from a copy, and to another origin the credentials and cookies are taken out again.
  const replaced = new Map<string, string | null>();
  const headers = credentials?.headers;
  for (const k in headers) {
    replaced.set(k, req.headers.get(k));
    req.headers.set(k, headers[k]!);
  }
  if (credentials?.cookies?.length) {
    const mine = credentials.cookies.map(([k, v]) => `${k}=${v}`).join('; ');
    const theirs = req.headers.get('cookie');
    req.headers.set('cookie', theirs ? `${theirs}; ${mine}` : mine);
  }
  for (let hop = 0; ; hop++) {
    let headers = req.headers;
    if (hop > 0) {
      headers = new Headers(req.headers);
      if (new URL(url).origin !== (origin ??= new URL(req.url).origin)) {
        for (const [k, v] of replaced) if (v === null) headers.delete(k); else headers.set(k, v);
        headers.delete('cookie');
      }
    }
    if (body === undefined) headers.delete('content-type');
    // fetch refuses a body on GET/HEAD; those few operations go through a raw HTTP/1.1 socket.
    const res =
      body !== undefined && (method === 'GET' || method === 'HEAD')
        ? await fetchWithBody(url, { method, headers, body, signal })
        : await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}), redirect: 'manual', signal });
    const location = res.headers.get('location');
    if (!REDIRECTS.has(res.status) || !location) return res;
    await res.body?.cancel().catch(() => undefined);
    if (hop >= MAX_REDIRECTS) throw new RedirectError(`The upstream redirected ${req.method} ${req.path} more than ${MAX_REDIRECTS} times; giving up.`);
    const next = new URL(location, url);
    if (next.protocol !== 'https:' && next.protocol !== 'http:') throw new RedirectError(`The upstream redirected to a non-HTTP URL; not followed.`);
    url = next.toString();
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
      method = method === 'HEAD' ? 'HEAD' : 'GET';
      body = undefined;
    }
  }
}

/**
 * `url` with credential query parameters added, each encoded to fill only its own slot. A parameter of the same name
 * the arguments sent (a form-exploded object spreads any key) is taken out: the credential replaces it, as its headers
 * replace theirs, so an upstream that reads the first value never takes the model's key for the operator's.
 */
function withQuery(url: string, pairs: ReadonlyArray<readonly [string, string]>): string {
  const added = pairs.map(([k, v]) => `${encodeQueryKey(k)}=${encodeStrict(v)}`).join('&');
  const hash = url.indexOf('#');
  const base = hash < 0 ? url : url.slice(0, hash);
  const q = base.indexOf('?');
  if (q < 0) return `${base}?${added}`;
  const names = new Set(pairs.map(([k]) => k));
  const kept = base.slice(q + 1).split('&').filter((t) => t !== '' && !names.has(decodeSafe(t.split('=', 1)[0]!)));
  return `${base.slice(0, q)}?${[...kept, added].join('&')}`;
}

/** A runtime error message as a clause of our sentence: its own closing full stop dropped ("Network connection lost."). */
function clause(message: string): string {
  return message.replace(/[\s.]+$/, '');
}
