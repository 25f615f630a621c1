// Deprecated aliases (docs/naming.md): when a regeneration renames a tool (same "METHOD path", new name), the
// old name stays in the tool's `aliases`, so tools/call keeps accepting it while tools/list shows only the new name.
// An alias lives as long as the spec it was made from: every regeneration from the same spec (source.version and
// digest) keeps it, whatever the generator or the overrides change, so renames by our own generator reach a
// deployment; the first regeneration from another spec version drops it. `--check` rebuilds against the committed
// catalogue from the same spec, so it compares like with like.
// Aliases from overrides (hand renames) are not touched here: they come back on every build.
import type { Catalogue, CatalogueTool } from '../../src/catalogue/types.ts';

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

/**
 * The spec a catalogue was built from. Catalogues written before the digest was recorded are known by their
 * source.version alone.
 */
function sameSpec(a: Catalogue['source'] | undefined, b: Catalogue['source']): boolean {
  if (!a || a.version !== b.version) return false;
  return a.digest === undefined || a.digest === b.digest;
}

/** Adds the previous catalogue's names (renames, and still-current deprecated aliases) to `cat`'s tools. */
export function keepRenamedAliases(cat: Catalogue, previous: Catalogue | undefined): AliasReport {
  const report: AliasReport = { deprecated: [], skipped: [] };
  if (!previous || !Array.isArray(previous.tools)) return report;
  const keepOld = sameSpec(previous.source, cat.source);
  const prevByOp = new Map(previous.tools.map((t) => [opKey(t), t]));
  const used = new Set(cat.tools.flatMap((t) => [t.name, ...(t.aliases ?? [])]));
  for (const t of cat.tools) {
    const p = prevByOp.get(opKey(t));
    if (!p) continue;
    const handAliases = new Set(t.aliases ?? []);
    const old = [...(p.name !== t.name ? [p.name] : []), ...(keepOld ? (p.aliases ?? []) : [])].filter((a) => a !== t.name && !handAliases.has(a));
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
