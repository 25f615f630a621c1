// Deprecated aliases (docs/naming.md): when a regeneration renames a tool (same "METHOD path", new name), the
// old name stays in the tool's `aliases` for one catalogue version, so tools/call keeps accepting it while
// tools/list shows only the new name. A catalogue version ends when the catalogue changes in anything but
// aliases; rebuilding the same catalogue again keeps the aliases, so `--check` compares like with like.
// Aliases from overrides (hand renames) are not touched here: they come back on every build.
import type { Catalogue, CatalogueTool } from '../../src/catalogue/types.ts';
import { sortKeys } from './serialize.ts';

export interface Rename {
  /** "METHOD path" */
  op: string;
  from: string;
  to: string;
}

export interface AliasReport {
  /** Every deprecated alias the catalogue now carries (old name -> current name). */
  deprecated: Rename[];
  /** Old names that could not be kept because another tool now has that name or alias. */
  skipped: Rename[];
}

const opKey = (t: CatalogueTool) => `${t.http.method} ${t.http.path}`;

/** The catalogue without aliases or hash: what decides whether two builds are one catalogue version. */
function versionText(cat: Catalogue): string {
  const { hash: _h, ...rest } = cat as Catalogue & { hash?: string };
  return JSON.stringify(sortKeys({ ...rest, tools: [...rest.tools].map(({ aliases: _a, ...t }) => t).sort((a, b) => (opKey(a as CatalogueTool) < opKey(b as CatalogueTool) ? -1 : 1)) }));
}

/** Adds the previous catalogue's names (renames, and still-current deprecated aliases) to `cat`'s tools. */
export function keepRenamedAliases(cat: Catalogue, previous: Catalogue | undefined): AliasReport {
  const report: AliasReport = { deprecated: [], skipped: [] };
  if (!previous || !Array.isArray(previous.tools)) return report;
  const sameVersion = versionText(previous) === versionText(cat);
  const prevByOp = new Map(previous.tools.map((t) => [opKey(t), t]));
  const used = new Set(cat.tools.flatMap((t) => [t.name, ...(t.aliases ?? [])]));
  for (const t of cat.tools) {
    const p = prevByOp.get(opKey(t));
    if (!p) continue;
    const handAliases = new Set(t.aliases ?? []);
    const old = [...(p.name !== t.name ? [p.name] : []), ...(sameVersion ? (p.aliases ?? []) : [])].filter((a) => a !== t.name && !handAliases.has(a));
    for (const from of [...new Set(old)].sort()) {
      const r = { op: opKey(t), from, to: t.name };
      if (used.has(from)) {
        report.skipped.push(r);
        continue;
      }
      used.add(from);
      t.aliases = [...(t.aliases ?? []), from].sort();
      report.deprecated.push(r);
    }
  }
  const byFrom = (a: Rename, b: Rename) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0);
  report.deprecated.sort(byFrom);
  report.skipped.sort(byFrom);
  return report;
}
