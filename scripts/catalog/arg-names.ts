// Argument names of one tool: sanitised wire names, unique across parameters and body properties. The first
// location to claim a name keeps it; a later one becomes `<prefix>_<name>`, then `_2`, `_3`, ….
import { argName } from './naming.ts';
import type { Warn } from './schema-converter.ts';

export class ArgNames {
  private readonly used = new Set<string>();
  private readonly where: string;
  private readonly warn: Warn;

  constructor(where: string, warn: Warn) {
    this.where = where;
    this.warn = warn;
  }

  take(wire: string, prefix: string): string {
    const a = argName(wire);
    if (!this.used.has(a)) return this.used.add(a), a;
    let cand = argName(`${prefix}_${a}`);
    for (let k = 2; this.used.has(cand); k++) cand = argName(`${prefix}_${a}_${k}`);
    this.warn('arg-clash', `${this.where}: ${prefix} "${wire}" clashes with another argument; renamed to ${cand}`);
    this.used.add(cand);
    return cand;
  }
}
