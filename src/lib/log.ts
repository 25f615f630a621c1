// The one logger: one JSON line per event on console.log, which Workers Logs and `wrangler tail` index as fields.
// Every event name is listed here and described in docs/operations.md. Fields carry ids (a key's public id, a
// caller id), never a secret, an argument value or a filled-in URL.

type LogEvent =
  /** One per tools/call, from tools/list's tools and from discovery's call_tool alike. */
  | 'tool_call'
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
  /** A sampled result passed the outputSchema its client was shown but not the catalogue's full one (the API drifted). */
  | 'schema_drift'
  /** The tools/call fast path's bytes differed from the SDK's for one tool and result shape; the SDK answers those. */
  | 'tools_call_fast_path_disabled';

export function log(event: LogEvent, fields: Record<string, unknown> = {}): void {
  try {
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
