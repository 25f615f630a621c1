// Upstream HTTP errors and transport failures -> isError texts a model can act on.
// Error results never carry structuredContent: strict clients validate it even when isError is true.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { cutQuote } from '../lib/cut-quote.ts';
import { errorResult } from '../lib/tool-result.ts';

/** How much of an error body is kept in the text. */
const MAX_PROBLEM_CHARS = 2000;
/** How much of an error body is read at all. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

const REASONS: Record<number, string> = {
  400: 'Bad Request: the upstream rejected the arguments; check them against the problem details and the tool schema.',
  401: 'Unauthorized: the upstream did not accept the credentials this server sent. Retrying will not help; the server operator must fix the credentials.',
  402: 'Payment Required: the upstream account cannot perform this operation.',
  403: 'Forbidden: the credentials are valid but lack permission for this operation or resource.',
  404: 'Not Found: the resource does not exist or is not visible with these credentials; check the identifiers you passed.',
  405: 'Method Not Allowed: the upstream does not support this operation on that resource.',
  406: 'Not Acceptable: the upstream cannot produce the requested media type.',
  408: 'Request Timeout: the upstream timed out reading the request; retrying may help.',
  409: 'Conflict: the request conflicts with the current state of the resource; re-read it and adjust.',
  410: 'Gone: the resource no longer exists.',
  412: 'Precondition Failed: the resource changed since it was read.',
  413: 'Payload Too Large: send a smaller request body.',
  415: 'Unsupported Media Type: the upstream did not accept the request body format.',
  422: 'Unprocessable Entity: the arguments are well-formed but failed the upstream validation; see the problem details.',
  429: 'Too Many Requests: the upstream rate limit was hit.',
  500: 'Internal Server Error: the upstream failed while handling the request.',
  501: 'Not Implemented: the upstream does not support this operation.',
  502: 'Bad Gateway: a proxy in front of the upstream got an invalid answer.',
  503: 'Service Unavailable: the upstream is temporarily unavailable.',
  504: 'Gateway Timeout: a proxy in front of the upstream timed out.',
};

function reasonFor(status: number, sent: string | undefined): string {
  if (status === 401 && sent) {
    if (sent.startsWith('no credential')) return `Unauthorized: the upstream wants credentials, and this server sent ${sent}. Retrying will not help; the server operator must configure one.`;
    // A connected account's token was renewed once already (src/auth/upstream-security.ts): the connection is gone.
    if (sent.startsWith('the token of the account you connected')) return `Unauthorized: the upstream did not accept ${sent} (renewing it did not help). The account's connection may have been withdrawn at the API: sign in to this server again and reconnect the account.`;
    return `Unauthorized: the upstream did not accept ${sent}. Retrying will not help; the server operator must fix that credential.`;
  }
  return REASONS[status] ?? (status >= 500 ? 'The upstream failed to handle the request.' : 'The upstream rejected the request.');
}

/** Retry-After as seconds from now, from either the delta-seconds or the HTTP-date form. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const t = Date.parse(v);
  if (Number.isNaN(t)) return undefined;
  return Math.max(0, Math.ceil((t - now) / 1000));
}

function retryGuidance(status: number, retryAfter: string | null): string | undefined {
  const secs = parseRetryAfter(retryAfter);
  if (status === 429 || status === 503) {
    if (secs !== undefined) return `Retry after ${secs} second${secs === 1 ? '' : 's'} (Retry-After: ${retryAfter}); do not retry before then.`;
    return 'No Retry-After was given: wait a little (e.g. 30 seconds) before retrying, and do not retry in a tight loop.';
  }
  if (secs !== undefined) return `The upstream asks to wait ${secs} seconds before retrying (Retry-After: ${retryAfter}).`;
  if (status >= 500) return 'The request may be retried later; if the operation is not idempotent, check first whether it took effect.';
  return undefined;
}

/** Trims a problem body to something worth putting in front of a model. JSON is compacted; HTML is reduced to text. */
export function trimProblemBody(bytes: Uint8Array, contentType: string | null, max = MAX_PROBLEM_CHARS): string {
  let text = new TextDecoder().decode(bytes).trim();
  if (!text) return '';
  const ct = (contentType ?? '').toLowerCase();
  if (ct.includes('json') || /^[[{]/.test(text)) {
    try {
      text = JSON.stringify(JSON.parse(text));
    } catch {
      /* keep raw */
    }
  } else if (ct.includes('html') || /^<!doctype html|^<html/i.test(text)) {
    text = text
      .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
  }
  return truncateText(text, max);
}

/** Cuts text to `max` chars without splitting a surrogate pair, marking the cut. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}… [${text.length - end} more characters cut]`;
}

interface HttpErrorInfo {
  status: number;
  statusText: string;
  method: string;
  path: string;
  contentType: string | null;
  retryAfter: string | null;
  body: Uint8Array;
  bodyIncomplete?: boolean;
  /** What credentials the request carried (schemes, never values), for a 401's text. */
  credentialsSent?: string;
}

export function httpErrorResult(e: HttpErrorInfo): CallToolResult {
  const lines: string[] = [];
  const statusText = e.statusText ? ` ${e.statusText}` : '';
  lines.push(`Upstream error: HTTP ${e.status}${statusText} for ${e.method} ${cutQuote(e.path)}.`);
  lines.push(reasonFor(e.status, e.credentialsSent));
  const retry = retryGuidance(e.status, e.retryAfter);
  if (retry) lines.push(retry);
  const problem = trimProblemBody(e.body, e.contentType);
  if (problem) lines.push(`Upstream response body${e.bodyIncomplete ? ' (partial)' : ''}: ${problem}`);
  return errorResult(lines.join('\n'));
}
