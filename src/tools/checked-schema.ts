// Which outputSchema a tool call's structuredContent is checked against, and how drift from the catalogue's full schema
// is still noticed.
//
// On the hot path: the outputSchema the client was shown. Strict clients (the v1 SDK's Client, and every client
// built on it) validate structuredContent against the outputSchema of the tools/list they received, so that is the
// check that decides whether a result reaches the model. The listing's schema is the catalogue's compacted
// (src/profiles/compact.ts), and compaction only loosens, so everything valid against the full schema stays valid;
// checking the full schema instead would turn data a client accepts into an isError, and costs far more (a few µs
// against about 0.3 ms for GitHub's user schema with its two anyOf branches, measured in docs/benchmarks.md).
//
// Off the hot path: the first call of each tool per isolate, and every SAMPLE_EVERY-th after it, is also checked
// against the full schema; a difference is logged as `schema_drift` and counted for /admin/schema-health, so a
// changed API is still found before it breaks anything a client checks.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CatalogueTool } from '../catalogue/types.ts';
import { validate } from '../catalogue/validator.ts';
import { log } from '../lib/log.ts';
import { PROFILES } from '../profiles/profiles.ts';
import { viewOf } from '../profiles/view.ts';
import type { RequestScope } from './scope.ts';

/** Full-schema checks: the first call of a tool per isolate, then one call in this many. */
export const SAMPLE_EVERY = 64;

/**
 * The tool with the outputSchema its caller was shown. Content-only profiles are shown none, but their result is
 * still shaped by one (the {result} wrap), so they get the default listing's. Discovery's call_tool returns results
 * checked against the catalogue's own schema, which describe_tool hands out.
 */
export function withListedSchema(scope: RequestScope, tool: CatalogueTool): CatalogueTool {
  if (scope.mode !== 'tools' || !tool.outputSchema) return tool;
  const i = scope.catalogue.indexOf(tool.name);
  if (i === undefined) return tool;
  const profile = scope.profile.carry === 'both' ? scope.profile : PROFILES.default;
  const listed = viewOf(scope.catalogue, scope.slice, profile).advertised(i);
  return listed && listed !== tool.outputSchema ? { ...tool, outputSchema: listed } : tool;
}

/** Per-tool calls seen and full-schema differences found, per isolate (shown by /admin/schema-health). */
const calls = new Map<string, number>();
export const schemaDriftCounts = new Map<string, number>();

/** The sampled full-schema check of a result that passed the listed schema. */
export function sampleFullSchema(tool: CatalogueTool, result: CallToolResult): void {
  const structured = result.structuredContent;
  if (!tool.outputSchema || structured === undefined || result.isError) return;
  const n = calls.get(tool.name) ?? 0;
  calls.set(tool.name, n + 1);
  if (n % SAMPLE_EVERY !== 0) return;
  const check = validate(tool.outputSchema, structured, 3);
  if (check.valid) return;
  schemaDriftCounts.set(tool.name, (schemaDriftCounts.get(tool.name) ?? 0) + 1);
  log('schema_drift', { tool: tool.name, errors: check.errors });
}
