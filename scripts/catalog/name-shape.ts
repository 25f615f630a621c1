// The shape of a path as names read it (docs/naming.md, "Names from meaning"): its segments (versions, a leading
// "api", extensions and baked-in identifiers left out; glued words split by the operation's own words), and the
// resource, parent, namespace and action sub-path they say.
import { isNounFirst, isVerb, READ_VERBS } from './name-verbs.ts';
import { snake } from './snake.ts';

export const METHOD_WORDS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

export const stem = (w: string) => (w.length > 3 ? w.replace(/ies$/, 'y').replace(/(ss|sh|ch|x)es$/, '$1').replace(/([^s])s$/, '$1') : w);
export const isVersion = (s: string) => /^v?\d+([._-]\d+)*([a-z]+\d*)?$/i.test(s);
export const isPlural = (w: string) => /[^su]s$/.test(w) || /(ies|ses|xes|ches|shes)$/.test(w) || w === 'data' || w === 'people';

interface Seg {
  param: boolean;
  words: string[];
  /** Written as one lowerCamelCase identifier ("listOrganisms"): an RPC method's name. */
  camel?: boolean;
}

export const pathPart = (path: string) => path.replace(/[?#].*$/, '');

/**
 * A fragment that names an action (Box's /files/{file_id}#get_shared_link). Others say nothing a name needs: AWS's
 * #Action=… repeats the operationId, its #policy or #channelArn only tell paths apart.
 */
export function actionFragment(path: string): string | undefined {
  const f = /#([A-Za-z][\w-]*)$/.exec(path.replace(/\?.*$/, ''))?.[1];
  return f && isVerb(snake(f).split('_')[0]!) ? f : undefined;
}

/** The path's segments without query, fragment, file extensions, versions and a leading "api"/"rest"; concatenated words split by `dict`. */
export function segments(path: string, dict: Set<string>): Seg[] {
  const out: Seg[] = [];
  for (const raw of [...pathPart(path).split('/'), actionFragment(path) ?? '']) {
    if (!raw) continue;
    if (/^\{[^}]*\}$/.test(raw) || /^:\w+$/.test(raw)) {
      out.push({ param: true, words: snake(raw.replace(/^[{:]|\}$/g, '')).split('_').filter(Boolean) });
      continue;
    }
    // An identifier baked into a segment ("securityClassification-6VMVochwUWo") is no word.
    const s = raw
      .replace(/\{[^}]*\}/g, '')
      .replace(/\.(json|xml|csv|txt|html|yaml|\w{0,4})$/i, '')
      .split(/[-_.]/)
      .filter((p) => !(p.length >= 8 && /\d/.test(p) && /[a-z]/.test(p) && /[A-Z].*[A-Z]/.test(p)))
      .join('_');
    if (!s || isVersion(s) || (/^(api|rest)$/i.test(s) && !out.some((x) => !x.param))) continue;
    const words = snake(s).split('_').filter(Boolean).flatMap((w) => splitWord(w, dict));
    if (words.length) out.push({ param: false, words, camel: /^[a-z]+[A-Z]\w*$/.test(s) });
  }
  return out;
}

/** "leaverequests" -> ["leave", "requests"] when the operation's own words spell it; else the word as it is. */
export function splitWord(word: string, dict: Set<string>): string[] {
  if (word.length < 6 || dict.has(word)) return [word];
  // best[i]: fewest dictionary words spelling word.slice(0, i), each maybe plural.
  const best: Array<string[] | undefined> = [[]];
  for (let i = 1; i <= word.length; i++) {
    for (let j = 0; j < i; j++) {
      const prev = best[j];
      const piece = word.slice(j, i);
      if (!prev || (piece.length < 2 && piece !== 'a')) continue;
      const known = dict.has(piece) || dict.has(piece.replace(/s$/, '')) || dict.has(piece.replace(/es$/, ''));
      if (known && (!best[i] || prev.length + 1 < best[i]!.length)) best[i] = [...prev, piece];
    }
  }
  const found = best[word.length];
  return found && found.length > 1 ? found : [word];
}

/** "customers" -> "customer"; "posts" stays: a name never opens with what reads as an HTTP method. */
export const singular = (w: string) => {
  const one = isPlural(w) ? w.replace(/ies$/, 'y').replace(/(ss|sh|ch|x)es$/, '$1').replace(/s$/, '') : w;
  return METHOD_WORDS.has(one) ? w : one;
};

export interface Shape {
  /** Parent, namespace and resource words: the name's resource. */
  resource: string[];
  /** The resource alone, and with its parent only: shorter resources when the whole one is too long. */
  shorter: string[][];
  /** Every static word of the path up to the resource: the words a collision may need. */
  all: string[];
  item: boolean;
  plural: boolean;
  /** The spec has items under this path: a collection, whatever its number. */
  collection: boolean;
  /** An item under another item's collection (/users/{id}/groups/{groupId}). */
  nested: boolean;
  /** The item it hangs from, singular ("user"). */
  parent: string[];
  action?: string[];
}

/** Resource, parent and action of a path (docs/naming.md); `collection`: the spec has items under this path, so it names a resource, never an action. */
export function shapeOf(path: string, method: string, dict: Set<string>, collection = false, noun?: (word: string) => boolean): Shape {
  const segs = segments(path, dict);
  let action: string[] | undefined;
  const last = segs[segs.length - 1];
  // A word the operation's own text says as a thing ("Create Calendar Block" for /calendars/{id}/block) is no action.
  const first = collection || (last && noun?.(last.words[0] ?? '')) ? '' : (last?.words[0] ?? '');
  // An action sub-path (/cancel, /mark_uncollectible, /search, a ledger's /post) is the verb; a GET's only when it
  // reads; a word as often a noun only alone (/refund, not /login_links). An RPC path (/getPathway, /upload, a
  // GET's /search) is all action; an OPTIONS describes a resource.
  if (last && !last.param && (segs.length > 1 || last.words.length > 1 || isVerb(first, true)) && (isVerb(first, last.words.length > 1 && !last.camel) || (first === 'post' && last.words.length === 1 && segs.length > 1))) {
    if (method !== 'options' && (!/^(get|head)$/.test(method) || READ_VERBS.has(first))) {
      action = last.words;
      segs.pop();
    }
  }
  // A verb segment before the last parameter (/search/{term}, /copyTo/{gameId}, /copy/to/{gameId}) is the action
  // too, unless the parameter is its own item's identifier (/leave/{leaveId}, /downloadrequests/{downloadRequestId}).
  const glued = segs.length > 3 && /^(to|from|into|with|for|by|as)$/.test(segs[segs.length - 2]?.words.join('_') ?? '') && !segs[segs.length - 3]!.param ? 2 : 1;
  const prev = segs[segs.length - 1 - glued];
  const verb = prev?.words[0] ?? '';
  const ownItem = !!prev && !!last?.param && idOf(prev.words, last.words);
  if (!action && last?.param && prev && !prev.param && !ownItem && !noun?.(verb) && segs.length > 1 + glued && (/^(get|head)$/.test(method) ? READ_VERBS.has(verb) && verb !== 'get' : isVerb(verb, glued === 1))) {
    action = segs.slice(segs.length - 1 - glued, segs.length - 1).flatMap((sg) => sg.words);
    segs.splice(segs.length - 1 - glued, glued);
  }
  // A leading verb segment before a static one (/get/delay, /validate/name/{name}, not /request/{id}) is the
  // action when the path ends in none.
  const lead = segs[0]?.words[0] ?? '';
  if (!action && segs.length > 1 && !segs[0]!.param && !segs[1]!.param && segs[0]!.words.length === 1 && isVerb(lead) && !isNounFirst(lead)) action = segs.shift()!.words;
  let r = segs.length - 1;
  while (r >= 0 && segs[r]!.param) r--;
  if (r < 0) {
    // Only parameters (/{realm}): the last one names the resource, not a "root".
    const named = (segs[segs.length - 1]?.words ?? []).filter((w) => !/^(id|ids|key|name|uuid|pk)$/.test(w));
    return { resource: named, shorter: [], all: named, item: segs.length > 0, plural: false, collection: false, nested: false, parent: [], action };
  }
  const item = r < segs.length - 1;
  // The static segment right before the resource is its namespace ("checkout" in /checkout/sessions); the
  // collection before the parameter they hang from is the parent ("customer" in /customers/{customer}/subscriptions).
  const ns = r > 0 && !segs[r - 1]!.param ? segs[r - 1]!.words : [];
  let j = r - 1 - (ns.length ? 1 : 0);
  let parent: string[] = [];
  if (j >= 0 && segs[j]!.param) {
    while (j >= 0 && segs[j]!.param) j--;
    if (j >= 0) parent = singularLast(segs[j]!.words);
  }
  const head = segs[r]!.words;
  // "project_memberships" under /projects/{id} already names its parent ("large data" above "data": "large").
  if (parent.length && stem(head[0]!) === stem(parent[parent.length - 1]!)) parent = parent.slice(0, -1);
  // As written: GitLab serves both /merge_request/{id} and /merge_requests/{id}, and only the plural tells them apart.
  const all = segs.slice(0, r + 1).flatMap((sg) => (sg.param ? [] : sg.words));
  // A namespace the resource repeats (/absences/absenceprogress) is said once, and so is a word the parent ends
  // and the namespace begins with (/client-scopes/{id}/scope-mappings: "client_scope_mappings").
  const space = ns.length && stem(ns[ns.length - 1]!) === stem(head[0]!) ? ns.slice(0, -1) : ns;
  if (parent.length && space.length && stem(parent[parent.length - 1]!) === stem(space[0]!)) parent = parent.slice(0, -1);
  // An item of a collection that hangs from another item (/users/{id}/groups/{groupId}): a link between the two.
  const nested = item && r === segs.length - 2 && !ns.length && parent.length > 0;
  return { resource: [...parent, ...space, ...head], shorter: [[...parent, ...head], head], all, item, plural: isPlural(head[head.length - 1]!), collection, nested, parent, action };
}

export const singularLast = (ws: string[]) => [...ws.slice(0, -1), singular(ws[ws.length - 1]!)];

/** The parameter names an item of the segment: its words (either number) and an identifier ("leave_policy_id"). */
function idOf(segment: string[], param: string[]): boolean {
  const rest = param.slice(0, -1);
  return /^(id|ids|key|uuid|code|name|number|no|pk)$/.test(param[param.length - 1] ?? '') && rest.length === segment.length && rest.every((w, i) => stem(w) === stem(segment[i]!));
}

/** The words an operation gives: its operationId's, its summary's and its parameters'. */
export function dictionary(op: { summary?: string; path: string }, opWords: string[], methods = false): Set<string> {
  const words = [...opWords, ...(op.summary ?? '').split(/[^A-Za-z]+/).flatMap((w) => snake(w).split('_'))];
  for (const m of op.path.matchAll(/\{([^}]*)\}/g)) words.push(...snake(m[1]!).split('_'));
  return new Set(words.filter((w) => (w.length >= 2 || w === 'a') && (methods || !METHOD_WORDS.has(w))));
}

