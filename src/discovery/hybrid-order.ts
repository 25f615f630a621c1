// Which typed tools a hybrid listing keeps (docs/slices-profiles-discovery.md, "Hybrid lists"): the slice's tools in
// order of importance, by one fixed rule on catalogue data, so the same slice always keeps the same tools.
//   1. Reads (readOnlyHint) before writes, destructive writes last.
//   2. Within each of those classes, the slice's toolsets take turns (the catalogue's default toolsets first, in
//      their curated order, then the rest by name), so every toolset is represented.
//   3. Within a toolset, fewest required arguments first (entry points such as "list my repositories"), then the
//      shortest path, then the name.
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { Slice } from '../catalogue/slices.ts';
import type { CatalogueTool } from '../catalogue/types.ts';

const kindOf = (t: CatalogueTool) => (t.annotations.readOnlyHint ? 0 : t.annotations.destructiveHint ? 2 : 1);
const requiredCount = (t: CatalogueTool) => (Array.isArray(t.inputSchema.required) ? t.inputSchema.required.length : 0);
const pathDepth = (t: CatalogueTool) => t.http.path.split('/').filter(Boolean).length;

function byImportance(a: CatalogueTool, b: CatalogueTool): number {
  return requiredCount(a) - requiredCount(b) || pathDepth(a) - pathDepth(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** The slice's tools in hybrid order; the first n are the ones a hybrid list of n typed tools shows. */
export function importanceOrder(loaded: LoadedCatalogue, slice: Slice, exclude: ReadonlySet<string> = new Set()): CatalogueTool[] {
  const tools = slice.tools.map((i) => loaded.tool(i)).filter((t) => !exclude.has(t.name));
  const asked = slice.toolsets ? new Set(slice.toolsets) : undefined;
  const groupsOf = (t: CatalogueTool) => (asked ? t.toolsets.filter((s) => asked.has(s)) : t.toolsets);
  const curated = loaded.catalogue.defaultToolsets ?? [];
  const present = [...new Set(tools.flatMap(groupsOf))];
  const toolsets = [...curated.filter((s) => present.includes(s)), ...present.filter((s) => !curated.includes(s)).sort()];
  const order: CatalogueTool[] = [];
  const taken = new Set<string>();
  for (const kind of [0, 1, 2]) {
    const queues = toolsets.map((s) => tools.filter((t) => kindOf(t) === kind && groupsOf(t).includes(s)).sort(byImportance));
    for (let progressed = true; progressed; ) {
      progressed = false;
      for (const queue of queues) {
        while (queue.length && taken.has(queue[0]!.name)) queue.shift();
        const next = queue.shift();
        if (!next) continue;
        taken.add(next.name);
        order.push(next);
        progressed = true;
      }
    }
  }
  return order;
}
