// The one logger: one JSON line per event on console.log, which Workers Logs and `wrangler tail` index as fields.
// Every event name is listed here and described in docs/operations.md. Fields carry ids (a key's public id, a
// caller id), never a secret, an argument value or a filled-in URL.

type LogEvent =
  /** One per tools/call, from tools/list's tools and from discovery's call_tool alike. */
  | 'tool_call'
  /** A step of a confirmation before a call (src/tools/confirm.ts): asked, accepted, declined, refused, invalid_state. */
  | 'tool_confirm'
  /** A call refused before the upstream for the key's concurrency (src/tools/call-slots.ts), or cancelled while it waited. */
  | 'tool_refused'
  /** A known key was refused (expired, revoked, no upstream credential). Unknown keys are not logged. */
  | 'auth_refused'
  | 'rate_limited'
  /** The rate limiter could not be reached; the request was let through. */
  | 'rate_limit_error'
  /** A secret or binding the credential mode needs is missing or unusable. */
  | 'config_error'
  /** An optional binding is absent; logged once per isolate. */
  | 'binding_missing'
  | 'key_record_invalid'
  | 'key_touch_failed'
  /** Errors the MCP SDK reports (rejected requests, factory or transport failures). */
  | 'mcp_error'
  /** An unhandled error in a route (answered 500). */
  | 'http_error'
  | 'tools_list_fast_path_disabled'
  /** The worker dropped a tool's outputSchema by itself (src/schema-health/autodrop.ts); once per drop. */
  | 'schema_auto_drop'
  /** Counting an output-schema mismatch failed; the call went on. */
  | 'schema_counter_error'
  /** A sampled result passed the outputSchema its client was shown but not the catalogue's full one (the API drifted). */
  | 'schema_drift'
  /** The tools/call fast path's bytes differed from the SDK's for one tool and result shape; the SDK answers those. */
  | 'tools_call_fast_path_disabled'
  /** One per code-mode execute: outcome, api calls, time, program length (never the program or its values). */
  | 'codemode_execute'
  /** A code-mode api call failed inside the host (a bug; the program saw a generic error). */
  | 'codemode_call_error'
  /** A code-mode execute refused for a concurrency cap (per key or per isolate), with which. */
  | 'codemode_refused'
  /** catalog/declarations.txt was built from another catalogue than the one served; once per isolate. */
  | 'declarations_stale'
  /** A sharded catalogue's declarations asset could not be read; code mode's search answers untyped meanwhile. */
  | 'declarations_unavailable'
  /** An OAuth access token was refused: its key was revoked, expired or changed, or the grant is unusable. */
  | 'oauth_refused'
  /** The OAuth library refused a request (token, registration, authorization); code and reason, never a value. */
  | 'oauth_error'
  /** A per-IP OAuth limiter (key attempts, registrations, consent pages) could not be reached; fails closed. */
  | 'oauth_limiter_error'
  /** A client IP went over an OAuth per-IP limit (bucket: consent, register or authorize). */
  | 'oauth_ip_limited'
  /** A spent refresh token was presented: its grant was revoked (RFC 9700 §4.14.2). */
  | 'oauth_refresh_reused'
  /** A refresh was retried within the retry window and got the same answer again. */
  | 'oauth_refresh_retried'
  /** A spent refresh token could not be recorded; only the grant's previous token is recognised as spent. */
  | 'oauth_refresh_record_failed'
  /** A refused exchange of a real authorization code used the code up (its grant was revoked). */
  | 'oauth_code_used_up'
  /** A user connected (or failed to connect) their upstream account on the consent page: scheme and outcome. */
  | 'upstream_connect'
  /** A connected account's upstream token was refreshed, or its refresh failed: grant, scheme and outcome. */
  | 'upstream_refresh'
  /** A usage flush could not write its batch; the cells wait for a later flush (src/usage, docs/usage.md). */
  | 'usage_flush_failed'
  /** Usage the metering had to drop (refused row, store down too long, memory full); counted in usage_loss. */
  | 'usage_lost'
  /** The hourly retention cleanup of the usage store ran (cron trigger). */
  | 'usage_cleanup'
  | 'usage_cleanup_failed'
  /** One per scheduled check of the live spec against the catalogue's (src/spec-drift/check.ts); never a secret. */
  | 'spec_drift_check';

/** The longest string field a log line keeps: an error text can quote what a client sent (a 200 KB header did). */
const MAX_FIELD_CHARS = 2_000;

export function log(event: LogEvent, fields: Record<string, unknown> = {}): void {
  try {
    for (const [k, v] of Object.entries(fields)) if (typeof v === 'string' && v.length > MAX_FIELD_CHARS) fields = { ...fields, [k]: `${v.slice(0, MAX_FIELD_CHARS)}… (${v.length - MAX_FIELD_CHARS} characters cut)` };
    console.log(JSON.stringify({ event, ...fields }));
  } catch {
    /* a log line must never fail a request */
  }
}

const logged = new Set<string>();

/** Logs an event at most once per isolate for a given `once` key. */
export function logOnce(once: string, event: LogEvent, fields: Record<string, unknown> = {}): void {
  if (logged.has(once)) return;
  logged.add(once);
  log(event, fields);
}
