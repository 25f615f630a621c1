// Result shaping for one call, in two steps around the upstream request:
//   planResult: before the request. Reads and removes the projection argument, checks its paths against the
//     outputSchema (an unknown path is an isError result and nothing is sent), and sizes the page when the caller
//     set no page size.
//   shapeResult: after a successful JSON response. Projects and compacts each item, then keeps the whole items that
//     fit the budget's data room (src/results/budget.ts) and says how to get the rest. Never cuts inside an item; what
//     is still too large (a single huge object) is left to the generic shortening in src/results/shrink-json.ts.
import type { CatalogueTool, JsonSchema } from '../catalogue/types.ts';
import { estimateTokens, withinTokens } from '../lib/tokens.ts';
import { fitNote, type ResultBudget } from './budget.ts';
import { compactJson } from './result-compaction.ts';
import { embeddedTree, savedAtLeast, shortenedNothing, summariseEmbedded, type EmbeddedTree } from './embedded-resources.ts';
import { cutNote, embeddedNote, fieldHint, fittedNote, missingFieldsNote } from './notes.ts';
import type { ResultOptions } from './options.ts';
import { continuation, pageRequest, wholeItemsThatFit, type PageRequest } from './paging.ts';
import { fieldTree, parseFields, pathsPresent, project, topLevelFields, unknownPaths, type FieldTree } from './projection.ts';

export interface ResultPlan {
  tool: CatalogueTool;
  options: ResultOptions;
  /** Compaction on for this call: the deployment's switch, off when the caller asked for the full result ("*"). */
  compact: boolean;
  projection?: { tree: FieldTree; paths: string[][]; /** No outputSchema to check against: checked on the data. */ checkData: boolean };
  page: PageRequest;
  budget: ResultBudget;
}

export type Planned = { args: Record<string, unknown>; plan: ResultPlan } | { error: string };

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Where the tool's list items are, relative to the value shaping sees (structuredContent, or the raw JSON). */
function itemsKey(tool: CatalogueTool): string | undefined {
  return tool.result?.items ?? (tool.outputWrapped ? 'result' : undefined);
}

/** The schemas a projection path may be checked against: the item schema first, then (for an envelope) the root. */
export function projectionSchemas(tool: CatalogueTool): unknown[] {
  const s = tool.outputSchema;
  if (!s) return [];
  const props = (s.properties ?? {}) as Record<string, JsonSchema>;
  const key = itemsKey(tool);
  if (key && props[key]) return key === 'result' && tool.outputWrapped ? [props[key]] : [props[key], s];
  return tool.outputWrapped && props.result ? [props.result] : [s];
}

export function planResult(tool: CatalogueTool, args: Record<string, unknown>, options: ResultOptions, budget: ResultBudget): Planned {
  const shape = tool.result;
  const upstreamArgs = { ...args };
  const plan: ResultPlan = { tool, options, compact: options.compact, page: {}, budget };
  if (shape && upstreamArgs[shape.fields] !== undefined) {
    const parsed = parseFields(upstreamArgs[shape.fields]);
    delete upstreamArgs[shape.fields];
    if ('error' in parsed) return { error: `Invalid arguments for ${tool.name}: ${shape.fields} ${parsed.error}.` };
    if ('all' in parsed) plan.compact = false;
    else {
      const schemas = projectionSchemas(tool);
      const unknown = schemas.length ? unknownPaths(schemas, parsed.paths) : [];
      if (unknown.length) {
        const fields = topLevelFields(schemas[0]);
        return {
          error:
            `Invalid arguments for ${tool.name}: ${shape.fields} names ${unknown.length === 1 ? 'a field' : 'fields'} the result does not have: ${unknown.join(', ')}. ` +
            `Valid top-level fields${itemsKey(tool) ? ' of each item' : ''}: ${fields.join(', ')}. Nested fields use dots (e.g. ${nestedExample(fields)}); "*" returns the full result.`,
        };
      }
      plan.projection = { tree: fieldTree(parsed.paths), paths: parsed.paths, checkData: !schemas.length };
    }
  }
  plan.page = pageRequest(tool, shape?.paging, upstreamArgs, budget.tokens, plan.compact && !plan.projection);
  return { args: upstreamArgs, plan };
}

function nestedExample(fields: string[]): string {
  const f = fields.find((x) => x === 'user' || x === 'owner') ?? fields[0] ?? 'user';
  return `${f}.name`;
}

export interface Shaped {
  value: unknown;
  /** For the model: items cut and how to get the rest, a page size chosen, projection paths no item had. */
  note?: string;
  /** Items were left out to fit the budget. */
  cut: boolean;
  /** JSON.stringify(value), when fitting the items needed it (lists): the result is then serialised only once. */
  json?: string;
  /** `json` is within the budget's data room (it was measured, or its items were fitted to it). */
  fits?: boolean;
}

const trees = new WeakMap<CatalogueTool, EmbeddedTree>();

/** The tool's embedded-resource paths as a tree, when its results shorten nested resources on this call. */
function embeddedFor(plan: ResultPlan): EmbeddedTree | undefined {
  const paths = plan.tool.result?.embedded;
  if (!paths?.length || !plan.compact || plan.projection || plan.options.shortenEmbedded === false) return undefined;
  let tree = trees.get(plan.tool);
  if (!tree) trees.set(plan.tool, (tree = embeddedTree(paths)));
  return tree;
}

/** `budget`: the plan's, unless the caller fits to another. */
export function shapeResult(value: unknown, plan: ResultPlan, budget: ResultBudget = plan.budget): Shaped {
  const { tool, options } = plan;
  const proj = plan.projection;
  let embedded = embeddedFor(plan);
  const shortened = shortenedNothing();
  const shapeOne = (x: unknown): unknown => {
    let y = proj ? project(x, proj.tree) : embedded ? summariseEmbedded(x, embedded, options.rules, shortened) : x;
    if (plan.compact) y = compactJson(y, options.rules, proj?.tree);
    return y;
  };
  const fieldsArg = tool.result?.fields ?? '_fields';
  /** Shapes with nested resources shortened, unless that saves less than twice its note (then shapes again without). */
  const shapeAll = <T>(run: () => T, hintOf: unknown): T => {
    const out = run();
    if (!shortened.paths.size) return out;
    const note = embeddedNote([...shortened.paths], fieldsArg, fieldHint(hintOf, 2));
    if (savedAtLeast(shortened, options.rules, 2 * note.length + 1)) {
      notes.push(note);
      return out;
    }
    embedded = undefined;
    return run();
  };
  const key = itemsKey(tool);
  const list = Array.isArray(value) ? { items: value } : isObj(value) && key && Array.isArray(value[key]) ? { items: value[key] as unknown[], key } : undefined;
  const notes: string[] = [];
  if (proj?.checkData) {
    const source = list ? list.items : [value];
    const found = pathsPresent(source, proj.paths);
    const missing = proj.paths.map((p) => p.join('.')).filter((p) => !found.has(p));
    if (missing.length && source.length) notes.push(missingFieldsNote(missing, Object.keys((isObj(source[0]) ? source[0] : {}) as object)));
  }
  if (!list) {
    const wrapped = isObj(value) && tool.outputWrapped;
    const shaped = shapeAll(() => (wrapped ? { ...value, result: shapeOne(value.result) } : shapeOne(value)), wrapped ? value.result : value);
    return withNotes({ value: shaped, cut: false }, notes, budget);
  }

  let items = proj || plan.compact ? shapeAll(() => list.items.map(shapeOne), list.items[0]) : list.items;
  const rebuild = (xs: unknown[]): unknown => {
    if (!list.key) return xs;
    const root = value as Record<string, unknown>;
    const env: Record<string, unknown> = {};
    for (const k in root) env[k] = k === list.key ? xs : root[k];
    // The envelope (total_count, has_more …) is compacted too; the items array stays even when empty.
    return plan.compact ? compactJson(env, options.rules, { [list.key]: true }) : env;
  };
  let shaped = rebuild(items);
  let json = JSON.stringify(shaped);
  let cut = false;
  const total = items.length;
  const budgetTokens = budget.tokens;
  const paging = tool.result?.paging;
  let fits = withinTokens(json, budget.dataTokens);
  // Over the data room (the budget less its note's), so nothing is cut after this.
  if (!fits) {
    const sizes = items.map((x) => estimateTokens(JSON.stringify(x) ?? 'null'));
    const envTokens = estimateTokens(JSON.stringify(rebuild([])));
    const fit = wholeItemsThatFit(sizes, budget.dataTokens - envTokens);
    const cont = continuation(paging, plan.page, items, fit);
    items = items.slice(0, cont.show);
    shaped = rebuild(items);
    json = JSON.stringify(shaped);
    fits = withinTokens(json, budget.dataTokens);
    cut = true;
    notes.unshift(cutNote({ tool: tool.name, shown: items.length, total, budgetTokens, cont, fieldsArg, fieldHint: fieldHint(list.items[0]) }));
  } else if (plan.page.fitted && paging?.size && total >= plan.page.fitted.value) {
    // A full page of the size chosen here: say so, and how to continue (a short page is the last one).
    notes.unshift(fittedNote({ sizeArg: paging.size, size: plan.page.fitted.value, apiDefault: plan.page.fitted.apiDefault, budgetTokens, cont: continuation(paging, plan.page, items, total) }));
  }
  return withNotes({ value: shaped, cut, json, fits }, notes, budget);
}

function withNotes(shaped: Shaped, notes: string[], budget: ResultBudget): Shaped {
  if (notes.length) shaped.note = fitNote(notes.join(' '), budget);
  return shaped;
}
