// The shape of an operation, read from its method and path (and its title's verb): what it does (one of the verb
// classes, or an action of its own such as "merge" or "approve"), the resource it acts on, and the nouns its path
// names on the way there. Spec-independent: REST paths (`/repos/{owner}/{repo}/pulls/{pull_number}/merge`), RPC-style
// dotted paths (`/chat.update`), Google's `:action` suffixes, file extensions (`/Calls.json`) and fragments
// (`/files/{id}#add_shared_link`) all read the same way.
import { stem, words } from './search-text.ts';
import { verbClass, type ActClass } from './verb-classes.ts';

export interface Shape {
  act: ActClass | 'action';
  /** The word of an action of its own (`merge` for `.../pulls/{n}/merge`), unstemmed. */
  action?: string;
  /** The words of the literal path segments that name resources, in order (versions and the action left out). */
  nouns: string[];
  /** The words of the last of them: what the operation acts on (`requested_reviewers`). */
  target: string[];
}

/** Path segments that only version or prefix an API: `v2`, `2010-04-01`, `api`, `rest`. */
const PREFIX = /^(v\d+([a-z]+\d*)?|\d[\d.-]*|api|rest)$/i;
/** A plural noun ("members", "branches", "replies"); not "status", "address", "analysis". */
const PLURAL = /[^su]s$|ies$|[sxz]es$|ches$|shes$/;

/**
 * The operation's shape. `titleVerb`: its title's first word when that is a verb of the catalogue's titles;
 * `titlePlural`: the title's head noun is a plural;
 * `isVerb`: whether a word is an English verb (WordNet, at build time), to tell `/merge` (an action) from `/members`.
 */
export function operationShape(method: string, path: string, titleVerb: string | undefined, titlePlural: boolean, isVerb?: (word: string) => boolean): Shape {
  const m = method.toUpperCase();
  const [bare, fragment] = path.split('#') as [string, string | undefined];
  const raw = bare.split('/').filter(Boolean);
  // A Google-style `{name}:action` or `collection:action` suffix names an action.
  let suffixAction: string | undefined;
  const last = raw[raw.length - 1];
  if (last && /:[A-Za-z]+$/.test(last)) {
    suffixAction = last.slice(last.lastIndexOf(':') + 1);
    raw[raw.length - 1] = last.slice(0, last.lastIndexOf(':'));
  }
  // Segments as [words, isParam]; dotted RPC segments are one literal per part; file extensions dropped.
  const segs: Array<{ words: string[]; param: boolean }> = [];
  for (const s of raw) {
    if (s.startsWith('{')) {
      segs.push({ words: [], param: true });
      continue;
    }
    const plain = s.replace(/\.(json|xml|csv|txt|\{[^}]*\})$/i, '').replace(/\{[^}]*\}/g, ' ');
    for (const part of plain.split('.')) {
      if (!part || PREFIX.test(part)) continue;
      const w = words(part);
      if (w.length) segs.push({ words: w, param: false });
    }
  }
  const endsWithParam = segs.length > 0 && segs[segs.length - 1]!.param;
  const literals = segs.filter((s) => !s.param);
  const tv = titleVerb ? stem(titleVerb) : undefined;

  let action: string | undefined = suffixAction ? words(suffixAction)[0] : fragment ? words(fragment)[0] : undefined;
  let nounSegs = literals;
  let readAs: ActClass | undefined;
  if (!action && !endsWithParam && literals.length > 1) {
    const segWords = literals[literals.length - 1]!.words;
    // The segment's verb: the title's, when the segment has it ("Merge a pull request", `/merge`), else its first word.
    const first = segWords.find((w) => stem(w) === tv) ?? segWords[0]!;
    const lastWord = segWords.at(-1)!;
    const cls = verbClass(stem(first));
    if (m === 'GET') {
      // `/conversations.list`, `/users.lookupByEmail`: the last part says how it reads.
      if (cls === 'get' || cls === 'list') {
        readAs = cls;
        nounSegs = literals.slice(0, -1);
      }
    } else if ((tv !== undefined && stem(first) === tv) || (!PLURAL.test(lastWord) && (cls !== undefined || isVerb?.(first)) && !(segWords.length > 1 && titleDisagrees(tv, cls)))) {
      // The last literal is an action when the title says so ("Merge a pull request" on `/merge`) or, not being a
      // plural, it is an English verb (`/approve`, `/send`, `/cancel`, `/chat.update`).
      action = first;
      nounSegs = literals.slice(0, -1);
    }
  }
  const nouns = nounSegs.flatMap((s) => s.words);
  const targetWords = nounSegs.at(-1)?.words ?? [];
  if (action) return { act: 'action', action, nouns, target: targetWords };
  if (readAs) return { act: readAs, nouns, target: targetWords };

  let act: ActClass;
  const target = literals[literals.length - 1]?.words.at(-1) ?? '';
  // A GET of a collection lists: its path ends in a plural (`/members`) or a list (`/calendarList`), or its title
  // names a plural ("Returns the calendars on the user's calendar list").
  if (m === 'GET') act = !endsWithParam && (PLURAL.test(target) || target === 'list' || titlePlural) ? 'list' : 'get';
  else if (m === 'DELETE') act = 'delete';
  else if (m === 'POST') act = endsWithParam ? 'update' : 'create';
  else act = 'update';
  // The title's verb refines a write: "Add a collaborator" (PUT) creates, "Remove a label" (POST) deletes.
  const titled = verbClass(tv);
  if (titled && m !== 'GET' && titled !== 'get' && titled !== 'list') act = titled;
  return { act, nouns, target: targetWords };
}

/**
 * The title's verb says the operation does something else than a compound segment's first word would: "Update the
 * next build number" on `/build_number` changes a number, it does not build.
 */
function titleDisagrees(titleVerb: string | undefined, segmentClass: ActClass | undefined): boolean {
  const titled = verbClass(titleVerb);
  return titled !== undefined && titled !== segmentClass;
}
