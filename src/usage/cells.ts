// The aggregator's cells by hour, key and tool. Nested maps keyed by the caller's own strings, with the current
// hour's map at hand, so the hot path does two lookups and builds no composite key string.
import { newCell, type UsageCell } from './rows.ts';

type ByKey = Map<string, Map<string, UsageCell>>;

export class CellTable {
  size = 0;
  private readonly hours = new Map<number, ByKey>();
  private lastStart = NaN;
  private last: ByKey | undefined;

  /** The cell for (start, key, tool), made when absent unless the table already holds `max` cells. */
  cell(start: number, keyId: string, tool: string, max: number): UsageCell | undefined {
    let byKey = this.last;
    if (start !== this.lastStart || !byKey) {
      byKey = this.hours.get(start);
      if (!byKey) this.hours.set(start, (byKey = new Map()));
      this.last = byKey;
      this.lastStart = start;
    }
    let byTool = byKey.get(keyId);
    if (!byTool) byKey.set(keyId, (byTool = new Map()));
    let c = byTool.get(tool);
    if (!c) {
      if (this.size >= max) return undefined;
      byTool.set(tool, (c = newCell(start, keyId, tool)));
      this.size++;
    }
    return c;
  }

  /** The cell already held for `c`'s hour, key and tool. */
  find(c: UsageCell): UsageCell | undefined {
    return this.hours.get(c.start)?.get(c.keyId)?.get(c.tool);
  }

  /** Adds a cell that `find` does not know. */
  put(c: UsageCell): void {
    let byKey = this.hours.get(c.start);
    if (!byKey) this.hours.set(c.start, (byKey = new Map()));
    let byTool = byKey.get(c.keyId);
    if (!byTool) byKey.set(c.keyId, (byTool = new Map()));
    byTool.set(c.tool, c);
    this.size++;
  }

  values(): UsageCell[] {
    const out: UsageCell[] = [];
    for (const byKey of this.hours.values()) for (const byTool of byKey.values()) for (const c of byTool.values()) out.push(c);
    return out;
  }
}
