// The token report's annotations section: what stating every hint costs (tools/list carries readOnlyHint and
// destructiveHint on every tool, docs/confirmation.md), against listing only the hints that differ from MCP's
// defaults, and how the catalogue's tools divide into reads, additive writes and destructive ones.
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { WireTool } from '../../src/profiles/view.ts';

export interface AnnotationSection {
  tools: number;
  /** o200k tokens of every listed tool's `annotations`, summed (the whole catalogue, default profile). */
  tokens: number;
  /** The same, had hints equal to MCP's defaults been left out (readOnly false, destructive true, idempotent false, openWorld true) and the title too. */
  defaultsLeftOut: number;
  readOnly: number;
  /** Writes the generator found additive (or a state flipped back as easily). */
  additive: number;
  destructive: number;
}

/** Hints that differ from MCP's defaults: the form tools/list had before every hint was stated. */
function differing(a: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (a.readOnlyHint === true) out.readOnlyHint = true;
  if (a.readOnlyHint !== true && a.destructiveHint === false) out.destructiveHint = false;
  if (a.readOnlyHint !== true && a.idempotentHint === true) out.idempotentHint = true;
  if (a.openWorldHint === false) out.openWorldHint = false;
  return out;
}

export function annotationSection(all: WireTool[]): AnnotationSection {
  const tokens = (a: Record<string, unknown>) => (Object.keys(a).length ? encode(JSON.stringify({ annotations: a })).length : 0);
  const s: AnnotationSection = { tools: all.length, tokens: 0, defaultsLeftOut: 0, readOnly: 0, additive: 0, destructive: 0 };
  for (const t of all) {
    s.tokens += tokens(t.annotations);
    s.defaultsLeftOut += tokens(differing(t.annotations));
    if (t.annotations.readOnlyHint === true) s.readOnly++;
    else if (t.annotations.destructiveHint === true) s.destructive++;
    else s.additive++;
  }
  return s;
}

export function formatAnnotationSection(s: AnnotationSection): string[] {
  const n = (x: number) => x.toLocaleString('en-US');
  const per = (x: number) => (x / Math.max(1, s.tools)).toFixed(1);
  return [
    '## Annotations (every profile states readOnlyHint and destructiveHint)',
    '',
    `${n(s.tools)} tools: ${n(s.readOnly)} read-only, ${n(s.additive)} writes that only add (or flip a state back as easily), ${n(s.destructive)} destructive.`,
    `Their annotations take ${n(s.tokens)} tokens over the whole catalogue (${per(s.tokens)} per tool), ${n(s.tokens - s.defaultsLeftOut)} more than listing only the hints that differ from MCP's defaults (${per(s.defaultsLeftOut)} per tool). ` +
      'They are in the tools/list bytes above; the model-visible tokens leave them out, as most clients do not show them to the model.',
    '',
  ];
}
