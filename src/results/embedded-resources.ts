// Embedded resources: a result often carries whole copies of other API resources (a pull request's head.repo and
// base.repo are full repositories, every user is a full user). By default such a nested copy is shortened to the
// fields that identify it and a person reads (id, number, name, title, login, state, html_url …).
//
// Which nested fields are resources is decided at build time from the outputSchema (scripts/catalog/
// embedded-resources.ts, the tool's `result.embedded` paths): an object schema with an identity field and a self link
// into the API. At run time each value at such a path is checked: it is shortened only when it has an identity value
// and its self link points into the API (an origin of the catalogue or the upstream), or it has a links object. The
// result's own items are never shortened, only what is nested in them. A projection turns this off (the caller's
// paths decide), and so do "*" and COMPACT_RESULTS=off. Only object properties are removed, so a value valid against
// an outputSchema without `required` stays valid.
import { compactJson, type CompactRules } from './result-compaction.ts';
import { originOf } from './links.ts';

/** Fields that identify a resource. */
export const IDENTITY_FIELDS = new Set(['id', 'uuid', 'guid', 'key', 'slug', 'login', 'number', 'sha']);
/** Fields holding a resource's own link into the API. */
export const SELF_LINK_FIELDS = new Set(['url', 'self', 'href', 'self_url', 'selfLink', 'self_link', 'resource_url']);
/** Objects of links (HAL `_links`, JSON:API `links`) that mark a resource. */
export const LINKS_OBJECTS = new Set(['_links', 'links']);
/** What a shortened resource keeps: identity and the names a person reads. */
const SUMMARY_FIELDS = new Set([...IDENTITY_FIELDS, 'name', 'full_name', 'display_name', 'title', 'username', 'state', 'status']);
/** Links a person opens (to the web page, not the API): kept in the summary. */
const HUMAN_LINK = /^(?:html|web)[_-]?url$|^(?:html|web)Url$|^permalink(?:_url)?$/;

/** The embedded-resource paths of a tool as a tree: `["head.repo", "user"]` → {head: {repo: true}, user: true}. */
export type EmbeddedTree = { [key: string]: EmbeddedTree | true };

export function embeddedTree(paths: readonly string[]): EmbeddedTree {
  const root: EmbeddedTree = {};
  for (const p of paths) {
    const segs = p.split('.');
    let node = root;
    for (let i = 0; i < segs.length; i++) {
      const k = segs[i]!;
      if (node[k] === true) break;
      if (i === segs.length - 1) node[k] = true;
      else node = (node[k] ??= {}) as EmbeddedTree;
    }
  }
  return root;
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The run-time check: an identity value, and a self link into the API (or a links object). */
export function isApiResource(o: Record<string, unknown>, rules: Pick<CompactRules, 'origins'>): boolean {
  let identity = false;
  let self = false;
  for (const k in o) {
    const v = o[k];
    if (v === null || v === undefined || v === '') continue;
    if (IDENTITY_FIELDS.has(k) && (typeof v === 'string' || typeof v === 'number')) identity = true;
    else if (SELF_LINK_FIELDS.has(k) && typeof v === 'string') {
      const origin = originOf(v);
      if (origin !== undefined && rules.origins.has(origin)) self = true;
    } else if (LINKS_OBJECTS.has(k) && isObj(v)) self = true;
  }
  return identity && self;
}

/**
 * What shortening did to a result: the dotted paths shortened (for the note), and the fields it removed, whose JSON
 * characters are what it saved. The saving is measured only as far as a caller asks (savedAtLeast): deciding whether
 * a note pays for itself needs a few hundred characters, not every removed field serialised.
 */
export interface Shortened {
  paths: Set<string>;
  /** Characters saved by the removed fields measured so far. */
  savedChars: number;
  /** Removed fields not measured yet. */
  removed: Array<Record<string, unknown>>;
}

export const shortenedNothing = (): Shortened => ({ paths: new Set(), savedChars: 0, removed: [] });

/** Whether shortening saved at least `min` characters, measuring removed fields until it knows. */
export function savedAtLeast(done: Shortened, rules: CompactRules, min: number): boolean {
  while (done.savedChars < min && done.removed.length) {
    // Counted as compaction would leave the field, so the saving is what shortening itself removed.
    const field = done.removed.pop()!;
    done.savedChars += Math.max(0, (JSON.stringify(compactJson(field, rules))?.length ?? 2) - 1);
  }
  return done.savedChars >= min;
}

function summary(o: Record<string, unknown>, rules: CompactRules, path: string[], done: Shortened): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in o) {
    path.push(k);
    const keep = SUMMARY_FIELDS.has(k) || HUMAN_LINK.test(k) || (rules.patterns && rules.keep(path));
    path.pop();
    if (keep) out[k] = o[k];
    else done.removed.push({ [k]: o[k] });
  }
  return out;
}

/**
 * Shortens the API resources found at `tree`'s paths below one item (arrays along the way are walked element by
 * element). Returns the item (a copy where anything changed) and records what was shortened in `done`.
 */
export function summariseEmbedded(item: unknown, tree: EmbeddedTree, rules: CompactRules, done: Shortened): unknown {
  return walk(item, tree, rules, [], done);
}

function walk(v: unknown, tree: EmbeddedTree, rules: CompactRules, path: string[], done: Shortened): unknown {
  if (Array.isArray(v)) {
    let changed = false;
    const out = v.map((x) => {
      const y = walk(x, tree, rules, path, done);
      if (y !== x) changed = true;
      return y;
    });
    return changed ? out : v;
  }
  if (!isObj(v)) return v;
  let out: Record<string, unknown> | undefined;
  for (const key in tree) {
    const x = v[key];
    if (x === null || typeof x !== 'object') continue;
    const sub = tree[key]!;
    path.push(key);
    const y = sub === true ? shorten(x, rules, path, done) : walk(x, sub, rules, path, done);
    path.pop();
    if (y !== x) (out ??= { ...v })[key] = y;
  }
  return out ?? v;
}

function shorten(x: object, rules: CompactRules, path: string[], done: Shortened): unknown {
  if (Array.isArray(x)) {
    let changed = false;
    const out = x.map((e) => {
      const y = isObj(e) ? shorten(e, rules, path, done) : e;
      if (y !== e) changed = true;
      return y;
    });
    return changed ? out : x;
  }
  const o = x as Record<string, unknown>;
  if (!isApiResource(o, rules)) return x;
  done.paths.add(path.join('.'));
  return summary(o, rules, path, done);
}
