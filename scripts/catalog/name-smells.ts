// Name smells (docs/naming.md, "Name smells"): what a name or title still shows of the machinery that made the
// spec rather than of what the operation does. Pure functions of one tool's name, title, operationId, method and
// path, so the report (`npm run catalog -- --report`) and the regression set (name-framework-set.ts) count the same.
import { isVerb, baseForm } from './name-verbs.ts';
import { wordRank } from './name-words.ts';
import { snake } from './snake.ts';

export type NameSmell = 'framework' | 'pathEcho' | 'methodCollision' | 'cutTitle' | 'nounFirstTitle' | 'acronymSplit';

export const NAME_SMELLS: ReadonlyArray<{ smell: NameSmell; label: string }> = [
  { smell: 'framework', label: 'framework-made ids passed through' },
  { smell: 'pathEcho', label: 'path-echo names' },
  { smell: 'methodCollision', label: 'collisions settled by the method' },
  { smell: 'cutTitle', label: 'cut titles' },
  { smell: 'nounFirstTitle', label: 'noun-first titles' },
  { smell: 'acronymSplit', label: 'split acronyms' },
];

export interface SmellInput {
  name: string;
  title: string;
  operationId?: string;
  /** Lower or upper case. */
  method?: string;
  path?: string;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);
/** A framework's word for the method at the end of an id: Django REST's `read` (GET) and `partial_update` (PATCH). */
const FRAMEWORK_TAILS: Record<string, string[][]> = { get: [['read']], patch: [['partial', 'update']] };
const PREPOSITIONS = new Set(['by', 'for', 'with', 'of', 'from', 'and', 'or', 'in', 'to', 'on']);
/** Parameter names that are identifiers: said in a name, they echo the path. */
const ID_PARAM = /(^|_)(id|ids|pk|uuid|guid|key|slug|code|name|hash|index|number|no)$/;

const pathPart = (path: string) => path.replace(/[?#].*$/, '');
/** An identifier parameter (`app_id`, `id`), not a noun one (`enterprise`, `region`). */
const idParam = (p: string) => ID_PARAM.test(p) && (p.split('_').length > 1 || /^(id|ids|pk|uuid)$/.test(p));
const pathWords = (path: string) => new Set(snake(pathPart(path)).split('_').filter(Boolean));
const params = (path: string) => [...pathPart(path).matchAll(/\{([^}]+)\}/g)].map((m) => snake(m[1]!)).filter(Boolean);
const endsWith = (words: string[], tail: string[]) => tail.length <= words.length && tail.every((w, i) => words[words.length - tail.length + i] === w);

/** The name keeps a framework's mark: `…_using_get`, a counter (`delete_1`), or the method after a verb or an identifier. */
function framework(t: SmellInput, words: string[]): boolean {
  const method = (t.method ?? '').toLowerCase();
  if (/(^|_)using_(get|post|put|patch|delete|head|options)(_\d+)?$/.test(t.name)) return true;
  const last = words[words.length - 1]!;
  if (/^\d+$/.test(last) && words.length > 1 && !pathWords(t.path ?? '').has(last)) return true;
  const id = t.operationId ? snake(t.operationId).split('_') : [];
  // Springfox's `…UsingGET` gave the name its method only when a collision did (methodCollision).
  if (endsWith(id, ['using', method])) return false;
  for (const tail of [[method], ...(FRAMEWORK_TAILS[method] ?? [])]) {
    if (!tail[0] || !endsWith(words, tail) || !endsWith(id, tail)) continue;
    const before = words.slice(0, -tail.length);
    // The operationId passed through with its method after the path it echoes: a parameter ("…_discord_id_patch",
    // "…_endpoint_id_secret_get") or a leading `api` or version; a framework's own word anywhere. Google's
    // "compute.firewalls.patch" names its method by design.
    const lead = snake(pathPart(t.path ?? '').split('/').filter(Boolean)[0] ?? '');
    const echo = params(t.path ?? '').some((p) => idParam(p) && `_${before.join('_')}_`.includes(`_${p}_`)) || before.some((w) => w === lead && /^(api|v\d+)$/.test(w));
    if (tail[0] !== method || (words[0] === id[0] && echo)) return true;
  }
  return false;
}

/** The name says the path: an identifier parameter (`app_id`), the path's version or `api`, or a noun twice in a row. */
function pathEcho(t: SmellInput, words: string[]): boolean {
  const name = `_${t.name}_`;
  const id = `_${snake(t.operationId ?? '')}_`;
  const segs = pathPart(t.path ?? '').split('/').filter(Boolean);
  for (const [i, seg] of segs.entries()) {
    const p = /^\{([^}]+)\}$/.exec(seg) ? snake(seg.slice(1, -1)) : '';
    // The author's own "by <param>" ("getAnnotationCountByAccId"), shortened, is no echo.
    if (!p || id.includes(`_by_${p}_`) || !idParam(p)) continue;
    const at = name.indexOf(`_${p}_`);
    if (at < 0) continue;
    const lead = name.slice(0, at).split('_').filter(Boolean);
    const before = lead[lead.length - 1];
    // The path said in order: the segment the parameter follows is said too ("…_endpoint_endpoint_id_…"); a bare
    // `id` right after a segment before it ("…_incidents_id_…"). Not the author's words: a segment of the path that
    // says the word itself ("…/check-submitted-id-documents", "/{id}/account_id"), a phrase "by … id"
    // ("get_business_items_by_treaty_id"), an "id" of another word ("IdProvider"), or
    // "audience_name_exists" on /audiences/{audience_name}.
    const statics = segs.slice(0, i).filter((x) => !x.startsWith('{'));
    const staticWords = (xs: string[]) => new Set(xs.filter((x) => !x.startsWith('{')).flatMap((x) => snake(x).split('_')));
    const owner = statics.length ? snake(statics[statics.length - 1]!).split('_') : [];
    const bareId = /^(id|ids|pk|uuid)$/.test(p);
    const said = bareId ? !!before && staticWords(statics).has(before) : owner.every((w) => words.includes(w));
    const echoed = said && !staticWords(segs).has(p) && !lead.slice(-3).includes('by');
    if (echoed && (!before || !PREPOSITIONS.has(before))) return true;
  }
  // A leading `api` segment, or a dated version ("2020_05_31"), said in the name.
  const apis = (ws: string[]) => ws.filter((w) => w === 'api').length;
  if (/^\/api\//i.test(pathPart(t.path ?? '')) && apis(words) > apis(snake(pathPart(t.path ?? '').replace(/^\/api\//i, '/')).split('_'))) return true;
  if (/\d{4}_\d\d_\d\d(_|$)/.test(t.name) && /\d{4}-\d\d-\d\d/.test(t.path ?? '')) return true;
  const stem = (w: string) => w.replace(/(ies|es|s)$/, '');
  const twice = (ws: string[]) => ws.filter((w, i) => i > 0 && w.length > 2 && !METHODS.has(w) && !isVerb(w) && stem(w) === stem(ws[i - 1]!)).map(stem);
  // Unless the path says it twice itself (/default-default-client-scopes).
  const own = new Set(twice(snake(pathPart(t.path ?? '')).split('_')));
  return twice(words).some((w) => !own.has(w));
}

/**
 * Two operations told apart by their method alone, said after the name's own verb ("baskets_get_get"). Not when
 * the other is the same path on another method (AWS query APIs serve each action on GET and POST): the method is
 * all that differs.
 */
function methodCollision(t: SmellInput, words: string[], pathOf?: (name: string) => string | undefined): boolean {
  const method = (t.method ?? '').toLowerCase();
  const id = t.operationId ? snake(t.operationId).split('_') : [];
  if (words.length < 2 || words[words.length - 1] !== method || (id[id.length - 1] === method && !endsWith(id, ['using', method]))) return false;
  // With the other tools at hand: only when another tool holds the name without the method, on another path.
  if (pathOf) {
    const bare = (p: string | undefined) => p?.replace(/\/+$/, '');
    const other = pathOf(words.slice(0, -1).join('_'));
    return other !== undefined && bare(other) !== bare(t.path);
  }
  return words.slice(0, -1).some((w) => isVerb(w, true) || METHODS.has(w) || CRUD.has(w));
}

/** Actions a derived name ends in: before the method, they show the method was added to settle a collision. */
const CRUD = new Set(['list', 'get', 'create', 'update', 'replace', 'set', 'delete', 'check', 'search', 'add', 'remove']);

const ABBREVIATION_END = /\b(ie|eg|i\.e|e\.g|etc|vs|viz|cf|incl|approx|al)\.?$/i;
const DANGLING_END = /\s(a|an|the|of|and|or|your|its|their|such as|like)$/i;
/** A preposition may end a title after a clause of its own ("… an issue is blocked by"), not after a noun ("… copy to"). */
const STRANDED_END = /\s(to|for|by|with|from|in|on|at)$/i;
const CLAUSE_VERB = /^(is|are|was|were|be|been|has|have|had|can|will|[a-z]{3,}ed)$/i;

/** Cut short: inside parentheses or quotes, at an abbreviation ("… (ie"), or on a word that needs another after it. */
export function isCutTitle(title: string): boolean {
  const t = title.trim();
  const count = (re: RegExp) => (t.match(re) ?? []).length;
  if (count(/\(/g) !== count(/\)/g) || count(/\[/g) !== count(/\]/g) || count(/"/g) % 2) return true;
  if (ABBREVIATION_END.test(t) || DANGLING_END.test(t)) return true;
  return STRANDED_END.test(t) && !t.split(/\s+/).slice(-5, -1).some((w) => CLAUSE_VERB.test(w));
}

/** Actions a title says last when it reads its operationId noun-first ("Care team members list"). */
const TRAILING_ACTIONS = new Set(['list', 'create', 'read', 'retrieve', 'update', 'delete', 'destroy', 'get', 'patch', 'put', 'post', 'upsert', 'remove', 'replace']);
const ARTICLES = new Set(['a', 'an', 'the', 'this', 'your', 'its', 'their']);
const MODIFIERS = new Set(['bulk', 'batch', 'partial', 'partially', 'full', 'force', 'mass']);

export function isNounFirstTitle(title: string): boolean {
  // In Title Case the last word is as likely a noun ("Domain Warn List").
  if (/\s[A-Z][a-z]+$/.test(title.trim())) return false;
  const ws = title.toLowerCase().replace(/[^a-z0-9\s-]/g, ' ').split(/\s+/).filter(Boolean);
  // A noun phrase and then its action: no article or preposition ("Toggle the status of an allow list" is no such title).
  if (ws.length < 2 || !TRAILING_ACTIONS.has(ws[ws.length - 1]!) || ws.some((w) => ARTICLES.has(w) || PREPOSITIONS.has(w))) return false;
  const first = ws[0]!;
  return !isVerb(first) && !baseForm(first) && !MODIFIERS.has(first);
}

/**
 * Acronyms of the operationId that the name splits: a plural acronym ("floatingIPs" as `floating_i_ps`), a capital
 * before a word ("OAuth2" as `o_auth2`), or a capitals run before a lower-case word ("POSTquery" as `pos_tquery`).
 */
export function splitAcronyms(name: string, operationId?: string): string[] {
  const out = new Set<string>();
  const has = (s: string) => `_${name}_`.includes(`_${s}_`) || `_${name}`.includes(`_${s}`);
  if (!operationId) {
    for (const m of `_${name}_`.matchAll(/_(?=([a-z]_[a-z]s)_)/g)) out.add(m[1]!);
    return [...out];
  }
  for (const m of operationId.matchAll(/[A-Z]{2,}s(?![a-z])/g)) {
    const a = m[0].toLowerCase();
    const split = `${a.slice(0, -2)}_${a.slice(-2)}`;
    if (`_${name}_`.includes(`_${split}_`)) out.add(split);
  }
  // A lone capital before a capitalised word, not the words "A" and "I".
  for (const m of operationId.matchAll(/(?<![A-Z])([B-HJ-Z])([A-Z][a-z]+\d*)/g)) {
    const split = `${m[1]!.toLowerCase()}_${m[2]!.toLowerCase()}`;
    if (has(split)) out.add(split);
  }
  // "POSTquery": the capitals are one word when the lower-case rest is a word and the last capital plus it is not.
  for (const m of operationId.matchAll(/([A-Z]{2,})([a-z]{2,})/g)) {
    const caps = m[1]!.toLowerCase();
    const rest = m[2]!;
    const wrong = `${caps.slice(0, -1)}_${caps.slice(-1)}${rest}`;
    if (has(wrong) && wordRank(rest) < Infinity && wordRank(`${caps.slice(-1).toLowerCase()}${rest}`) === Infinity) out.add(wrong);
  }
  return [...out];
}

/** Every smell one tool carries; `pathOf`: the path of another tool by name (a collision's twin). */
export function nameSmells(t: SmellInput, pathOf?: (name: string) => string | undefined): NameSmell[] {
  const words = t.name.split('_').filter(Boolean);
  const out: NameSmell[] = [];
  if (framework(t, words)) out.push('framework');
  if (pathEcho(t, words)) out.push('pathEcho');
  if (methodCollision(t, words, pathOf)) out.push('methodCollision');
  if (isCutTitle(t.title)) out.push('cutTitle');
  if (isNounFirstTitle(t.title)) out.push('nounFirstTitle');
  if (splitAcronyms(t.name, t.operationId).length) out.push('acronymSplit');
  return out;
}

export interface SmellCount {
  tools: number;
  /** Tools with at least one smell. */
  smelly: number;
  by: Record<NameSmell, number>;
  examples: Array<{ name: string; title: string; smells: NameSmell[] }>;
}

export function countSmells(tools: SmellInput[], examples = 5): SmellCount {
  const by = Object.fromEntries(NAME_SMELLS.map((s) => [s.smell, 0])) as Record<NameSmell, number>;
  const found: SmellCount['examples'] = [];
  let smelly = 0;
  const paths = new Map(tools.map((t) => [t.name, t.path]));
  for (const t of tools) {
    const s = nameSmells(t, (n) => paths.get(n));
    if (!s.length) continue;
    smelly++;
    for (const k of s) by[k]++;
    found.push({ name: t.name, title: t.title, smells: s });
  }
  found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { tools: tools.length, smelly, by, examples: found.slice(0, examples) };
}
