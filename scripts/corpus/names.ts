// What a client and a model read of each built catalogue (docs/sweep.md, "Corpus check"): the name-quality measures
// of `npm run catalog -- --report` (name-quality.ts: name smells, HTTP-verb names, titles that are not titles) over
// the built tools, with the spec's own operationIds, so a draw shows where names still echo the machinery that made
// the spec. A spec over a target is listed for a look, as tools without valid arguments are.
import { readCatalogueDir } from '../catalog/catalogue-files.ts';
import { NAME_SMELLS } from '../catalog/name-smells.ts';
import { NAME_TARGETS, nameQuality, namedTools, specOperationIds } from '../catalog/name-quality.ts';
import { loadSpec } from '../catalog/spec-loader.ts';

export interface NameOutcome {
  tools: number;
  /** Tools with any name smell, and the count of each smell (name-smells.ts). */
  smelly: number;
  by: Record<string, number>;
  httpVerbNames: number;
  badTitles: number;
  /** One line per measure over its target, with examples. */
  problems: string[];
}

/** The name-quality measures of the catalogue built in `dir` from `specFile`. */
export async function nameOutcome(dir: string, specFile: string): Promise<NameOutcome> {
  const catalogue = await readCatalogueDir(dir);
  const { doc } = await loadSpec(specFile);
  const q = nameQuality(namedTools(catalogue.tools, specOperationIds(doc as { paths?: Record<string, unknown> })));
  const share = (n: number) => n / Math.max(1, q.tools);
  const pct = (n: number) => `${(100 * share(n)).toFixed(1)}%`;
  const problems: string[] = [];
  if (share(q.smells.smelly) > NAME_TARGETS.smells) {
    const kinds = NAME_SMELLS.filter((s) => q.smells.by[s.smell]).map((s) => `${s.label} ${q.smells.by[s.smell]}`).join(', ');
    problems.push(`name smells ${q.smells.smelly} of ${q.tools} (${pct(q.smells.smelly)}): ${kinds}; e.g. ${q.smells.examples.slice(0, 3).map((e) => `${e.name} "${e.title}" (${e.smells.join(', ')})`).join('; ')}`);
  }
  if (share(q.httpVerbNames.length) > NAME_TARGETS.httpVerbNames) problems.push(`HTTP-verb names ${q.httpVerbNames.length} of ${q.tools}: ${q.httpVerbNames.slice(0, 3).join(', ')}`);
  if (share(q.badTitles.length) > NAME_TARGETS.badTitles) problems.push(`titles that are not titles ${q.badTitles.length} of ${q.tools}: ${q.badTitles.slice(0, 3).map((b) => `${b.name} (${b.problem}) "${b.title}"`).join('; ')}`);
  return { tools: q.tools, smelly: q.smells.smelly, by: { ...q.smells.by }, httpVerbNames: q.httpVerbNames.length, badTitles: q.badTitles.length, problems };
}
