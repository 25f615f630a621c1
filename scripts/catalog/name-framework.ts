// Framework-made operationIds (docs/naming.md, "Framework-made operationIds"). Web frameworks write an operationId
// from the handler's name, the path and the method, and leave their mark at its end: FastAPI
// `{handler}_{path}_{method}` ("get_endpoint_secret_api_v1_app__app_id__endpoint__endpoint_id__secret__get"),
// Springfox `{handler}Using{METHOD}`, numbered duplicates (`delete_1` … `delete_14`, `getAllUsingGET_2`), API
// Platform `api_{path}_{method}[_collection]`, Django REST `{path}_{read|partial_update|…}`. The mark is read off the
// end and goes with the path echo before it; what is left is the author's: the handler's name, used when it says an
// action, else the name is built from meaning as if there were no operationId (name-derive.ts).
import { METHOD_WORDS } from './name-shape.ts';
import { isVerb } from './name-verbs.ts';
import { snake } from './snake.ts';

/**
 * Actions Django REST writes after the path; these two, on their own method, no person writes there, so they
 * mark an id in any spec, even when the view's name says the path only roughly (OSF's `licenses_read` on /license/{id}).
 */
const FRAMEWORK_ACTIONS = [['partial', 'update'], ['read']];
const ACTION_METHOD: Record<string, string> = { partial: 'patch', read: 'get' };
const ACTION_TAILS = [...FRAMEWORK_ACTIONS, ['list'], ['create'], ['retrieve'], ['update'], ['delete'], ['destroy']];

interface PathToken {
  words: string[];
  /** A parameter, or a leading `api`/`rest`/version segment: an echo may leave it out. */
  optional: boolean;
  param: boolean;
}

function pathTokens(path: string): PathToken[] {
  const out: PathToken[] = [];
  for (const seg of path.replace(/[?#].*$/, '').split('/').filter(Boolean)) {
    const param = /^\{[^}]*\}$/.test(seg) || /^:\w+$/.test(seg);
    const words = snake(seg).split('_').filter(Boolean);
    if (!words.length) continue;
    const lead = !param && !out.some((t) => !t.optional) && /^(api|rest|v?\d+([._-]\d+)*([a-z]+\d*)?)$/i.test(seg);
    out.push({ words, optional: param || lead, param });
  }
  return out;
}

/**
 * Where the words end in an echo of the whole path (every segment in order; parameters and a leading `api` or
 * version may be left out): the index the echo starts at, the earliest when there are several, and whether it
 * says a parameter or a leading segment. Undefined when the words do not end so.
 */
export function pathEchoAtEnd(words: string[], path: string): { start: number; says: boolean } | undefined {
  const tokens = pathTokens(path);
  const memo = new Map<string, { start: number; says: boolean } | null>();
  const go = (w: number, t: number): { start: number; says: boolean } | undefined => {
    if (t === 0) return { start: w, says: false };
    const key = `${w},${t}`;
    if (memo.has(key)) return memo.get(key) ?? undefined;
    const tok = tokens[t - 1]!;
    let best: { start: number; says: boolean } | undefined;
    for (const n of echoLengths(words.slice(0, w), tok)) {
      const r = go(w - n, t - 1);
      if (r && (!best || r.start < best.start)) best = { start: r.start, says: r.says || tok.optional };
    }
    if (tok.optional) {
      const r = go(w, t - 1);
      if (r && (!best || r.start < best.start)) best = r;
    }
    memo.set(key, best ?? null);
    return best;
  };
  const r = go(words.length, tokens.length);
  return r && r.start < words.length ? r : undefined;
}

const stem = (w: string) => (w.length > 3 ? w.replace(/ies$/, 'y').replace(/s$/, '') : w);

/**
 * How many of the words' last ones say the token: its words, either number ("session" for /sessions); a parameter
 * also by the end of its name, glued or not ("userid" for {story_collaborator_userid}, "ooxmlautomationid").
 */
function echoLengths(words: string[], tok: PathToken): number[] {
  const out: number[] = [];
  const n = tok.words.length;
  if (n <= words.length && tok.words.every((x, k) => stem(words[words.length - n + k]!) === stem(x))) out.push(n);
  if (tok.param) {
    const joined = tok.words.join('');
    for (let k = 1; k <= Math.min(words.length, n); k++) {
      const said = words.slice(-k).join('');
      if (k !== n && said.length >= 2 && joined.endsWith(said) && !out.includes(k)) out.push(k);
    }
  }
  return out;
}

/** The path's version when it leads it (after an optional `api` or `rest`): "v1" for /V1/… and /api/v1/…. */
function leadingVersion(path: string): string | undefined {
  const segs = path.replace(/[?#].*$/, '').split('/').filter(Boolean);
  const first = /^(api|rest)$/i.test(segs[0] ?? '') ? segs[1] : segs[0];
  return first && /^v\d+$/i.test(first) ? first.toLowerCase() : undefined;
}

/** Where the words end in an echo of the path's last segments (two or more, a parameter among them), or undefined. */
function endEcho(words: string[], path: string): number | undefined {
  const segs = path.replace(/[?#].*$/, '').split('/').filter(Boolean);
  for (let k = segs.length; k >= 2; k--) {
    const tail = segs.slice(-k);
    // From a static segment on: parameters alone are no echo ("…ByIndex" on /{imageType}/{imageIndex}).
    if (tail[0]!.startsWith('{') || !tail.some((x) => x.startsWith('{'))) continue;
    const echo = pathEchoAtEnd(words, `/${tail.join('/')}`);
    if (echo?.says) return echo.start;
  }
  return undefined;
}

const endsWith = (words: string[], tail: string[]) => tail.length < words.length && tail.every((w, i) => words[words.length - tail.length + i] === w);

/** The operationId's words without a trailing counter (`delete_1`, `getAllUsingGET_2`). */
function withoutCounter(words: string[]): { words: string[]; counter?: string } {
  return words.length > 1 && /^\d+$/.test(words[words.length - 1]!) ? { words: words.slice(0, -1), counter: words[words.length - 1]! } : { words };
}

export interface AuthorWords {
  /** What is left of the operationId: the author's words (a handler's name), maybe none. */
  words: string[];
  /** The id carried a framework's mark (besides a counter). */
  marked: boolean;
  /** A version the path has went from it ("…2020_05_31", "…V1…"): the words are the id's, without it. */
  trimmed: boolean;
  /** Its trailing counter: a framework's when other operations share the handler's name (specStyle). */
  counter?: string;
  /** A word the framework's action carried that the action keeps ("bulk"). */
  modifier?: string[];
  /**
   * The id was the method and the whole path, then the handler's name (HubSpot's
   * "get-/files/v3/files/{fileId}_getById"): a handler named for its class's action, not for its resource.
   */
  pathFirst?: boolean;
}

/**
 * The author's part of an operationId: a counter, `Using<METHOD>`, and a method or framework action after an echo
 * of the path go. `pathStyleSpec`: the spec names operations after their paths, so a plain `{path}_{action}` (Django
 * REST's `tags_list`) is a framework's too.
 */
export function authorWords(operationId: string, method: string, path: string, pathStyleSpec = false): AuthorWords {
  // The path written out, every segment and parameter in order, then the handler's name, after the method or one
  // word of the framework's: HubSpot's "get-/files/v3/files/{fileId}_getById", setlist.fm's
  // "resource__1.0_artist__mbid__getArtist_GET" (a method after the handler goes too).
  const all = snake(operationId).split('_').filter(Boolean);
  const pathWordList = snake(path.replace(/[?#].*$/, '')).split('_').filter(Boolean);
  const written = /[{}]|\/v?\d/.test(path) && pathWordList.length >= 2 ? indexOfRun(all, pathWordList) : -1;
  if (written >= 0 && written <= 1) {
    let handler = all.slice(written + pathWordList.length);
    if (handler[handler.length - 1] === method.toLowerCase()) handler = handler.slice(0, -1);
    const counted = withoutCounter(handler);
    if (counted.words.length) return { words: counted.words, marked: true, trimmed: false, pathFirst: true, ...(counted.counter ? { counter: counted.counter } : {}) };
  }
  // A dated version the path has ("…2020_05_31" on /2020-05-31/…) says no more than the path.
  const date = /[-_]?(\d{4})[-_](\d\d)[-_](\d\d)$/.exec(operationId);
  const dated = !!date && path.includes(`${date[1]}-${date[2]}-${date[3]}`);
  const c = withoutCounter(snake(dated ? operationId.slice(0, date!.index) : operationId).split('_').filter(Boolean));
  // The path's leading version said inside the id ("…RepositoryV1Get" on /V1/…, "listCoreV1Namespace" on /api/v1/…).
  let words = c.words;
  let marked = false;
  let modifier: string[] | undefined;
  const m = method.toLowerCase();
  if (endsWith(words, ['using', words[words.length - 1]!]) && METHOD_WORDS.has(words[words.length - 1]!)) {
    words = words.slice(0, -2);
    marked = true;
  } else {
    // API Platform says which of the method's two operations: `…_get_collection`, `…_get_item`. Last, no tail at
    // all: an echo of the whole path that says a parameter ("story_id_analytics" on /{id}/analytics).
    const tails = [[m, 'collection'], [m, 'item'], [m], ...(pathStyleSpec ? ACTION_TAILS : FRAMEWORK_ACTIONS), []];
    for (const tail of tails) {
      if (!endsWith(words, tail)) continue;
      let rest = words.slice(0, words.length - tail.length);
      // Django REST's bulk actions on a collection ("…_bulk_partial_update"): the action says "bulk".
      if (tail.length && tail !== tails[2] && rest[rest.length - 1] === 'bulk') {
        rest = rest.slice(0, -1);
        modifier = ['bulk'];
      }
      // On its own method, a Django REST action after words that name no action is the framework's, echo or not
      // (OSF's "licenses_read" on /license/{id}, a view's own basename "servers_options_resources_read").
      const own = ACTION_METHOD[tail[0]!] === m && saysNoAction(rest, path);
      const echo = pathEchoAtEnd(rest, path) ?? (own ? { start: 0, says: false } : undefined);
      if (!echo) continue;
      // The method itself marks the id only when the echo says a parameter or a leading `api` or version as
      // frameworks do (FastAPI's "…_api_v1_app__app_id__get"), or when a handler's name and an echo of several words
      // both come before it ("getListingsByRegion_listingsByRegion_get"); a plain `{path}_{method}` is a person's too
      // (GitHub's `repos/get`, Google's "compute.projects.get", Magento's "…GetCompanyHierarchyGet" on /V1/hierarchy/{id}).
      const handler = rest.slice(0, echo.start);
      const framework = !tail.length ? echo.says : tail.length > 1 || tail[0] !== m || echo.says || pathStyleSpec || (handler.length > 1 && rest.length - echo.start > 1);
      if (!framework) {
        modifier = undefined;
        continue;
      }
      words = rest.slice(0, echo.start);
      marked = true;
      break;
    }
  }
  // The method first and then the end of the path with its parameters (Akeneo's "get_draft_uuid__uuid_" on
  // /products-uuid/{uuid}/draft, "patch_asset_attributes__attribute_code__options__code_").
  if (!marked && words[0] === m && words.length > 2) {
    const echo = endEcho(words.slice(1), path);
    if (echo !== undefined) {
      words = words.slice(1, 1 + echo);
      marked = true;
    }
  }
  const version = leadingVersion(path);
  const unversioned = version && words.length > 2 ? words.filter((w) => w !== version) : words;
  const trimmed = dated || unversioned.length < words.length;
  return { words: unversioned, marked, trimmed, ...(c.counter ? { counter: c.counter } : {}), ...(marked && modifier ? { modifier } : {}) };
}

/** The words spell every segment of the path, parameters and versions too: the path written out, not an echo of its nouns. */
function saysWholePath(words: string[], path: string): boolean {
  const all = snake(path.replace(/[?#].*$/, '')).split('_').filter(Boolean);
  return all.length === words.length && all.every((w, i) => w === words[i]);
}

/** Where `run` occurs in `words` as consecutive words, or -1. */
function indexOfRun(words: string[], run: string[]): number {
  for (let i = 0; i + run.length <= words.length; i++) if (run.every((w, k) => words[i + k] === w)) return i;
  return -1;
}

/** The word is one of the path's (either number). */
function saysPath(word: string, path: string): boolean {
  const words = snake(path.replace(/[?#].*$/, '')).split('_').map(stem);
  return words.includes(stem(word));
}

/**
 * What is left names no action: nothing, a lone verb, or no verb at all (API Platform's "api_transport_discord_id",
 * a handler named after its path, "averages_v2_get"): an RPC path's "appendText" is an action.
 */
export function saysNoAction(words: string[], path: string): boolean {
  if (!words.length) return true;
  if (words.length === 1 && (isVerb(words[0]!) || METHOD_WORDS.has(words[0]!))) return true;
  // A method word last is the framework's echo of the method, not the author's verb.
  const verb = (w: string, i: number) => isVerb(w) && !(METHOD_WORDS.has(w) && i === words.length - 1);
  return !words.some(verb) || (!verb(words[0]!, 0) && words.every((w) => saysPath(w, path) || w === 'api' || METHOD_WORDS.has(w)));
}
