// report.md: counts, the change summary, dropped output schemas and lossy-conversion warnings of one build.
import type { BuildReport } from './build.ts';
import { bulletList, changeSummaryText } from './changes.ts';

export function reportMarkdown(r: BuildReport): string {
  const out: string[] = [];
  out.push(`# Catalogue report`, '');
  out.push(`- spec: \`${r.spec}\` (OpenAPI ${r.openapi})`);
  out.push(`- operations: ${r.operations}; tools: ${r.tools}; hidden: ${r.hidden.length}`);
  out.push(`- output schemas: ${r.withOutputSchema} (${r.wrappedOutputs} wrapped as {result}); without: ${r.withoutOutputSchema}`);
  out.push(`- catalogue: ${r.bytes} bytes (gzip ${r.gzipBytes}), hash \`${r.hash}\``);
  const l = r.layout;
  const where = l.shards ? `sharded: catalog.txt plus ${l.shards} shard files (static assets)` : 'one Text module';
  out.push(`- layout: ${where}; index ${l.indexBytes} bytes; ${l.tableEntries} shared subtrees; largest record ${l.largestRecord.bytes} bytes (${l.largestRecord.tool})`);
  out.push(`- search index: ${r.search.bytes} bytes (${((100 * r.search.bytes) / Math.max(1, r.bytes - r.search.bytes)).toFixed(1)}% on top of the rest of the catalogue)`, '');
  out.push(...annotationsSection(r.annotations));
  out.push(...namesSection(r.names));
  out.push(...securitySection(r.security));
  if (r.changes) {
    out.push('## Changes since the previous catalogue', '', '```', changeSummaryText(r.changes, 100), '```', '');
  }
  out.push('## Dropped output schemas', '', bulletList(r.dropped.map((d) => `${d.tool}: ${d.reason}`), 200), '');
  out.push('## Lossy conversions', '');
  const kinds = Object.entries(r.warnings);
  if (!kinds.length) out.push('- none');
  for (const [k, g] of kinds) {
    out.push(`### ${k} (${g.count})`, '', ...g.examples.map((e) => `- ${e}`), '');
  }
  return out.join('\n') + '\n';
}

function namesSection(n: import('./build.ts').BuildReport['names']): string[] {
  const out = ['## Tool names', ''];
  out.push(`- budget: ${n.budget} characters (docs/naming.md); shortened by meaning: ${n.shortened}`);
  out.push(`- hashed names (last resort): ${n.hashed.length}`);
  out.push(`- deprecated aliases (renamed tools; the old name still works in tools/call until a regeneration from another spec version): ${n.deprecated.length}`, '');
  if (n.hashed.length) out.push('### Hashed names', '', ...n.hashed.map((h) => `- ${h}`), '');
  if (n.deprecated.length) out.push('### Renames kept as deprecated aliases', '', ...n.deprecated.map((d) => `- ${d.from} -> ${d.to} (${d.op})`), '');
  if (n.skipped.length) out.push('### Renames without an alias (the old name now belongs to another tool)', '', ...n.skipped.map((d) => `- ${d.from} -> ${d.to} (${d.op})`), '');
  return out;
}

/** docs/confirmation.md: reads, writes per method and how many are destructive, and the writes read against their method. */
function annotationsSection(a: BuildReport['annotations']): string[] {
  const writes = Object.entries(a.writes).sort(([x], [y]) => (x < y ? -1 : 1));
  const out = ['## Annotations', ''];
  out.push(`- read-only: ${a.readOnly}; writes: ${writes.map(([m, [keep, destroy]]) => `${m} ${keep + destroy} (${destroy} destructive)`).join(', ') || 'none'}`);
  out.push(`- writes read against their method (a POST destructive, a PUT or PATCH not): ${a.againstMethod.length}`, '');
  if (a.againstMethod.length) out.push(...a.againstMethod.map((w) => `- ${w.tool} (${w.method}): ${w.destructive ? 'destructive' : 'not destructive'}, by ${w.basis}`), '');
  return out;
}

/** The spec's security schemes, what the Worker sends for each, and those it cannot (docs/upstream-auth.md). */
function securitySection(s: BuildReport['security']): string[] {
  const out = ['## Upstream security', ''];
  if (!s.schemes.length) return [...out, '- the spec declares no security scheme: the upstream gets the deployment\'s one credential, if any (UPSTREAM_TOKEN)', ''];
  out.push(`- schemes (configure each by name: UPSTREAM_CREDENTIALS, --credential NAME=VALUE): ${s.schemes.length}`, ...s.schemes.map((x) => `  - ${x}`));
  out.push(`- operations that need no credential (security: []): ${s.publicOperations}; with requirements of their own: ${s.ownRequirements}`);
  if (s.inferredDefault) out.push('- the spec declares schemes but no security requirement: each configured scheme is sent, and no call is refused for want of one');
  out.push(`- unsupported (calls that need only these are refused, naming the scheme): ${s.unsupported.length ? '' : 'none'}`, ...s.unsupported.map((u) => `  - ${u.scheme}: ${u.reason}`), '');
  return out;
}
