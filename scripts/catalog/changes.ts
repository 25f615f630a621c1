// What changed between two catalogues, tool by tool (matched by METHOD path), for --check and report.md.
import type { Catalogue, CatalogueTool, JsonSchema } from '../../src/catalogue/types.ts';
import { sortKeys } from './sort-keys.ts';

export interface ChangeSummary {
  added: string[];
  removed: string[];
  renamed: { from: string; to: string }[];
  /** Input changes that break existing callers: removed args, newly required args, changed arg types. */
  breakingInput: { tool: string; change: string }[];
  outputChanged: string[];
  descriptionChanged: string[];
  bindingChanged: string[];
  identical: boolean;
}

const opKey = (t: CatalogueTool) => `${t.http.method} ${t.http.path}`;
// Key order differs between a freshly built catalogue and one parsed from disk; compare canonical forms.
const canon = (v: unknown): string => JSON.stringify(sortKeys(v));

export function diffCatalogues(prev: Catalogue, next: Catalogue): ChangeSummary {
  const pm = new Map(prev.tools.map((t) => [opKey(t), t]));
  const nm = new Map(next.tools.map((t) => [opKey(t), t]));
  const s: ChangeSummary = { added: [], removed: [], renamed: [], breakingInput: [], outputChanged: [], descriptionChanged: [], bindingChanged: [], identical: true };
  for (const [k, t] of nm) if (!pm.has(k)) s.added.push(t.name);
  for (const [k, t] of pm) if (!nm.has(k)) s.removed.push(t.name);
  for (const [k, n] of nm) {
    const p = pm.get(k);
    if (!p) continue;
    if (p.name !== n.name) s.renamed.push({ from: p.name, to: n.name });
    const pp = (p.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
    const np = (n.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
    const preq = new Set((p.inputSchema.required as string[]) ?? []);
    const nreq = new Set((n.inputSchema.required as string[]) ?? []);
    for (const a of Object.keys(pp)) if (!(a in np)) s.breakingInput.push({ tool: n.name, change: `argument ${a} removed` });
    for (const a of nreq) if (!preq.has(a)) s.breakingInput.push({ tool: n.name, change: `argument ${a} now required` });
    for (const a of Object.keys(np)) {
      if (a in pp && canon(pp[a]!.type) !== canon(np[a]!.type)) s.breakingInput.push({ tool: n.name, change: `argument ${a} type ${JSON.stringify(pp[a]!.type)} -> ${JSON.stringify(np[a]!.type)}` });
      const pe = pp[a]?.enum as unknown[] | undefined;
      const ne = np[a]?.enum as unknown[] | undefined;
      if (pe && ne && pe.some((v) => !ne.map((x) => JSON.stringify(x)).includes(JSON.stringify(v)))) s.breakingInput.push({ tool: n.name, change: `argument ${a} enum narrowed` });
    }
    if (canon(p.outputSchema) !== canon(n.outputSchema) || p.outputWrapped !== n.outputWrapped) s.outputChanged.push(n.name);
    if (p.description !== n.description || p.title !== n.title) s.descriptionChanged.push(n.name);
    if (canon(p.http) !== canon(n.http)) s.bindingChanged.push(n.name);
  }
  for (const k of Object.keys(s) as (keyof ChangeSummary)[]) {
    const v = s[k];
    if (Array.isArray(v)) v.sort((a: any, b: any) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  }
  s.identical = canon({ ...prev, hash: undefined }) === canon({ ...next, hash: undefined });
  return s;
}

/** Markdown bullets, at most `max` of them. */
export const bulletList = (xs: string[], max = 50) => (xs.length ? xs.slice(0, max).map((x) => `- ${x}`).join('\n') + (xs.length > max ? `\n- … and ${xs.length - max} more` : '') : '- none');

export function changeSummaryText(c: ChangeSummary, max = 30): string {
  const lines: string[] = [];
  lines.push(`added ${c.added.length}, removed ${c.removed.length}, renamed ${c.renamed.length}, breaking input changes ${c.breakingInput.length}, output schema changes ${c.outputChanged.length}, description changes ${c.descriptionChanged.length}, binding changes ${c.bindingChanged.length}`);
  const sect = (h: string, xs: string[]) => {
    if (xs.length) lines.push(`${h}:\n${bulletList(xs, max)}`);
  };
  sect('added', c.added);
  sect('removed', c.removed);
  sect('renamed', c.renamed.map((r) => `${r.from} -> ${r.to}`));
  sect('breaking input changes', c.breakingInput.map((b) => `${b.tool}: ${b.change}`));
  sect('output schema changed', c.outputChanged);
  sect('binding changed', c.bindingChanged);
  return lines.join('\n');
}
