// Everything one bench run found: table rows, raw figures (--json), per-section method notes and section errors.
import type { Section } from './plan.ts';

interface Row {
  section: Section;
  measure: string;
  result: string;
  target?: string;
  verdict?: string;
  reproduce: string;
}

/** One line of the targets table: a headline figure next to its target, measured in this run. */
interface TargetRow {
  section: Section;
  measure: string;
  result: string;
  target: string;
  verdict: string;
}

export class BenchResults {
  readonly rows: Row[] = [];
  readonly targets: TargetRow[] = [];
  readonly raw: Record<string, unknown> = {};
  readonly notes = new Map<Section, string[]>();
  readonly errors: { section: Section; error: string }[] = [];

  row(r: Row): void {
    this.rows.push(r);
  }

  target(t: TargetRow): void {
    this.targets.push(t);
  }

  note(s: Section, text: string): void {
    const list = this.notes.get(s) ?? [];
    list.push(text);
    this.notes.set(s, list);
  }

  error(s: Section, message: string): void {
    this.errors.push({ section: s, error: message });
  }

  /** Whether the section produced a row or an error already. */
  reported(s: Section): boolean {
    return this.rows.some((r) => r.section === s) || this.errors.some((e) => e.section === s);
  }
}
