// Tool and argument naming (docs/naming.md). Pure functions of the spec, so names are stable.
import { createHash } from 'node:crypto';
import { shortenName, type Shortened } from './name-shorten.ts';
import { snake } from './snake.ts';
import { ABBREVIATIONS, FILLER, GLUE, wordRank } from './name-words.ts';
import { nameWords, PLAIN_SPEC, specStyle, type Derived } from './name-derive.ts';
import { isVerb, READ_VERBS } from './name-verbs.ts';

export { snake };
export type { Derived };

export const TOOL_NAME_RE = /^[a-z][a-z0-9_]*$/;

export function shortHash(s: string, len = 6): string {
  return createHash('sha256').update(s).digest('hex').slice(0, len);
}

export function toIdentifier(s: string, fallbackPrefix: string): string {
  let n = snake(s);
  if (!n) return fallbackPrefix;
  if (!/^[a-z]/.test(n)) n = `${fallbackPrefix}_${n}`;
  return n;
}

/** The full name of one operation on its own (docs/naming.md, "Names from meaning"), before shortening. */
export function baseToolName(operationId: string | undefined, method: string, path: string, pathStyleSpec = false): string {
  return toIdentifier(nameWords({ operationId, method, path }, { ...PLAIN_SPEC, pathStyle: pathStyleSpec }).full, 'op');
}

export interface NameCandidate {
  key: string; // "GET /path"
  operationId?: string;
  method: string;
  path: string;
  /** The operation's tags: words repeating them are the first to go when a name is too long. */
  tags?: string[];
  /** The operation's summary: its hyphenated compounds ("self-hosted") are never split by shortening, and its opening verb can name the action. */
  summary?: string;
  /** The operation's description: its first sentence's verb can name the action when there is no summary. */
  description?: string;
  /** It takes a request body: a PUT without one on a nested item links two items (docs/naming.md). */
  hasBody?: boolean;
}

export interface NameAssignment {
  /** "METHOD path" -> tool name. */
  names: Map<string, string>;
  /** Keys whose name needed the last-resort hash suffix. */
  hashed: string[];
  /** Keys whose full name was over the budget and was shortened by meaning. */
  shortened: string[];
  /** Keys whose name was derived from the method and path (a path-style or missing operationId), with its parts. */
  derived: Map<string, Derived>;
}

/** True for a name ending in the last-resort hash suffix (six hex characters, at least one a digit). */
export function isHashedName(name: string): boolean {
  const m = /_([0-9a-f]{6})$/.exec(name);
  return !!m && /[0-9]/.test(m[1]!);
}

interface Named extends NameCandidate {
  full: string;
  toolset: string[][];
  first: Shortened;
  keep: string[];
  derived?: Derived;
  /** The API's own name (specStyle), the first words shortening drops. */
  api?: string[];
}

/** Each candidate's words and first (shortened) name: a function of the candidate and the spec's naming convention only. */
function firstNames(cands: NameCandidate[], max: number): Named[] {
  const spec = specStyle(cands);
  return cands.map((c) => {
    const w = nameWords(c, spec);
    const full = toIdentifier(w.full, 'op');
    const toolset = (c.tags ?? []).map((t) => snake(t).split('_')).filter((x) => x[0]);
    const keep = w.keep ?? [];
    const tries = (w.preferred ?? [w.full]).map((n) => toIdentifier(n, 'op'));
    const first = shortenName(tries.find((n) => n.length <= max) ?? tries[tries.length - 1]!, { toolset, summary: c.summary, path: c.path, keep: new Set(keep), ...(spec.api ? { api: spec.api } : {}) }, max);
    return { ...c, full, toolset, first, keep, derived: w.derived, ...(spec.api ? { api: spec.api } : {}) };
  });
}

/**
 * Assign unique names (docs/naming.md). Each operation first gets its full name shortened by meaning, a pure
 * function of the operation (and of whether the spec names operations after their paths). Operations whose names
 * then collide (also when they differ only by an abbreviation: `config` vs `configuration`) form a group.
 * Unshortened names stay (they are the spec's own); else the first by rank keeps the name (an operationId, then an
 * operationId equal to the name, then the shorter full name, then the smallest "METHOD path"). The others are
 * shortened again keeping the words that tell them apart, else get the path word that does; a hash suffix is the
 * last resort. So a name depends on other operations only when they collide with it.
 */
export function nameTools(cands: NameCandidate[], max: number): NameAssignment {
  const named = firstNames(cands, max);
  const groups = new Map<string, Named[]>();
  for (const c of named) {
    const b = c.first.fits ? sameness(c.first.name) : '';
    const g = groups.get(b);
    if (g) g.push(c);
    else groups.set(b, [c]);
  }
  const names = new Map<string, string>();
  const hashed: string[] = [];
  const taken = new Set<string>([...groups.keys()].filter(Boolean));
  // Same full name on two methods (AWS query APIs serve each action on GET and POST): the method that fits the verb wins.
  const fit = (c: Named) => {
    const verb = c.full.split('_').find((w) => isVerb(w));
    return verb && READ_VERBS.has(verb) !== /^(get|head)$/i.test(c.method) ? 1 : 0;
  };
  const ranks = new Map<Named, readonly (string | number)[]>();
  const rank = (c: Named) => {
    let r = ranks.get(c);
    if (!r) ranks.set(c, (r = [c.first.step ? 1 : 0, c.operationId ? 0 : 1, c.operationId === c.full && !c.derived ? 0 : 1, c.full.length, fit(c), c.key]));
    return r;
  };
  for (const [b, g] of [...groups.entries()].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))) {
    // Before the last tie-break, a member that something meaningful tells apart (its path, its item, its method's
    // own verb) gives the plain name to one that only its method would.
    const told = new Map(g.map((c) => [c, g.length > 1 ? tellable(c, g) : 0]));
    const key = (c: Named) => [...rank(c).slice(0, -1), told.get(c)!, c.key];
    g.sort((x, y) => {
      const rx = key(x);
      const ry = key(y);
      for (let i = 0; i < rx.length; i++) if (rx[i] !== ry[i]) return rx[i]! < ry[i]! ? -1 : 1;
      return 0;
    });
    // Unshortened names are the spec's own: each distinct one stays. Else the first by rank keeps its name.
    const winners = b ? g.filter((c, i) => (c.first.step === 0 || i === 0) && !g.slice(0, i).some((w) => w.first.name === c.first.name)) : [];
    for (const w of winners) names.set(w.key, w.first.name);
    for (const c of g.filter((x) => !winners.includes(x))) {
      let n = distinguish(c, g, max, taken);
      if (!n) {
        n = hashName(c, c.first.name, max, taken);
        hashed.push(c.key);
      }
      taken.add(sameness(n));
      names.set(c.key, n);
    }
  }
  const shortened = named.filter((c) => c.first.step > 0).map((c) => c.key);
  const derived = new Map(named.filter((c) => c.derived).map((c) => [c.key, c.derived!]));
  return { names, hashed: hashed.sort(), shortened: shortened.sort(), derived };
}

/** Keys of the operations whose first names collide: the only operations whose names depend on each other. */
export function collisionGroups(cands: NameCandidate[], max: number): string[][] {
  const groups = new Map<string, string[]>();
  for (const { first, key } of firstNames(cands, max)) {
    const k = first.fits ? sameness(first.name) : `\0${key}`;
    groups.set(k, [...(groups.get(k) ?? []), key]);
  }
  return [...groups.values()].filter((g) => g.length > 1);
}

/** Names only (see nameTools). */
export function assignToolNames(cands: NameCandidate[], max: number): Map<string, string> {
  return nameTools(cands, max).names;
}

const LONG_FORM = new Map(Object.entries(ABBREVIATIONS).map(([long, short]) => [short, long]));

/** Two names a model would read as the same: equal once abbreviations are expanded (`config`, `configuration`). */
function sameness(name: string): string {
  return name
    .split('_')
    .map((w) => LONG_FORM.get(w) ?? w)
    .join('_');
}

/**
 * A free name for `c` that keeps the words telling it apart from the rest of its collision group: the fewest
 * of its own words that each other member lacks one of (greedy, rarest word first), plus more while the name
 * is taken. Else a path word the others lack, appended ({org}, {enterprise}, {repo}); else its HTTP method.
 */
function distinguish(c: Named, group: Named[], max: number, taken: Set<string>): string | undefined {
  const attempt = (full: string, keep: Iterable<string>) => {
    const s = shortenName(full, { toolset: c.toolset, summary: c.summary, path: c.path, keep: new Set([...c.keep, ...keep]), ...(c.api ? { api: c.api } : {}) }, max);
    return s.fits ? s.name : undefined;
  };
  const byRarity = (a: string, b: string) => wordRank(b) - wordRank(a) || (a < b ? -1 : 1);
  const own = [...new Set(c.full.split('_'))].filter((w) => !GLUE.has(w) && !FILLER.has(w)).sort(byRarity);
  let rest = group.filter((o) => o !== c).map((o) => new Set(o.full.split('_'))).filter((ws) => own.some((w) => !ws.has(w)));
  const keep: string[] = [];
  while (rest.length) {
    const best = own.filter((w) => !keep.includes(w)).sort((a, b) => rest.filter((ws) => !ws.has(b)).length - rest.filter((ws) => !ws.has(a)).length)[0]!;
    keep.push(best);
    rest = rest.filter((ws) => ws.has(best));
  }
  // No word of its own tells it apart: adding one the others have too would only make the name longer.
  for (const extra of keep.length ? [undefined, ...own.filter((w) => !keep.includes(w))] : []) {
    if (extra) keep.push(extra);
    if (!keep.length) continue;
    // A derived name keeps its resource-then-verb form: the telling words go in front ("employment_document_signature_get").
    const base = c.derived ? [...c.full.split('_').filter((w) => keep.includes(w) && !c.first.name.split('_').includes(w)), c.first.name].join('_') : c.full;
    const n = attempt(base, keep);
    // A telling word put in front of the same word ("tasks_task_events") tells nothing a reader can see.
    if (n && !taken.has(sameness(n)) && !saysTwice(n)) return n;
    if (!n && extra) keep.pop(); // too long with it: try the next word instead
    else if (!n) break;
  }
  const others = group.filter((o) => o !== c);
  const free = (n: string | undefined) => (n && !taken.has(sameness(n)) ? n : undefined);
  const first = c.first.name.split('_');
  // A derived name grows from its short form: its full one holds every word of the path.
  const base = c.derived ? c.first.name : c.full;
  // An item beside its collection is said in the singular ("custom_field_update" beside "custom_fields_update").
  const one = c.derived?.item && others.some((o) => !o.derived?.item) ? singularAt(first, c.derived.resource[c.derived.resource.length - 1]!) : undefined;
  // The action its method means, when its text said another's ("replace" for a PUT beside the PATCH that updates).
  const plain = c.derived?.plain ? [...first.slice(0, first.length - c.derived.verb.length), ...c.derived.plain] : undefined;
  if (one && free(attempt(one.join('_'), one))) return attempt(one.join('_'), one);
  for (const rivals of [others, others.slice(0, 1)]) {
    const otherPath = new Set(rivals.flatMap(pathWords));
    for (const w of pathWords(c).filter((x) => !otherPath.has(x))) {
      // A parameter says which item it takes ("by_style_id", a derived name's "by_year"); a derived name's static
      // context goes in front ("api_baskets_delete").
      const param = c.path.includes(`{`) && /(^|_)(id|ids|key|pk|uuid|name|code|slug|hash)$/.test(w);
      const byParam = param || (!!c.derived && paramWords(c).includes(w));
      if (extensions(c).includes(w)) {
        if (free(attempt(`${base}_${w}`, [w]))) return attempt(`${base}_${w}`, [w]);
        continue;
      }
      const word = byParam && !`_${base}_`.includes('_by_') ? `by_${w}` : (ABBREVIATIONS[w] ?? w);
      const n = attempt(c.derived && !byParam ? `${word}_${base}` : `${base}_${word}`, word.split('_'));
      if (free(n)) return n;
    }
  }
  // A format extension another member already took with it: the extension and the parameter that tells them apart
  // (worldtimeapi's /ip.txt and /ip/{ipv4}.txt: `ip_get_txt`, `ip_get_by_ipv4_txt`).
  for (const ext of extensions(c)) {
    for (const w of paramWords(c)) {
      const n = attempt(`${base}_${`_${base}_`.includes('_by_') ? '' : 'by_'}${w}_${ext}`, [w, ext]);
      if (free(n)) return n;
    }
  }
  if (plain && free(attempt(plain.join('_'), plain))) return attempt(plain.join('_'), plain);
  // A word of its summary the others' lack ("genes" in "List genes annotated to an ontology term").
  for (const w of summaryWords(c, others)) {
    const n = attempt(`${base}_${w}`, [w]);
    if (free(n)) return n;
  }
  // Then its method, alone and after each path word (a PUT and a POST on each of two paths).
  const m = c.method.toLowerCase();
  for (const w of ['', ...pathWords(c)]) {
    const word = w && (ABBREVIATIONS[w] ?? w);
    const n = attempt(`${base}${word ? `_${word}` : ''}_${m}`, [m, ...(word ? [word] : [])]);
    if (n && !taken.has(sameness(n))) return n;
  }
  return undefined;
}

const stem5 = (w: string) => w.slice(0, 5);
const stemS = (w: string) => w.replace(/(ies|es|s)$/, '');
const saysTwice = (name: string) => name.split('_').some((w, i, ws) => i > 0 && stemS(w) === stemS(ws[i - 1]!));

/** `words` with the last `word` in the singular, or undefined when it is no plural. */
function singularAt(words: string[], word: string): string[] | undefined {
  const i = words.lastIndexOf(word);
  const one = word.replace(/ies$/, 'y').replace(/(ss|sh|ch|x)es$/, '$1').replace(/([^su])s$/, '$1');
  return i >= 0 && one !== word ? [...words.slice(0, i), one, ...words.slice(i + 1)] : undefined;
}

/**
 * What besides its method tells it apart from the rest of its group: 2 for its item (said in the singular) or a
 * path word, 1 for its method's own verb, 0 for nothing. The member told apart least keeps the plain name.
 */
function tellable(c: Named, group: Named[]): number {
  const others = group.filter((o) => o !== c);
  if (c.derived?.item && others.some((o) => !o.derived?.item) && /s$/.test(c.derived.resource[c.derived.resource.length - 1] ?? '')) return 2;
  const otherPath = new Set(others.flatMap(pathWords));
  if (pathWords(c).some((w) => !otherPath.has(w))) return 2;
  return c.derived?.plain || summaryWords(c, others).length ? 1 : 0;
}

/** Words of its summary that the others' summaries lack, rarest first ("all" in "Delete all classifications"). */
function summaryWords(c: Named, others: Named[]): string[] {
  const said = (o: Named) => snake(o.summary ?? '').split('_').map(stem5);
  const otherSaid = new Set(others.flatMap(said));
  const mine = new Set(c.full.split('_').map(stem5));
  const told = snake(c.summary ?? '').split('_').filter((w) => w.length > 2 && !GLUE.has(w) && !FILLER.has(w) && !isVerb(w) && !otherSaid.has(stem5(w)) && !mine.has(stem5(w)));
  return [...new Set(told)].sort((a, b) => wordRank(b) - wordRank(a) || (a < b ? -1 : 1));
}

/** The path's parameter names, snake_case. */
function paramWords(c: NameCandidate): string[] {
  return [...c.path.matchAll(/\{([^}]*)\}/g)].map((m) => snake(m[1]!));
}

/** Path words: parameter names first, then static segments (versions and "api" included), each snake_case. */
function pathWords(c: NameCandidate): string[] {
  const segs = c.path.replace(/[?#].*$/, '').split('/').filter(Boolean);
  const params = segs.filter((s) => /^\{.*\}$/.test(s)).map((s) => snake(s.slice(1, -1)));
  const statics = segs.filter((s) => !/^\{.*\}$/.test(s)).map((s) => snake(s.replace(EXTENSION, '')));
  return [...new Set([...params, ...statics, ...extensions(c)].filter((w) => /^[a-z][a-z0-9_]*$/.test(w)))];
}

/** A file extension that says a format (/ConnectionManager.xml, /Css.css, /{area}.txt): said last ("…_get_xml"). */
const EXTENSION = /\.([a-z]{2,5})$/i;
// After a parameter too (/timezone/{area}.txt), not inside one ({file.name}).
const extensions = (c: NameCandidate) => c.path.replace(/[?#].*$/, '').split('/').flatMap((s) => ((!/\{/.test(s) || /\}\.[a-z]{2,5}$/i.test(s)) && EXTENSION.test(s) ? [EXTENSION.exec(s)![1]!.toLowerCase()] : []));

/** Last resort: a prefix of the name at a word boundary plus a hash of "METHOD path" (always with a digit, so it can be counted). */
function hashName(c: Named, base: string, max: number, taken: Set<string>): string {
  for (let i = 0; ; i++) {
    const h = shortHash(i ? `${c.key}#${i}` : c.key);
    const n = `${prefixAtWord(base, max - h.length - 1)}_${h}`;
    if (/[0-9]/.test(h) && !taken.has(sameness(n))) return n;
  }
}

/** Sanitise an argument (input property) name to ^[a-zA-Z0-9_.-]{1,64}$. "expand[]" -> "expand", "filter[name]" -> "filter_name". */
export function argName(wire: string): string {
  let n = wire.replace(/\[\]$/, '').replace(/[^a-zA-Z0-9_.-]+/g, '_').replace(/^_+(?=.)|_+$/g, '');
  if (!n) n = 'arg';
  if (n.length > 64) n = `${n.slice(0, 57)}_${shortHash(wire)}`;
  return n;
}

/** At most `keep` chars of `name`, cut at a word (underscore) boundary when that keeps most of it. */
function prefixAtWord(name: string, keep: number): string {
  keep = Math.max(1, keep);
  if (name.length <= keep) return name.replace(/_+$/, '');
  let cut = name.slice(0, keep);
  if (name[keep] !== '_') {
    const u = cut.lastIndexOf('_');
    if (u >= keep * 0.6) cut = cut.slice(0, u);
  }
  return cut.replace(/_+$/, '');
}
