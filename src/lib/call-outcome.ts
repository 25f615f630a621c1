// How one tool call ended: the one taxonomy the executor records, the tool_call log line carries and usage metering
// counts (src/usage/schema.ts adds the refusals, `rate_limited` and `out_of_scope`, requests that ran no tool). The order is the usage
// table's column order (migrations/0001_usage.sql): append, never reorder.
export const CALL_OUTCOMES = [
  'ok',
  'invalid_arguments',
  'upstream_4xx',
  'upstream_5xx',
  'timeout',
  'schema_mismatch',
  'invalid_json',
  'network_error',
  'too_large',
  'redirect_not_followed',
  'internal_error',
  // migrations/0003: the tool needs an upstream credential the server does not have or could not obtain; nothing sent.
  'no_credential',
] as const;

export type CallOutcome = (typeof CALL_OUTCOMES)[number];
