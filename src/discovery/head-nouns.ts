// What an operation acts on, and what a query asks for: the head noun of the first noun phrase after the verb.
// "List labels for an issue" acts on labels; "List repository issues" on issues. A query "list issues with a label
// and their comments" asks for issues and comments (one head per clause), so the operations listing issues and
// comments should win over "List labels for an issue", which matches the same words.
import { stem } from './search-text.ts';
import { verbClass } from './verb-classes.ts';

/** Words that are only prepositions, never a request's verb. */
const PREPOSITIONS = new Set(['for', 'on', 'in', 'of', 'to', 'from', 'with', 'without', 'by', 'at', 'as', 'into', 'about', 'within', 'per', 'since', 'before', 'after', 'under', 'over', 'against', 'between', 'across', 'through', 'via', 'until']);
/** Words that end a noun phrase: prepositions, relative and question words, conjunctions, pronouns, auxiliaries. */
const BOUNDARY = new Set([...PREPOSITIONS, 'like', 'that', 'which', 'whose', 'where', 'who', 'having', 'or', 'and', 'i', 'we', 'you', 'they', 'he', 'she', 'is', 'are', 'was', 'were', 'do', 'does', 'did', 'has', 'have', 'can', 'will', 'should']);
/** Adverbs of time end a query's phrase, and a title's after its noun: "calls yesterday" ("Get Currently Playing Track" keeps its noun). */
const TIME = new Set(['yesterday', 'today', 'tomorrow', 'tonight', 'now', 'currently', 'recently', 'lately', 'ago']);
/** Prepositions joining a thing to what it belongs to: "the priority of an issue", "a due date on a task". */
const OWNER = new Set(['of', 'on', 'for', 'in']);
/** Prepositions after a clause's thing that name where it is put or taken from. */
const INTO = new Set(['to', 'into', 'onto', 'from']);
/** Words before a noun phrase that are not part of it. */
const DETERMINERS = new Set(['a', 'an', 'the', 'my', 'your', 'our', 'their', 'its', 'his', 'her', 'each', 'every', 'all', 'any', 'some', 'this', 'that', 'these', 'those', 'one', 'them', 'it', 'me', 'us', 'someone', 'somebody', 'everyone', 'him']);
/** In a query, a participle after a noun starts a reduced relative clause: "issues labelled bug", "repos starred by me". */
const PARTICIPLE = /^[a-z]{3,}(ed|ing)$/;
/** In a query, an adverb after a noun ends its phrase: "delete an email permanently" (not "supply", "family"). */
const ADVERB = /^[a-z]{4,}(?<!p|mi|mb|ma)ly$/;
/** Particles of phrasal verbs, never a noun after the verb: "set up a webhook", "switch off the flag". */
const PARTICLES = new Set(['up', 'off', 'out', 'down', 'back', 'away']);
/** A count: "log two hours". */
const NUMBER = /^(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|hundred)$/;
/** Clause separators in a query: each clause may ask for one more thing. */
const CLAUSES = /\band\b|\bthen\b|\bplus\b|[,;]/;

/** "the team's", not "what's" or "it's" (a pronoun and "is"). */
const POSSESSOR = /\b(?!(?:what|who|that|it|there|here|where|how|let|he|she)['’]s\b)[a-z0-9]+['’]s\b/g;

function words(text: string): string[] {
  // A possessive determines the phrase after it: "the team's shared drive" is a drive (not "team", nor "s").
  return text.toLowerCase().replace(POSSESSOR, 'its').split(/[^a-z0-9]+/).filter(Boolean);
}

/** Skips determiners, and "one or more" ("Create one or more invoices"). */
function skipDeterminers(list: string[], from: number): number {
  let i = from;
  for (;;) {
    if (DETERMINERS.has(list[i] ?? '') || list[i] === 'more' || list[i] === 'multiple' || list[i] === 'several') i++;
    else if (list[i] === 'or' && list[i + 1] === 'more') i += 2;
    else return i;
  }
}

/** The last word of the noun phrase starting at `from`, or undefined when there is none. */
function headFrom(list: string[], from: number, participlesEnd: boolean): string | undefined {
  return phraseFrom(list, from, participlesEnd).head;
}

/** The head of the noun phrase starting at `from`, and where the phrase ends. */
function phraseFrom(list: string[], from: number, participlesEnd: boolean): { head?: string; end: number } {
  let i = skipDeterminers(list, from);
  let head: string | undefined;
  for (; i < list.length && !BOUNDARY.has(list[i]!) && !DETERMINERS.has(list[i]!); i++) {
    if (TIME.has(list[i]!) && (head || participlesEnd)) break;
    if (head && participlesEnd && (PARTICIPLE.test(list[i]!) || ADVERB.test(list[i]!))) break;
    // In a title, a present participle before a preposition qualifies the phrase: "conferences belonging to …".
    if (head && !participlesEnd && /^[a-z]{3,}ing$/.test(list[i]!) && BOUNDARY.has(list[i + 1] ?? '')) break;
    head = list[i];
  }
  return head ? { head, end: i } : { end: i };
}

/** What a title or a query clause says: its verb (when it starts with one of `verbs`) and its head noun, unstemmed. */
export interface Phrase {
  verb?: string;
  /** A second verb joined by "or"/"and" ("Create or update …"). */
  also?: string;
  head?: string;
  /** In a query, the noun the head belongs to: "issue" in "the priority of an issue". */
  owner?: string;
  /** In a query, what the head is put into or taken out of: "team" in "add a user to the team". */
  into?: string;
  /** The preposition before `into`. */
  intoBy?: string;
}

/** Words a question or request starts with before its verb: "who starred …", "can you list …", "please add …". */
const LEADING = new Set(['who', 'whom', 'what', 'which', 'how', 'where', 'when', 'is', 'are', 'was', 'do', 'does', 'did', 'can', 'could', 'would', 'will', 'should', 'am', 'i', 'you', 'we', 'please', 'to', 'want', 'need', 'like', 'd']);
/** Leading words of a request (not of a question): the word after them is its verb when the verb classes know it. */
const REQUEST = new Set(['can', 'could', 'would', 'will', 'you', 'please', 'to', 'i', 'we']);
/** Leading words that lead only before "to": "I want to …", "I'd like to …" ("like a video" is a request). */
const BEFORE_TO = new Set(['want', 'need', 'like']);

function phrase(list: string[], verbs: ReadonlySet<string>, participlesEnd = true): Phrase {
  let i = 0;
  // A query's leading question words; a title starts with its verb or its noun.
  if (participlesEnd) while (i < list.length - 1 && LEADING.has(list[i]!) && (!BEFORE_TO.has(list[i]!) || list[i + 1] === 'to')) i++;
  while (i < list.length && DETERMINERS.has(list[i]!)) i++;
  const out: Phrase = {};
  // "Permanently delete a file": a title's leading adverb qualifies its verb.
  while (!participlesEnd && ADVERB.test(list[i] ?? '') && list[i + 1] !== undefined && verbClass(stem(list[i + 1]!)) !== undefined) i++;
  // A word followed by a determiner is a verb whatever it is: "assign an issue", "kick someone out", and in titles
  // "Removes a calendar". A request's first word followed by a preposition or a number is one too: "comment on a
  // pull request", "log two hours"; so is any first word the verb classes know ("book", "spin", "issue").
  const next = list[i + 1];
  const first = i === 0 || (participlesEnd && REQUEST.has(list[i - 1]!));
  const imperative =
    next !== undefined && (DETERMINERS.has(next) || (participlesEnd && first && (BOUNDARY.has(next) || NUMBER.test(next))));
  const known = participlesEnd && first && verbClass(stem(list[i] ?? '')) !== undefined;
  // A query's preposition is never its verb: "who is in this channel" ("like a video" is a request).
  if (i < list.length && !(participlesEnd && PREPOSITIONS.has(list[i]!)) && (verbs.has(list[i]!) || imperative || known)) {
    out.verb = list[i++];
    // "Create or update a secret": both verbs are the title's.
    if ((list[i] === 'or' || list[i] === 'and') && list[i + 1] !== undefined && verbs.has(list[i + 1]!)) {
      out.also = list[i + 1];
      i += 2;
    }
    if (PARTICLES.has(list[i] ?? '') && list[i + 1] !== undefined) i++;
  }
  const { head, end } = phraseFrom(list, i, participlesEnd);
  if (head) out.head = head;
  // "change the priority of an issue": what the phrase belongs to.
  if (head && participlesEnd && OWNER.has(list[end] ?? '')) {
    const owner = headFrom(list, end + 1, participlesEnd);
    if (owner) out.owner = owner;
  }
  // "add a user to the team", "remove a member from a group": where the thing goes or comes from.
  if (head && participlesEnd && INTO.has(list[end] ?? '')) {
    const into = headFrom(list, end + 1, participlesEnd);
    if (into) {
      out.into = into;
      out.intoBy = list[end];
    }
  }
  return out;
}

export interface Clause extends Phrase {
  text: string;
  /** The previous clause's head noun, which this clause refers back to. */
  context?: string;
}

/** "List repository issues" -> { verb: "list", head: "issues" }. `verbs`: the words titles of this catalogue start with. */
export function titlePhrase(title: string, verbs: ReadonlySet<string>): Phrase {
  // Titles are written with care; a participle there is part of the name ("GitHub-hosted runners").
  return phrase(words(title), verbs, false);
}

/**
 * The clauses of a query, each with its verb and head noun. "list issues with a label and their comments" gives
 * "list issues with a label" and "list their comments" (a clause without a verb takes the previous one's). A query
 * is split only when every clause names something; otherwise it is one clause.
 */
export function queryClauses(query: string, verbs: ReadonlySet<string>): Clause[] {
  const whole = [{ text: query, ...phrase(words(query), verbs) }];
  const parts = query.split(CLAUSES).map(words).filter((w) => w.length);
  if (parts.length < 2) return whole;
  const clauses: Clause[] = [];
  let previous: Clause | undefined;
  for (const list of parts) {
    let p = phrase(list, verbs);
    if (!p.verb && previous?.verb) {
      list.unshift(previous.verb);
      p = phrase(list, verbs);
    }
    if (!p.head) return whole;
    const clause: Clause = { text: list.join(' '), ...p };
    // "their comments" are the previous clause's issues' comments.
    if (previous?.head) clause.context = previous.head;
    clauses.push(clause);
    previous = clause;
  }
  return clauses;
}

/** Verbs of everyday queries that titles rarely start with. */
const QUERY_VERBS = ['show', 'find', 'fetch', 'read', 'view', 'retrieve', 'lookup', 'make', 'open', 'edit', 'change', 'modify', 'rename', 'erase', 'count', 'return', 'give', 'see', 'trigger', 'rerun', 'set', 'send', 'post', 'add', 'remove', 'delete', 'get', 'list', 'create', 'update'];

/** Words that start at least two titles: the catalogue's verbs ("list", "get", "create", …). */
export function titleVerbs(titles: string[]): Set<string> {
  const counts = new Map<string, number>();
  for (const title of titles) {
    const first = title.toLowerCase().split(/[^a-z0-9]+/).find(Boolean);
    if (first) counts.set(first, (counts.get(first) ?? 0) + 1);
  }
  const verbs = new Set(QUERY_VERBS);
  for (const [word, n] of counts) if (n >= 2) verbs.add(word);
  return verbs;
}
