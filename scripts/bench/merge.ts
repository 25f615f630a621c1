// `npm run bench -- --only <sections>` on an existing docs/benchmarks.md: the sections that ran replace their rows
// and method notes, the others stay as they were, and the header says which sections were rerun and when. So one
// section can be refreshed without rerunning (or losing) the rest.

const ROW = /^\| (\d+) \| /;
const SUB = /^### (\d+)\. /;

/** Table cells of one row, escaped pipes kept inside their cell and unescaped. */
function cells(row: string): string[] {
  return row
    .split(/(?<!\\)\|/)
    .slice(1, -1)
    .map((c) => c.trim().replace(/\\\|/g, '|'));
}

interface Parts {
  before: string[];
  rows: string[];
  middle: string[];
  subs: Map<number, string[]>;
  after: string[];
}

function split(md: string): Parts {
  const lines = md.split('\n');
  const p: Parts = { before: [], rows: [], middle: [], subs: new Map(), after: [] };
  let i = 0;
  while (i < lines.length && !ROW.test(lines[i]!)) p.before.push(lines[i++]!);
  while (i < lines.length && ROW.test(lines[i]!)) p.rows.push(lines[i++]!);
  while (i < lines.length && !SUB.test(lines[i]!) && !lines[i]!.startsWith('## Options')) p.middle.push(lines[i++]!);
  while (i < lines.length && SUB.test(lines[i]!)) {
    const n = Number(SUB.exec(lines[i]!)![1]);
    const block = [lines[i++]!];
    while (i < lines.length && !SUB.test(lines[i]!) && !lines[i]!.startsWith('## Options')) block.push(lines[i++]!);
    p.subs.set(n, block);
  }
  while (i < lines.length) p.after.push(lines[i++]!);
  return p;
}

const num = (row: string) => Number(ROW.exec(row)![1]);
/** A row of the headline Targets table, which names its section as (§N). */
const HEADLINE = /^\| .* \(§(\d+)\) \|/;

/** The old header with the rerun sections' headline rows swapped for the fresh ones, where the first of them stood. */
function headline(before: string[], fresh: string[], again: Set<number>): string[] {
  const ofRerun = (l: string) => HEADLINE.test(l) && again.has(Number(HEADLINE.exec(l)![1]));
  const replacing = fresh.filter(ofRerun);
  let at = before.findIndex(ofRerun);
  if (at < 0) at = before.findLastIndex((l) => HEADLINE.test(l)) + 1;
  const kept = before.filter((l, i) => i < at || !ofRerun(l));
  return at > 0 ? [...kept.slice(0, at), ...replacing, ...kept.slice(at)] : kept;
}

/** `rerun`: the section numbers this run measured; `stamp`: the line saying when and how they were rerun. */
export function mergeMarkdown(previous: string, fresh: string, rerun: number[], stamp: string): string {
  const old = split(previous);
  const now = split(fresh);
  const again = new Set(rerun);
  const rows = [...old.rows.filter((r) => !again.has(num(r))), ...now.rows.filter((r) => again.has(num(r)))].sort((a, b) => num(a) - num(b));
  const missed = rows.map(cells).filter((c) => c[4]?.startsWith('MISSED'));
  const middle = old.middle.filter((l) => !l.startsWith('**Missed targets'));
  const blank = middle.findIndex((l) => l === '');
  if (missed.length) middle.splice(blank + 1, 0, `**Missed targets:** ${missed.map((c) => `${c[1]} (${c[4]!.replace(/^MISSED /, '')})`).join('; ')}.`, '');
  const subs = new Map(old.subs);
  for (const n of rerun) {
    const block = now.subs.get(n);
    if (block) subs.set(n, block);
  }
  const ids = rerun.join(',');
  const before = headline(old.before, now.before, again).filter((l) => !l.startsWith(`Sections ${ids} rerun`) && !(rerun.length === 1 && l.startsWith(`Section ${ids} rerun`)));
  const at = before.findIndex((l) => l.startsWith('Written by'));
  before.splice(at + 2, 0, stamp, '');
  // The options paragraph is generated from the section list, not measured: the fresh one is always right. Sections
  // after it (written by other tools, such as the search evaluation) are kept.
  const nextHeading = (lines: string[]) => {
    const i = lines.findIndex((l, k) => k > 0 && l.startsWith('## '));
    return i < 0 ? lines.length : i;
  };
  const after = [...now.after.slice(0, nextHeading(now.after)), ...old.after.slice(nextHeading(old.after))];
  return [...before, ...rows, ...middle, ...[...subs.keys()].sort((a, b) => a - b).flatMap((n) => subs.get(n)!), ...after].join('\n');
}
