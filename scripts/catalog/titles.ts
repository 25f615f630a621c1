// Tool titles and the scope line of descriptions: each tool carries its identity in its own words, never in
// words taken from its generated name (docs/naming.md).
import { snake } from './snake.ts';
import { ABBREVIATIONS } from './name-words.ts';
import { trimText } from './trim-text.ts';
import { derivedParts, nameWords, type Derived } from './name-derive.ts';
import { titleProblem } from './name-quality.ts';
import { builtTitle, titleFromText } from './title-text.ts';
import { isVerb } from './name-verbs.ts';

/**
 * A short imperative title (docs/naming.md, "Titles"): from the summary, else the description's first sentence
 * when it opens with a verb, else the operationId in words when that reads as a title (never a path-style one),
 * else built from the name's resource and verb ("Delete a coupon"). Never cut with an ellipsis.
 */
export function toolTitle(op: { summary?: unknown; description?: unknown; operationId?: unknown }, method: string, path: string, derived?: Derived): string {
  const summary = typeof op.summary === 'string' ? op.summary.trim() : '';
  const description = typeof op.description === 'string' ? op.description.trim() : '';
  const fromText = (summary && titleFromText(summary, 'summary')) || (description && titleFromText(description, 'description'));
  // A HEAD fetches nothing: its GET twin's summary ("Get person image") becomes a check, as its name says.
  if (fromText) return method.toLowerCase() === 'head' ? fromText.replace(/^(Get|Retrieve|Fetch|Download|Return|Show)\b/i, 'Check') : fromText;
  const operationId = typeof op.operationId === 'string' ? op.operationId : undefined;
  const op2 = { operationId, method, path, summary, description };
  if (!derived && operationId) {
    // The words the name is made of (a method in the verb's place already replaced).
    const own = nameWords(op2);
    const title = own.derived ? undefined : operationIdTitle(own.full.split('_'));
    if (title && !titleProblem(title)) return title;
  }
  const parts = derived ?? derivedParts(op2);
  return builtTitle(parts.verb, parts.resource, parts.item, parts.link);
}

/** Words that go with a verb at the end of an operationId ("…_bulk_partial_update"). */
const VERB_MODIFIERS = new Set(['bulk', 'batch', 'partial', 'full', 'all', 'force']);

/**
 * An operationId's name words as a title, the verb first: "circuits_circuits_list" -> "List circuits",
 * "dcim_devices_bulk_delete" -> "Bulk delete dcim devices".
 */
function operationIdTitle(words: string[]): string {
  let w = words;
  w = w.filter((x, i) => i === w.length - 1 || stemOf(x) !== stemOf(w[i + 1]!));
  const last = w.length - 1;
  // The last word of an operationId is its verb, and "list" too ("care_team_members_list"), not a word as often a
  // noun ("…_search_request"); verbs joined by "or" go together ("source_maps_create_or_update").
  if (last > 0 && !isVerb(w[0]!) && (isVerb(w[last]!, true) || /^(list|patch)$/.test(w[last]!))) {
    let k = last;
    while (k > 1 && /^(or|and)$/.test(w[k - 1]!) && isVerb(w[k - 2]!)) k -= 2;
    while (k > 0 && VERB_MODIFIERS.has(w[k - 1]!)) k--;
    w = [...w.slice(k), ...w.slice(0, k)];
  }
  // "createAuthorIfNotExistsFor": a handler's name may end where its argument would follow.
  while (w.length > 1 && /^(for|of|to|by|with|from|in|on|at|and|or|the|a|an)$/.test(w[w.length - 1]!)) w = w.slice(0, -1);
  const text = w.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const stemOf = (w: string) => (w.length > 3 ? w.replace(/ies$/, 'y').replace(/s$/, '') : w);

export interface ScopedOp {
  key: string;
  method: string;
  path: string;
}

/**
 * Operations that differ from another only in scope: the same method on the same path once the leading scope
 * (`/orgs/{org}`, `/enterprises/{enterprise}`, `/repos/{owner}/{repo}`, `/user`) is set aside. Returns
 * key -> the scope in words ("organization", "repository", "the authenticated user").
 */
export function scopesOf(ops: ScopedOp[]): Map<string, string> {
  type Member = { key: string; noun: string; own: boolean; label: string };
  const groups = new Map<string, Member[]>();
  for (const o of ops) {
    const split = splitScope(o.path);
    if (!split) continue;
    const k = `${o.method.toUpperCase()} ${split.rest}`;
    groups.set(k, [...(groups.get(k) ?? []), { key: o.key, ...split }]);
  }
  const out = new Map<string, string>();
  for (const g of groups.values()) {
    // A scope is a parameter (`/orgs/{org}`); a bare segment only when it is the caller's own of one (`/user` next to `/users/{username}`).
    const scoped = g.filter((m) => !m.own || g.some((o) => !o.own && o.noun === m.noun));
    if (new Set(scoped.map((m) => m.label)).size > 1) for (const m of scoped) out.set(m.key, m.label);
  }
  return out;
}

/** Leading version/"api" segments skipped, the scope is the first static segment and the parameters right after it. */
function splitScope(path: string): { noun: string; own: boolean; rest: string; label: string } | undefined {
  const segs = path.split('/').filter(Boolean);
  let i = 0;
  while (i < segs.length && /^(v\d+(\.\d+)*|api)$/i.test(segs[i]!)) i++;
  const head = segs[i];
  if (!head || head.startsWith('{')) return undefined;
  let j = i + 1;
  while (j < segs.length && segs[j]!.startsWith('{')) j++;
  const rest = segs.slice(j);
  if (!rest.some((s) => !s.startsWith('{'))) return undefined;
  const noun = longForm(singular(snake(head)));
  const own = j === i + 1;
  return { noun, own, rest: rest.join('/'), label: own ? `the authenticated ${noun}` : noun };
}

const singular = (w: string) => w.replace(/ies$/, 'y').replace(/([^s])s$/, '$1');
const LONG = new Map(Object.entries(ABBREVIATIONS).map(([long, short]) => [short, long]));
const longForm = (w: string) => (LONG.get(w) ?? w).replace(/_/g, ' ');

/**
 * Starts the description proper with "Scope: <scope>." unless its first line already names the scope. The
 * description proper is the first paragraph after a leading summary paragraph: the summary is the title, and
 * compact listings show the paragraph after it.
 */
export function withScopeLine(description: string, scope: string | undefined, max: number, summary = ''): string {
  if (!scope) return description;
  const lead = /^(.*?)\n[ \t]*\n/s.exec(description);
  const afterSummary = !!lead && !!summary.trim() && lead[1]!.trim() === summary.trim();
  const head = afterSummary ? lead![0] : '';
  const body = description.slice(head.length);
  const firstLine = body.split('\n')[0]!.toLowerCase();
  const noun = scope.replace(/^the authenticated /, '');
  const short = ABBREVIATIONS[noun];
  const named = scope.startsWith('the authenticated ') ? /\bauthenticated\b/.test(firstLine) : new RegExp(`\\b(${noun}|${short ?? noun})s?\\b`).test(firstLine);
  return named ? description : trimText(`${head}Scope: ${scope}. ${body}`, max);
}
