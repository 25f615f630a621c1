// `npm run catalog -- --if-changed [--fail-on-breaking]`: the reviewed step from a moved spec to a deploy
// (docs/deploy.md, "Keeping a deployment fresh"). --if-changed reads the spec, and when its digest is the one in the
// committed catalogue's header, prints "unchanged" and writes nothing; otherwise the CLI regenerates as usual and
// this module prints a summary of the changes on stdout. --fail-on-breaking turns removed tools and breaking input
// changes into exit status 1 (the files are written either way, so a pull request can show them).
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { BuildReport } from './build.ts';
import { changeSummaryText, type ChangeSummary } from './changes.ts';
import { loadSpec } from './spec-loader.ts';

/** The committed catalogue's source, from its header line alone. Undefined when there is none or it cannot be read. */
export function previousSource(previousText: string | null): { spec: string; digest?: string; version: string } | undefined {
  if (previousText === null) return undefined;
  try {
    return loadCatalogue(previousText).catalogue.source;
  } catch {
    return undefined;
  }
}

/**
 * Whether the spec is the one the committed catalogue was built from: same digest (keys sorted, so reformatting does
 * not count). Only the spec is compared; a generator or overrides change is what `--check` catches.
 */
export async function specUnchanged(spec: string, previousText: string | null): Promise<{ unchanged: boolean; digest: string; previous?: string }> {
  const { digest } = await loadSpec(spec);
  const previous = previousSource(previousText)?.digest;
  return { unchanged: previous === digest, digest, previous };
}

/** What breaks existing callers: tools removed, and input changes that break calls (docs/generator.md, report.md). */
export function breakingChanges(changes: ChangeSummary | undefined): string[] {
  if (!changes) return [];
  return [...changes.removed.map((t) => `${t}: removed`), ...changes.breakingInput.map((b) => `${b.tool}: ${b.change}`)];
}

/** The stdout summary of a regeneration under --if-changed / --fail-on-breaking. */
export function refreshSummary(report: BuildReport, previous: { digest?: string; version: string } | undefined, reportFile: string, version: string, digest: string): string {
  const breaking = breakingChanges(report.changes);
  const lines = [
    `changed: ${report.spec} ${previous ? `${previous.version} (${previous.digest ?? 'no digest'}) -> ` : ''}${version} (${digest})`,
    report.changes ? changeSummaryText(report.changes, 20) : 'no previous catalogue to compare with',
    breaking.length ? `breaking: ${breaking.length}\n${breaking.slice(0, 20).map((b) => `- ${b}`).join('\n')}${breaking.length > 20 ? `\n- … and ${breaking.length - 20} more` : ''}` : 'breaking: none',
    `report: ${reportFile}`,
  ];
  return `${lines.join('\n')}\n`;
}
