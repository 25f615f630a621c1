// Titles from the spec's own words (docs/naming.md, "Titles"): a summary or a description's first sentence made
// into a short imperative phrase. "Returns a list of your customers" -> "List your customers"; "You can delete
// coupons via the dashboard" -> "Delete coupons"; "Allows the caller to get …" -> "Get …". A title is never cut
// with an ellipsis: a text that does not make one gives no title, and the caller builds one from the name's parts.
import { baseForm, isVerb } from './name-verbs.ts';
import { TITLE_MAX_WORDS, titleProblem } from './name-quality.ts';
import { isNounFirstTitle } from './name-smells.ts';
import { wordnet } from './wordnet.ts';

/** Titles are at most this many words where a clause boundary allows it. */
export const TITLE_SHORT_WORDS = 8;

/** Plain text: HTML tags, markdown emphasis, code marks and link targets removed, whitespace tidied. */
export function plainText(s: string): string {
  return s
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(nbsp|amp|lt|gt|quot|#39);/g, (m) => ({ '&nbsp;': ' ', '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" })[m] ?? m)
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__|`)/g, '')
    .replace(/[ \t]+/g, ' ')
    .trim();
}

/** The first sentence of the first non-empty line, without its closing period. */
export function firstSentenceOf(text: string): string {
  // A leading note (AWS: "<note><p>This is AWS WAF Classic documentation…</note>") is not the operation's sentence.
  const body = text.replace(/^\s*<note>[\s\S]*?<\/note>/i, '');
  // The first sentence is near the start: long descriptions are not cleaned whole.
  // Lines run together with a gap of spaces ("Get users   Returns a list of users") are two sentences.
  const joined = (body.trim() ? body : text).slice(0, 1500).replace(/(?<=[a-z0-9])[ \t]{3,}(?=[A-Z])/g, '. ');
  const line = plainText(joined).split('\n').map((l) => l.trim()).find((l) => l && !/^#+\s*$/.test(l)) ?? '';
  const heading = line.replace(/^#+\s*/, '');
  // A period ends a sentence before a space or the end, not in "e.g. the", "(ie. projects)", "v1.2" or "J. Doe",
  // nor inside parentheses; also a missing space ("…endpoint group.Note that").
  let end = -1;
  for (const m of heading.matchAll(/(?<!\b(e\.g|i\.e|eg|ie|etc|vs|viz|approx|incl|resp|esp|al|no|cf|ca|[A-Za-z]))[.!?](?=\s|$)|(?<=[a-z]{2})\.(?=[A-Z][a-z])/g)) {
    const before = heading.slice(0, m.index);
    if ((before.match(/\(/g) ?? []).length > (before.match(/\)/g) ?? []).length) continue;
    end = m.index;
    break;
  }
  // A parenthesis the sentence never closes is an aside cut short: it goes.
  return (end >= 0 ? heading.slice(0, end) : heading).replace(/\s*\([^()]*$/, '').replace(/[.:;,\s]+$/, '').trim();
}

const WHO = String.raw`(?:you|users?|the\s+\w+|an?\s+\w+|callers?|clients?|developers?|admins?|administrators?|applications?|apps?|partners?|merchants?|customers?)`;
const TOOL = String.raw`(?:api|apis|endpoint|method|operation|call|request|route|service|function|action|resource|tool|query|webservice|web\s+service)`;

/** Openers that describe the tool instead of saying its action, and what they become. */
const OPENERS: Array<[RegExp, string]> = [
  [/^(please\s+)?note:?\s+/i, ''],
  // A label before the action ("CRUD: Create a product", "Closing down - Get a classroom").
  [/^[\w-]+(\s[\w-]+)?(:|\s+[-–—])\s+(?=[A-Z][a-z]+\s)/, ''],
  [/^by\s+default,?\s+/i, ''],
  [new RegExp(String.raw`^(this|the|an?)\s+${TOOL}\s+(will\s+|can\s+be\s+used\s+to\s+|is\s+used\s+to\s+|(allows|lets|enables|permits)\s+${WHO}\s+(to\s+)?|helps\s+(${WHO}\s+)?(to\s+)?|(is\s+)?(used\s+)?for\s+|to\s+|that\s+)?`, 'i'), ''],
  [new RegExp(String.raw`^(use|call)\s+this\s+${TOOL}\s+(to|for)\s+`, 'i'), ''],
  [new RegExp(String.raw`^(allows|lets|enables|permits)\s+${WHO}\s+(to\s+)?`, 'i'), ''],
  [new RegExp(String.raw`^${WHO}\s+(can|may|will|must|should)\s+(also\s+|now\s+|only\s+)?`, 'i'), ''],
  [/^(used|use)\s+(to|for)\s+/i, ''],
  [/^(this|it)\s+(will\s+)?(?=[a-z]+s\b)/i, ''],
  [/^(will|can)\s+/i, ''],
];

/** The lead verb in the base form: "Returns a list of" -> "List", "Retrieves" -> "Retrieve", "Getting" -> "Get", "Returns" -> "Get". */
function imperative(text: string): string {
  const list = /^(gets?|returns?|retrieves?|fetch(es)?|lists?|obtains?|shows?|provides?|see|views?|displays?)\s+((a|an|the)\s+(full\s+|complete\s+|paginated\s+)?)?(list|collection|array)\s+of\s+/i.exec(text);
  if (list) return `List ${text.slice(list[0].length)}`;
  // An adverb may come first ("Partially updates").
  const adverb = /^([A-Za-z]{4,}ly\s+)?/.exec(text)![0];
  const first = /^\S+/.exec(text.slice(adverb.length))?.[0] ?? '';
  const w = first.toLowerCase();
  const base = baseForm(w) ?? gerundBase(w) ?? (isVerb(w) ? w : undefined);
  if (!base) return text;
  // "Updates or creates" -> "Update or create".
  const rest = text.slice(adverb.length + first.length).replace(/^(\s+(or|and)\s+)(\S+)/i, (m, glue: string, _c: string, w: string) => glue + (baseForm(w) ?? w));
  return `${adverb}${base === 'return' ? 'get' : base}${rest}`;
}

/** "creating" -> "create", "getting" -> "get", "listing" -> "list", when the lexicon knows the verb. */
function gerundBase(w: string): string | undefined {
  if (!w.endsWith('ing')) return undefined;
  const stemmed = w.slice(0, -3);
  for (const b of [stemmed, `${stemmed}e`, stemmed.replace(/(.)\1$/, '$1')]) if (isVerb(b)) return b;
  return undefined;
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const wordCount = (s: string) => s.split(/\s+/).filter(Boolean).length;

/**
 * Clause boundaries, weakest meaning lost first: punctuation (not a list's commas), subordinate clauses, a
 * participle after the object ("belonging to the account"), then trailing phrases.
 */
const CUTS: Array<{ re: RegExp; min: number }> = [
  { re: /\s*[,;:]\s(?![^,;:]{1,40},?\s+(and|or)\s)(?!\s*(and|or)\s)|\s+[-–—]\s+/g, min: 2 },
  { re: /\s+(that|which|who|whose|where|when|whenever|if|so|because|while|as|since|unless|until|once|after|before)\s/gi, min: 2 },
  { re: /(?<!\b(be|is|are|was|were|been|being|has|have|had|get|gets))\s+(?=[a-z]{2,}(ing|ed)\s+(to|with|by|in|on|for|from|at|as|under|within)\s)/g, min: 2 },
  { re: /\s+(using|via|through|in\s+order\s+to)\s/gi, min: 2 },
  // A weaker preposition often carries the object ("Get the content for the specified scope"): keep four words.
  { re: /\s+(based\s+on|according\s+to|without|with|by|from|for)\s/gi, min: 4 },
];

/** Words a title never ends with. */
const DANGLING = /(\s+(a|an|the|of|to|for|by|with|in|on|at|from|and|or|your|its|their))+$/i;

/** The longest prefix of `text` ending at a clause boundary with at most `max` words (and the boundary's minimum). */
function cutAtClause(text: string, max: number, tiers = CUTS.length, least = 0): string | undefined {
  for (const { re, min } of CUTS.slice(0, tiers)) {
    let best: string | undefined;
    for (const m of text.matchAll(re)) {
      const head = text.slice(0, m.index).replace(/[\s,;:]+$/, '').replace(DANGLING, '');
      // Never inside parentheses ("… (accept, ship").
      if ((head.match(/\(/g) ?? []).length > (head.match(/\)/g) ?? []).length) continue;
      const n = wordCount(head);
      // A cut inside a subordinate clause ("Check if permissions") leaves it unfinished.
      if (/\s(if|whether|that|which|who|whose|when|where)\s/i.test(head)) continue;
      if (n >= Math.max(min, least) && n <= max && (!best || head.length > best.length)) best = head;
    }
    if (best) return best;
  }
  return undefined;
}

/** A text's first sentence as an action: openers rewritten, the lead verb in the base form ("List your customers"). */
export function actionPhrase(text: string): string {
  let t = firstSentenceOf(text);
  for (let i = 0; i < 3; i++) {
    const before = t;
    for (const [re, to] of OPENERS) t = t.replace(re, to).trim();
    if (t === before) break;
  }
  return imperative(t);
}

/**
 * A title from a summary or a description: its first sentence, openers rewritten, the lead verb in the base form,
 * cut at a clause boundary when over 8 words. A summary is its author's title: up to 12 words it is cut only at
 * punctuation or a subordinate clause, so "… for an organization" and "… for a repository" stay apart. A
 * description's sentence makes a title only when it opens with a verb ("Stripe automatically finalizes…" makes
 * none). Undefined when the text makes no title.
 */
export function titleFromText(text: string, from: 'summary' | 'description'): string | undefined {
  let t = actionPhrase(text);
  if (!t || (from === 'description' && !isVerb(/^([A-Za-z]{4,}ly\s+)?(\S+)/.exec(t)![2]!.toLowerCase()))) return undefined;
  const long = from === 'description' || wordCount(t) > TITLE_MAX_WORDS;
  // Parentheses hold asides and acronyms ("Identity and Access Management (IAM) role"): they go first.
  if (long && wordCount(t) > TITLE_SHORT_WORDS) t = t.replace(/\s*\([^()]*\)/g, '');
  const n = wordCount(t);
  if (n > TITLE_SHORT_WORDS) t = (long ? cutAtClause(t, TITLE_SHORT_WORDS) : cutAtClause(t, TITLE_SHORT_WORDS, 1, 4)) ?? (n <= TITLE_MAX_WORDS ? t : (cutAtClause(t, TITLE_MAX_WORDS) ?? t));
  t = capitalise(t.replace(/[\s,;:.]+$/, ''));
  // A noun phrase and then its action ("Collection Versions list") says the action first.
  if (isNounFirstTitle(t)) t = capitalise(`${/\S+$/.exec(t)![0].toLowerCase()} ${t.replace(/\s+\S+$/, '')}`);
  return titleProblem(t) ? undefined : t;
}

const article = (w: string) => (/^[aeio]/i.test(w) || /^u[^s]/i.test(w) ? 'an' : 'a');

/**
 * "Cancel a subscription", "List customer subscriptions", "Finalize an invoice": a title from a name's parts. A
 * link says both items, the person first when one is: "Add a user to a group", "Remove a member from a team".
 */
export function builtTitle(verb: string[], resource: string[], item: boolean, link?: { parent: string[]; child: string[] }): string {
  if (link) {
    const one = (ws: string[]) => ws.map((w, i) => (i === ws.length - 1 ? singularOf(w) : w)).join(' ');
    const [parent, child] = [one(link.parent), one(link.child)];
    const personFirst = wordnet().person(singularOf(link.parent[link.parent.length - 1]!)) && !wordnet().person(singularOf(link.child[link.child.length - 1]!));
    const [x, y] = personFirst ? [parent, child] : [child, parent];
    return capitalise(`${verb[0]} ${article(x)} ${x} ${verb[0] === 'add' ? 'to' : 'from'} ${article(y)} ${y}`);
  }
  // A namespace said again as the resource ("circuits" in /circuits/circuits) is said once.
  const words = resource.map((w) => w.replace(/_/g, ' ')).filter((w, i, all) => i === all.length - 1 || w.replace(/s$/, '') !== all[i + 1]!.replace(/s$/, ''));
  // "copy_to" names the action; before its object the preposition has nothing to hold ("Copy a snapshot").
  const v = (words.length && verb.length > 1 && /^(to|from|into|for|with|by|on|in|at|of)$/.test(verb[verb.length - 1]!) ? verb.slice(0, -1) : verb).join(' ');
  if (!words.length) return capitalise(v);
  const one = verb[0] !== 'list' && (item || verb[0] === 'create');
  const phrase = one ? [...words.slice(0, -1), singularOf(words[words.length - 1]!)].join(' ') : words.join(' ');
  return capitalise(one ? `${v} ${article(phrase)} ${phrase}` : `${v} ${phrase}`);
}

const singularOf = (w: string) => w.replace(/ies$/, 'y').replace(/(ss|sh|ch|x)es$/, '$1').replace(/([^su])s$/, '$1');
