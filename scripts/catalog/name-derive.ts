// Names from meaning (docs/naming.md, "Names from meaning"): the words of a tool's full name before shortening.
// A good operationId gives them as it is. A path-style one (the HTTP method plus the path's words, as generators
// write them: `PostCustomersCustomer`, `get_files_id`, `PutLeaveRequestByLeaveRequestId`) or a missing one is
// replaced by the resource then its action, both read from the method and the path's shape, with the verb the
// summary says when it is clearer (`DELETE /v1/subscriptions/{id}` "Cancels a subscription" -> subscriptions_cancel).
// An HTTP method that is not a verb (`post_`, `put_`, `head_`) is replaced by the action it means.
import { canonicalVerb, isVerb, leadVerb, READ_VERBS } from './name-verbs.ts';
import { actionFragment, dictionary, isPlural, isVersion, METHOD_WORDS, pathPart, shapeOf, splitWord, stem, type Shape } from './name-shape.ts';
import { authorWords, saysNoAction } from './name-framework.ts';
import { snake } from './snake.ts';
import { actionPhrase } from './title-text.ts';
/** Methods that are not English action verbs ("trace" is one). */
const HTTP_ONLY = new Set(['post', 'put', 'head', 'options']);
const PUT_POST = new Set(['post', 'put']);
const FILLER = new Set(['by', 'for', 'of', 'and', 'with', 'a', 'an', 'the']);

/** The operation as naming sees it. */
export interface NamingInput {
  operationId?: string;
  method: string;
  path: string;
  /** The summary, else the description: its opening verb can name the action. */
  summary?: string;
  description?: string;
  /** It takes a request body. */
  hasBody?: boolean;
}

/** What a derived name is made of: titles are built from it when the spec's own text does not make one. */
export interface Derived {
  /** Resource words, parent first ("customer", "subscriptions"). */
  resource: string[];
  /** Action words ("list", "cancel", "mark_uncollectible" as ["mark", "uncollectible"]). */
  verb: string[];
  /** The path ends in the resource's identifier. */
  item: boolean;
  /** A link between two items (a user and a group), added or removed: titles say "Add a user to a group". */
  link?: { parent: string[]; child: string[] };
  /** The action the method alone means, when the text said another ("replace" for a PUT its summary calls an update). */
  plain?: string[];
}

export interface NameWords {
  /** Every word the name may use (the collision step picks from these), snake_case. */
  full: string;
  /** Names to try first, the first that fits the budget (a derived name's resource and verb, with less context each). */
  preferred?: string[];
  /** Words shortening must keep (a derived name's resource noun and verb). */
  keep?: string[];
  derived?: Derived;
}


/** The text opens with an update verb ("Update an existing patient allergy", "Edit …", "Replace …"). */
function saysUpdate(text: string | undefined): boolean {
  const lead = text ? leadVerb(actionPhrase(text)) : undefined;
  const first = lead ? canonicalVerb(lead.verb.split('_')[0]!) : '';
  return first === 'update' || first === 'replace';
}

/** The action words: an action sub-path, else the text's verb, else the method's; DELETE on an action path undoes it ("Unstar"). */
function actionOf(method: string, s: Shape, text: string | undefined, link = false): string[] {
  if (s.action && method === 'delete') {
    const said = textVerb(method, { ...s, resource: [] }, text, '');
    return said ? said.split('_') : [...s.action, 'delete'];
  }
  return s.action ?? textVerb(method, s, text, methodVerb(method, s, link)).split('_');
}

/** The action the method means on this shape; on a link (a bodyless PUT's path), PUT adds it and DELETE removes it. */
function methodVerb(method: string, s: Shape, link = false): string {
  if (link && (method === 'put' || method === 'delete')) return method === 'put' ? 'add' : 'remove';
  switch (method) {
    case 'get':
      return s.item || !(s.plural || s.collection) ? 'get' : 'list';
    case 'head':
      return 'check';
    case 'post':
      return s.item ? 'update' : 'create';
    case 'put':
      return s.item ? 'replace' : 'set';
    case 'patch':
      return 'update';
    case 'delete':
      return 'delete';
    case 'options':
      return 'describe';
    default:
      return method;
  }
}

/** The verb the summary (else the description) opens with, when the method allows it and it says more than the resource. */
function textVerb(method: string, s: Shape, text: string | undefined, fallback: string): string {
  if (method === 'head' || !text) return fallback;
  const lead = leadVerb(actionPhrase(text));
  // "List of absences" says no verb, but on a GET it says what comes back.
  if (!lead && method === 'get' && /^(a\s+)?list\s+of\s/i.test(actionPhrase(text)) && !s.item) return 'list';
  // A collection named in the singular (/photo with /photo/{version} under it) is read as one thing when the text says so.
  if (!lead && fallback === 'list' && !s.plural && namesOne(text)) return 'get';
  if (!lead) return fallback;
  const v = lead.verb.split('_').map(canonicalVerb).join('_');
  const first = v.split('_')[0]!;
  const read = READ_VERBS.has(first) || READ_VERBS.has(canonicalVerb(first));
  // A POST may search or validate, not get or list: "Returns anything passed" on a POST is no read.
  if ((method === 'get') !== read && !(method === 'post' && read && first !== 'get' && first !== 'list')) return fallback;
  if (method === 'delete' && /^(create|add|set|update|upload|send)$/.test(first)) return fallback;
  // "Reverses …" on /debit_reversals says what the resource already says.
  const tail = s.resource[s.resource.length - 1] ?? '';
  if (first.length > 3 && tail.startsWith(first.replace(/e$/, '').slice(0, 5))) return fallback;
  // "Get customers" on a collection lists them; "Get the current settings" gets one thing.
  if (v === 'get' && fallback === 'list') return saysOne(actionPhrase(text)) || (!s.plural && namesOne(text)) ? 'get' : 'list';
  if (v === 'list' && fallback === 'get' && s.item) return 'get';
  return v;
}

/**
 * On a collection, "Get a customer", "Get the current user" or "Get a random joke" ask for one thing; "Get customers"
 * and "Get group hierarchy" (the collection as a whole) list it.
 */
function saysOne(phrase: string): boolean {
  if (/\b(number|count|total|amount|sum)\s+of\b/i.test(phrase)) return true;
  return /^\S+\s+(a|an|one|single|specific|random|(the|your|my|our)\s+(current|first|last|latest|default|single))\s/i.test(phrase);
}

/** The text names one thing: its object (after a verb, before a preposition) ends in a singular noun ("Photo of an employee"). */
function namesOne(text: string): boolean {
  const phrase = actionPhrase(text);
  const lead = leadVerb(phrase);
  const object = phrase.split(/\s+/).slice(lead?.words ?? 0).join(' ').split(/\s+(of|for|in|on|from|by|with|to|that|which)\s/i)[0]!.split(/\s+/);
  const last = object[object.length - 1]?.toLowerCase() ?? '';
  return saysOne(phrase) || (!!last && !isPlural(last) && !/^(list|all)$/.test(last));
}

/** The operationId's words repeat the path: all but the method and filler words are path words. */
function echoesPath(words: string[], path: string): boolean {
  const letters = `${pathPart(path)}${actionFragment(path) ?? ''}`.toLowerCase().replace(/[^a-z0-9]/g, '');
  const param = path.includes('{');
  const rest = words.slice(1).filter((w) => !FILLER.has(w) && !isVersion(w) && !(param && (w === 'id' || w === 'ids')));
  // "policies" is in /policy_assignments, "customer" in /customers: compare without the ending. One long
  // operationId in five words may misspell one ("…Bypayment…").
  const misses = rest.filter((w) => !letters.includes(w.length > 4 ? w.slice(0, -2) : w)).length;
  return rest.length > 0 && misses <= Math.floor(rest.length / 5);
}

/**
 * A generator's mark on an operationId: the method, then only path words, with a method that is not a verb, a noun
 * said twice ("customers_customer", "leave_request_by_leave_request_id") or an identifier ("files_id"); or the
 * path's words, then an action (Django REST's "dcim_cables_list", "games_read").
 */
export function pathStyleMark(operationId: string | undefined, path: string): boolean {
  const words = operationId ? snake(operationId).split('_').filter(Boolean) : [];
  if (!words.length) return false;
  const a = authorWords(operationId!, '', path, true);
  if (a.marked && !a.words.length) return true;
  if (!METHOD_WORDS.has(words[0]!) || !echoesPath(words, path)) return false;
  if (HTTP_ONLY.has(words[0]!) || words[0] === 'patch') return true;
  const nouns = words.slice(1).filter((w) => !FILLER.has(w) && w !== 'id' && w !== 'ids').map(stem);
  if (new Set(nouns).size < nouns.length) return true;
  return /\{[^}]+\}/.test(path) && /_[a-z]+_ids?(_|$)/.test(`_${words.slice(1).join('_')}`) && !words.includes('by');
}

/**
 * True when most of a spec's operationIds carry a generator's mark: the spec names operations after their
 * paths, so every operationId that is the method plus path words is read as one (GetCharges next to PostCharges).
 */
export function namesPathsAsOperations(ops: NamingInput[]): boolean {
  const withId = ops.filter((o) => o.operationId && snake(o.operationId));
  return withId.length > 0 && withId.filter((o) => pathStyleMark(o.operationId, o.path)).length >= withId.length / 2;
}

/** How a spec names its operations, as naming needs it: a few facts read once over all of them. */
export interface SpecStyle {
  /** Most operationIds are the method and the path (namesPathsAsOperations). */
  pathStyle: boolean;
  /** Handler names that a framework numbered (`getPayments`, `getPayments_1`): they tell no operation apart. */
  counted: ReadonlySet<string>;
  /** Numbered handler names whose operations are one (the same method on paths that differ by a trailing slash). */
  aliases: ReadonlySet<string>;
  /** Paths of links: an item that a PUT without a body adds to its collection (a user to a group), and a DELETE removes. */
  links: ReadonlySet<string>;
  /** Paths with items under them (/groups when /groups/{id} is a path): collections, whatever their number. */
  collections: ReadonlySet<string>;
  /** The API's own name leading every operationId (Google's discovery ids, "cloudprivatecatalogproducer.catalogs.create"), as words. */
  api?: string[];
}

export const PLAIN_SPEC: SpecStyle = { pathStyle: false, counted: new Set(), aliases: new Set(), links: new Set(), collections: new Set() };

/**
 * The first segment of dotted operationIds when every operationId of the spec starts with it and some go on for two
 * more segments (`service.resource.method`): the name of the API, which every one of its tools would repeat.
 */
function apiName(ops: NamingInput[]): string[] | undefined {
  const ids = ops.map((o) => o.operationId).filter((id): id is string => !!id);
  if (ids.length < 2 || ids.length < ops.length) return undefined;
  const first = ids[0]!.split('.')[0]!;
  if (!first || !ids.every((id) => id.startsWith(`${first}.`)) || !ids.some((id) => id.split('.').length > 2)) return undefined;
  const words = snake(first).split('_').filter(Boolean);
  return words.length ? words : undefined;
}

const bare = (path: string) => pathPart(path).replace(/\/+$/, '');

/** An item of a collection, as a path: /groups/{groupId}, /users/{id}/groups/{groupId}. */
const COLLECTION_ITEM = /\/[^/{}]+\/\{[^}]+\}\/?$/;

export function specStyle(ops: NamingInput[]): SpecStyle {
  const pathStyle = namesPathsAsOperations(ops);
  const family = new Map<string, Set<string>>();
  const numbered = new Set<string>();
  for (const o of ops) {
    if (!o.operationId) continue;
    const a = authorWords(o.operationId, o.method, o.path, pathStyle);
    const k = a.words.join('_');
    family.set(k, (family.get(k) ?? new Set()).add(`${o.method.toLowerCase()} ${bare(o.path)}`));
    if (a.counter) numbered.add(k);
  }
  // A family on one path served twice (/api/address and /api/address/) is one operation: its name stays the handler's.
  const aliases = new Set([...numbered].filter((k) => family.get(k)!.size === 1));
  const links = new Set(ops.filter((o) => o.method.toLowerCase() === 'put' && o.hasBody === false && COLLECTION_ITEM.test(pathPart(o.path))).map((o) => o.path));
  const collections = new Set(ops.map((o) => /^(.*)\/\{[^}]*\}$/.exec(bare(o.path))?.[1]).filter((p): p is string => !!p));
  const api = apiName(ops);
  return { pathStyle, counted: new Set([...numbered].filter((k) => family.get(k)!.size > 1)), aliases, links, collections, ...(api ? { api } : {}) };
}

/**
 * The words the operation's text says after a verb of its own ("Update Calendar Block": calendar, block): a path word
 * among them names a thing, not the action ("/calendars/block/{id}", "/calendars/{id}/block"), as it would in "Block
 * a calendar". Undefined when the text does not open with a verb.
 */
function saidAsNoun(text: string | undefined): ((word: string) => boolean) | undefined {
  const words = (text ?? '').split(/[.!?](\s|$)/)[0]!.split(/[^A-Za-z]+/).filter(Boolean).map((w) => w.toLowerCase());
  if (!words.length || !isVerb(words[0]!)) return undefined;
  const nouns = new Set(words.slice(1).map((w) => stem(w)));
  return (w) => w !== words[0] && nouns.has(stem(w));
}

/** The words of one operation's name (see the module comment); `spec` from specStyle. */
export function nameWords(op: NamingInput, spec: SpecStyle = PLAIN_SPEC): NameWords {
  const method = op.method.toLowerCase();
  const text = op.summary || op.description;
  let raw: string[] = [];
  if (op.operationId) {
    const a = authorWords(op.operationId, method, op.path, spec.pathStyle);
    const counted = spec.counted.has(a.words.join('_'));
    // A framework's id names the operation by its handler's name, when that says an action and no other operation shares it.
    if (counted || a.pathFirst || (a.marked && saysNoAction(a.words, op.path))) return derive(op, method, a.words, text, spec, a.modifier);
    const alias = spec.aliases.has(a.words.join('_'));
    raw = operationIdWords(a.marked || a.trimmed || alias ? [...a.words, ...(a.counter && !alias ? [a.counter] : [])].join('_') : op.operationId, op);
  }
  // A word said twice in a row, either number, says it once ("copilot/copilot-usage-metrics", Magento's
  // "companyCompanyHierarchy…", AutoRest's "Errors_ErrorSearch").
  raw = raw.filter((w, i) => i === 0 || (w !== raw[i - 1] && !(w.length > 3 && stem(w) === stem(raw[i - 1]!))));
  // A leading "api" that only says the path's own leading /api/ (ASP.NET's controller group "Api_GetUser" on
  // /api/v2.1/…) names no resource; "api_keys_list" on /api/api-keys keeps it.
  if (raw.length > 2 && raw[0] === 'api' && /^\/api\//i.test(pathPart(op.path)) && !snake(pathPart(op.path).replace(/^\/api\//i, '/')).split('_').includes('api')) raw = raw.slice(1);
  // A lone verb ("Retrieve") says no resource: the path does.
  const lone = raw.length === 1 && (isVerb(raw[0]!) || METHOD_WORDS.has(raw[0]!));
  if (!raw.length || lone || (spec.pathStyle && METHOD_WORDS.has(raw[0]!) && echoesPath(raw, op.path))) return derive(op, method, raw, text, spec);
  let words = raw;
  // The method in the verb's place, first, after one namespace word ("Object_POSTProduct") or last
  // ("LicenseActivations_Put", "api_transport_post"): the action it means. Past the first word only post and put:
  // "options" and "head" are nouns there ("ModifyVpnConnectionOptions").
  const end = words.length - 1;
  const at = HTTP_ONLY.has(words[0]!) ? 0 : words.length > 2 && PUT_POST.has(words[1]!) ? 1 : end > 0 && PUT_POST.has(words[end]!) ? end : -1;
  if (at >= 0) {
    const rest = words.slice(at + 1);
    if (rest.some((w) => isVerb(w, true))) words = [...words.slice(0, at), ...rest];
    else {
      const s = shapeOf(op.path, method, dictionary(op, words));
      words = [...words.slice(0, at), ...actionOf(method, s, text), ...rest];
    }
  }
  return { full: words.join('_') };
}

/** A derived name that would open with an HTTP method ("post_review_create" from /post-review) loses it. */
function withoutMethodLead(words: string[]): string[] {
  return HTTP_ONLY.has(words[0]!) && words.length > 1 ? words.slice(1) : words;
}

/**
 * An operationId's words without a method word beside its verb ("POST_DeleteIdentityPolicy") or glued to its end
 * ("customerGroupRepositoryV1SavePut", "SearchByGlobalNamePost").
 */
export function operationIdWords(operationId: string, op?: NamingInput): string[] {
  let words = snake(operationId).split('_').filter(Boolean);
  // "Deletefixedpricesonapricetableortradepolicy": a long word the summary spells out word by word.
  if (op && words.some((w) => w.length >= 12)) {
    const dict = dictionary(op, [], true);
    words = words.flatMap((w) => (w.length >= 12 ? splitWord(w, dict) : [w]));
  }
  if (/^(GET|PUT|POST|PATCH|DELETE|HEAD)[-_.]/.test(operationId) && isVerb(words[1] ?? '')) words = words.slice(1);
  // A glued Get or Delete with no other verb is the verb of a resource-then-verb operationId (Plaid's
  // "accountsBalanceGet"), not a method to drop.
  const tail = /[a-z0-9](Get|Put|Post|Delete|Patch|Head)$/.exec(operationId)?.[1];
  const camelTail = tail !== undefined && (!/^(Get|Delete)$/.test(tail) || words.slice(0, -1).some((w) => isVerb(w)));
  // Only the operation's own method: "…DiffOrPatch" on a GET says what it gets.
  const last = words[words.length - 1]!;
  const own = !op || last === op.method.toLowerCase();
  if (words.length > 2 && own && !/^(or|and|to)$/.test(words[words.length - 2]!) && METHOD_WORDS.has(last) && (camelTail || words.slice(1, -1).some((w) => isVerb(w, true)))) words = words.slice(0, -1);
  return words;
}

function derive(op: NamingInput, method: string, opWords: string[], text: string | undefined, spec: SpecStyle = PLAIN_SPEC, modifier: string[] = []): NameWords {
  const s = shapeOf(op.path, method, dictionary(op, opWords), spec.collections.has(bare(op.path)), saidAsNoun(text));
  // A link joins two items (a member to a team): an item under a parent item, whose text does not call the PUT an
  // update. A spec that documents no bodies (drchrono's) has bodyless PUTs that update their item.
  const linked = s.item && s.nested && spec.links.has(op.path) && !saysUpdate(text);
  const acted = actionOf(method, s, text, linked);
  const verb = acted[0] === modifier[0] ? acted : [...modifier, ...acted];
  // Only parameters (/{id}): the operationId's own nouns name the resource ("story_id_get": story), else it is the root.
  const nouns = opWords.filter((w) => !isVerb(w) && !METHOD_WORDS.has(w) && !/^(id|ids|by)$/.test(w));
  const resource = s.resource.length ? s.resource : s.action ? [] : nouns.length ? nouns : ['root'];
  const child = resource.slice(s.parent.length);
  const link = linked && s.nested && /^(add|remove)$/.test(verb.join('_')) && child.length ? { link: { parent: s.parent, child } } : {};
  const plainVerb = methodVerb(method, s, linked);
  const plain = !s.action && plainVerb !== verb.join('_') ? { plain: [plainVerb] } : {};
  const preferred = [...new Set([resource, ...s.shorter].map((r) => withoutMethodLead([...r, ...verb]).join('_')))];
  const full = withoutMethodLead([...(s.all.length ? s.all : resource), ...verb]).join('_');
  const words = new Set(full.split('_'));
  const keep = [...resource.slice(-1), verb[0]!].filter((w) => words.has(w));
  return { full: full.length >= preferred[0]!.length ? full : preferred[0]!, preferred, keep, derived: { resource, verb, item: s.item, ...link, ...plain } };
}

/** The resource and action of an operation as a derived name would say them (titles are built from them). */
export function derivedParts(op: NamingInput): Derived {
  const words = op.operationId ? snake(op.operationId).split('_').filter(Boolean) : [];
  return derive(op, op.method.toLowerCase(), words, op.summary || op.description).derived!;
}
