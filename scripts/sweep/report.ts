// Sweep report: the printed tables and --write-overrides.
import { existsSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { validateOverridesShape } from '../catalog/overrides.ts';
import { CLASSES, type CallClass } from './clients.ts';
import type { SweepReport, ToolReport } from './run.ts';

const SHORT: Record<CallClass, string> = {
  ok: 'ok',
  type_drift: 'type-drift',
  upstream_error: 'upstream',
  invalid_arguments: 'bad-args',
  schema_mismatch: 'mismatch',
  error_on_2xx: 'error-2xx',
  protocol_error: 'protocol',
  transport_failure: 'transport',
};

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')).join('\n');
}

/** Tools table (every tool when `all`, else only tools with a non-ok, non-upstream class) and totals by class. */
export function formatReport(r: SweepReport, all = false): string {
  const out: string[] = [];
  out.push(`sweep of ${r.spec} (${r.catalogue.title}): ${r.sampled} tools, ${r.calls} calls in ${(r.ms / 1000).toFixed(1)} s; ${r.confirmations ?? 0} destructive calls confirmed first (v2)`);
  for (const [name, l] of Object.entries(r.list)) out.push(`  ${name} listTools: ${l.ok ? `ok, ${l.tools} tools, ${l.ms} ms` : `FAILED ${l.error}`}`);
  const rules = r.listingProblems ?? [];
  out.push(`  listing rules (names, stated hints, inputSchemas): ${rules.length ? `${rules.length} problem(s)` : 'all kept'}`, ...rules.slice(0, 10).map((p) => `    ${p}`));
  out.push(
    `  outputSchema kept: ${r.catalogue.withOutputSchema}/${r.catalogue.jsonTools} JSON tools (${(r.catalogue.keptRatio * 100).toFixed(1)}%)`,
  );
  const d = r.drift;
  out.push(
    `  drift: ${d.jsonResponses} JSON responses (${d.matched} matched to a spec schema), ${d.extrasAdded} undeclared fields, ${d.mapEntries} new map keys, ` +
      `${d.nullsSet} nulls in nullable fields, ${d.strictNulls} in non-nullable ones, ${d.unknownEnums} unknown enum values, ${d.numbersAsStrings} numbers as strings`,
  );
  const interesting = (t: ToolReport) => all || CLASSES.some((c) => c !== 'ok' && c !== 'upstream_error' && c !== 'type_drift' && t.counts[c] > 0);
  const rows = r.tools.filter(interesting);
  out.push('');
  if (rows.length) {
    out.push(
      table([
        ['tool', 'schema', ...CLASSES.map((c) => SHORT[c]), 'gen-invalid'],
        ...rows.map((t) => [t.tool, t.hasOutputSchema ? 'yes' : '-', ...CLASSES.map((c) => String(t.counts[c])), String(t.invalidArgSets)]),
      ]),
    );
    if (!all && rows.length < r.tools.length) out.push(`(${r.tools.length - rows.length} tools with only ok/upstream results not shown; --all shows them)`);
    out.push('');
  } else out.push('every call was ok or an upstream error');
  out.push(table([['class', 'calls', 'share'], ...CLASSES.map((c) => [SHORT[c], String(r.totals[c]), r.calls ? `${((r.totals[c] / r.calls) * 100).toFixed(1)}%` : '-'])]));
  const failing = r.tools.filter((t) => t.examples.some((e) => e.class !== 'ok' && e.class !== 'upstream_error' && e.class !== 'type_drift'));
  if (failing.length) {
    out.push('', 'examples:');
    for (const t of failing.slice(0, 15)) {
      const e = t.examples.find((x) => x.class !== 'upstream_error')!;
      out.push(`  ${t.tool} [${e.client} variant ${e.variant}] ${e.class}${e.side ? ` (${e.side})` : ''}: ${(e.detail ?? '').replace(/\s+/g, ' ').slice(0, 240)}`);
    }
  }
  out.push('');
  out.push(
    r.failed
      ? r.errorOn2xxTools.length
        ? `RESULT: FAILED (isError for an upstream success in ${r.errorOn2xxTools.length} tool(s): ${r.errorOn2xxTools.join(', ')}${r.totals.protocol_error + r.totals.transport_failure ? '; and protocol/transport failures' : ''})`
        : (r.listingProblems ?? []).length && !(r.totals.protocol_error + r.totals.transport_failure)
          ? 'RESULT: FAILED (the listing breaks a client rule)'
          : 'RESULT: FAILED (protocol/transport failure or a client could not list the tools)'
      : r.failingSchemaTools.length
        ? `RESULT: ${r.failingSchemaTools.length} tool(s) advertise an outputSchema their results fail: ${r.failingSchemaTools.join(', ')}`
        : `RESULT: ok (no protocol or transport failures, no isError on an upstream success; every advertised outputSchema held${r.totals.type_drift ? `, except for ${r.totals.type_drift} bodies with injected type drift, delivered as successes beside it` : ''})`,
  );
  return out.join('\n');
}

interface OverrideChange {
  key: string;
  tool: string;
  reason: string;
}

/** The reason written for a tool whose results failed its schema. Carries the date (the overrides format has no date field). */
export function dropReason(t: ToolReport, date: string): string {
  const total = CLASSES.reduce((a, c) => a + t.counts[c], 0);
  const ex = t.examples.find((e) => e.class === 'schema_mismatch');
  const why = (ex?.detail ?? '').replace(/\s+/g, ' ').replace(/^.*?(output schema[^(]*\()/i, '(').slice(0, 160);
  return `sweep ${date}: ${t.counts.schema_mismatch}/${total} results failed the open outputSchema under drift${why ? ` ${why}` : ''}`;
}

/** Adds outputSchema:false + reason for every failing tool; keeps everything else in the file. Returns the changes. */
export async function writeOverrides(path: string, r: SweepReport, now = new Date()): Promise<OverrideChange[]> {
  const date = now.toISOString().slice(0, 10);
  const raw = existsSync(path) ? JSON.parse(await readFile(path, 'utf8')) : { tools: {} };
  raw.tools ??= {};
  const changes: OverrideChange[] = [];
  for (const t of r.tools) {
    if (!t.hasOutputSchema || t.counts.schema_mismatch === 0) continue;
    const prev = raw.tools[t.overrideKey] ?? {};
    if (prev.outputSchema === false) continue;
    const reason = dropReason(t, date);
    raw.tools[t.overrideKey] = { ...prev, outputSchema: false, reason };
    changes.push({ key: t.overrideKey, tool: t.tool, reason });
  }
  if (!changes.length) return changes;
  const sorted = Object.fromEntries(Object.entries(raw.tools).sort(([a], [b]) => a.localeCompare(b)));
  const next = { ...raw, tools: sorted };
  validateOverridesShape(next, path);
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, JSON.stringify(next, null, 2) + '\n');
  await rename(tmp, path);
  return changes;
}
