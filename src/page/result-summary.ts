// What the catalogue page says about a tool's results (docs/results.md): what compaction removes from them (the
// tool's own link fields by name), the nested resources it shortens, the projection argument, where a list keeps its
// items and how it pages.
import type { CatalogueTool, JsonSchema } from '../catalogue/types.ts';
import type { ResultCatalogue } from '../results/options.ts';
import { isLinkField, originOf } from '../results/links.ts';

export interface ResultSummary {
  projection: string;
  compaction: 'on' | 'off';
  /** What compaction removes, in words. */
  drops: string[];
  /** Field patterns compaction never removes. */
  keeps: string[];
  /** Nested API resources shortened to their identifying fields by default (empty when compaction is off). */
  shortens: string[];
  list: string | null;
  paging: string | null;
}

/** Property names anywhere in `schema` that are links by name or declaration. */
function linkFieldsOf(schema: JsonSchema | undefined, linkFields: ReadonlySet<string>): string[] {
  const found = new Set<string>();
  const rules = { origins: new Set<string>(), linkFields };
  const walk = (node: unknown, parent: string | undefined, depth: number) => {
    if (!node || typeof node !== 'object' || depth > 20) return;
    if (Array.isArray(node)) return node.forEach((n) => walk(n, parent, depth + 1));
    const o = node as Record<string, unknown>;
    if (o.properties && typeof o.properties === 'object') {
      for (const [k, v] of Object.entries(o.properties)) {
        const t = (v as JsonSchema | undefined)?.type;
        if ((t === 'string' || (Array.isArray(t) && t.includes('string'))) && isLinkField(k, parent, rules)) found.add(k);
        walk(v, k, depth + 1);
      }
    }
    for (const k of ['items', 'anyOf', 'oneOf', 'allOf', 'additionalProperties']) walk(o[k], parent, depth + 1);
  };
  walk(schema, undefined, 0);
  return [...found].sort();
}

export function resultSummary(tool: CatalogueTool, catalogue: ResultCatalogue, compact: boolean, upstreamUrl?: string): ResultSummary | null {
  const shape = tool.result;
  if (!shape) return null;
  const rules = catalogue.results ?? { origins: [catalogue.defaultUpstream] };
  const origins = [...new Set([...rules.origins, ...(upstreamUrl ? [upstreamUrl] : [])].map(originOf).filter((o): o is string => Boolean(o)))];
  const links = linkFieldsOf(tool.outputSchema, new Set(rules.linkFields ?? []));
  const drops = compact
    ? [
        'null values; empty strings, arrays and objects',
        `links into the API itself (${origins.join(', ') || 'the upstream'}) or URI templates${links.length ? ` in ${links.join(', ')}` : ''}`,
        ...(rules.drop?.length ? [`fields matching ${rules.drop.join(', ')}`] : []),
      ]
    : [];
  const p = shape.paging;
  const paging = p
    ? [
        p.page && `page number ${p.page}`,
        p.size && `page size ${p.size}${p.itemTokens ? ' (chosen to fit the result budget when not given)' : ''}`,
        p.offset && `offset ${p.offset}`,
        p.after && `after-item cursor ${p.after}`,
        p.cursor && `cursor ${p.cursor}`,
      ]
        .filter(Boolean)
        .join(', ')
    : null;
  return {
    projection: shape.fields,
    compaction: compact ? 'on' : 'off',
    drops,
    keeps: rules.keep ?? [],
    shortens: compact ? (shape.embedded ?? []) : [],
    list: shape.items ? (shape.items === 'result' && tool.outputWrapped ? 'the result is a list' : `list items under "${shape.items}"`) : null,
    paging,
  };
}
