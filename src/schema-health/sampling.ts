// How drift from the catalogue's full outputSchema is still noticed when results are checked against the schema the
// client was shown.
//
// On the hot path (src/upstream/json-result.ts): the outputSchema the client was shown. Strict clients (the v1 SDK's
// Client, and every client built on it) validate structuredContent against the outputSchema of the tools/list they
// received, so that is the check that decides whether a result reaches the model. The listing's schema is the
// catalogue's compacted (src/profiles/listing-compaction.ts), and compaction only loosens, so everything valid against
// the full schema stays valid; checking the full schema instead would turn data a client accepts into an isError.
//
// Off the hot path: the first call of each tool per isolate, and every SAMPLE_EVERY-th after it, is also checked
// against the full schema; a difference is logged as `schema_drift` and counted for /admin/schema-health, so a
// changed API is still found before it breaks anything a client checks.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CatalogueTool } from '../catalogue/types.ts';
import { validate } from '../catalogue/validator.ts';
import { log } from '../lib/log.ts';

/** Full-schema checks: the first call of a tool per isolate, then one call in this many. */
export const SAMPLE_EVERY = 64;

/** The sampler's counts, per tool name: calls seen, and full-schema differences found. */
export interface SampleCounts {
  calls: Map<string, number>;
  drift: Map<string, number>;
}

/**
 * The sampled full-schema check of a result that passed `checked`, the schema the client was shown. Nothing to do
 * when that is the catalogue's own schema (code mode, or a listing that kept it whole).
 */
export function sampleFullSchema(counts: SampleCounts, tool: CatalogueTool, checked: unknown, result: CallToolResult): void {
  const structured = result.structuredContent;
  if (!tool.outputSchema || checked === tool.outputSchema || structured === undefined || result.isError) return;
  const n = counts.calls.get(tool.name) ?? 0;
  counts.calls.set(tool.name, n + 1);
  if (n % SAMPLE_EVERY !== 0) return;
  const check = validate(tool.outputSchema, structured, 3);
  if (check.valid) return;
  counts.drift.set(tool.name, (counts.drift.get(tool.name) ?? 0) + 1);
  log('schema_drift', { tool: tool.name, errors: check.errors });
}
