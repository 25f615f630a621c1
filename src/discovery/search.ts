// The one tool ranker: discovery's search_tools, code mode's search, hybrid lists' search_tools and the catalogue
// page all call rankTools. BM25F over the generator's search index (search-index.ts: title, name, path, resource,
// description, parameters, response fields, toolsets and the method's verbs, each field weighted), with each query
// word standing for itself and for the words the index's vocabulary says mean the same (WordNet synonyms and
// derivations, weighted lower). On top: how much of the query a tool covers, whether it acts on what the query asks
// for (head nouns), and the intents of question words ("who" asks for people, "how many" for counts, "I"/"my" for
// the caller's own). A query asking for several things is ranked clause by clause, and the rankings take turns.
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { Slice } from '../catalogue/slices.ts';
import { compactDescription } from '../profiles/listing-compaction.ts';
import { queryClauses, type Clause } from './head-nouns.ts';
import { needsRecords, rankingData, sliceMembers, stemmedPhrase, type RankingData } from './search-cache.ts';
import { clauseIntent, doesClass, shapeFit, STOP_DOING, WHENEVER } from './search-fit.ts';
import { PARAMS } from './search-params.ts';
import { verbClass } from './verb-classes.ts';
import { AS_SOMEONE, askedEffects, toolRisk } from './search-risk.ts';
import { DIGITS, stem, STOP, withoutValues, words } from './search-text.ts';

export { stem } from './search-text.ts';

export interface RankedTool {
  /** The tool's catalogue index. */
  index: number;
  name: string;
  title: string;
  score: number;
}

export interface SearchHit {
  name: string;
  title: string;
  summary: string;
  score: number;
}

export interface RankOptions {
  toolset?: string;
  limit?: number;
  /** Filled with each hit's reasons (text score, words matched, the rules that applied): the tuning loop's --explain. */
  why?: Map<number, string>;
}

/** Question and pronoun words that carry an intent rather than a topic: each adds terms a matching tool has. */
const INTENTS: Array<{ match: RegExp; terms: string[]; weight: number }> = [
  // The caller's own things: "/user" (the authenticated user), "/me/…", "current user".
  { match: /\b(i|me|my|mine|myself|am)\b/, terms: ['me', 'authenticated', 'current', 'my', 'mine'], weight: 0.6 },
  { match: /\bhow (many|much)\b|\bnumber of\b|\bcount\b/, terms: ['count', 'total', 'number', 'statistics', 'stats', 'summary', 'usage', 'metrics', 'traffic', 'balance'], weight: 0.5 },
  // "tell me whenever …": a subscription to events, which APIs call webhooks, hooks, watches or notifications.
  { match: WHENEVER, terms: ['webhook', 'hook', 'watch', 'subscription', 'subscribe', 'notification', 'notify', 'event', 'callback', 'listener', 'trigger'], weight: 0.5 },
  // "right now", "at the moment": what is going on, which APIs call current, active, live or ongoing.
  { match: /\b(right now|just now|at the moment|at present|currently|presently)\b/, terms: ['current', 'currently', 'active', 'live', 'ongoing', 'realtime', 'now'], weight: 0.5 },
  // "log in as a user": acting as someone else, which APIs call impersonation.
  { match: AS_SOMEONE, terms: ['impersonate', 'impersonation', 'sudo'], weight: 1 },
];
const WHO = /\b(who|whom|whose)\b/;
/** Words after which a clause says what a thing holds or is called, not which thing: "about …", "titled …". */
const CONTENT = new Set(['about', 'regarding', 'titled', 'named', 'containing', 'mentioning']);
/** Particles of phrasal verbs, which APIs join to their verb: shutdown, poweroff, hangup, login, setup, checkout. */
const PARTICLE = new Set(['up', 'down', 'off', 'out', 'in', 'on', 'back', 'over']);
/** What a content word still weighs: a tool that names it ("Create an issue about …" rarely) gains a little. */
const CONTENT_WEIGHT = 0.5;
/** "who is in this channel": the people asked for belong to what the clause names, which is not itself the answer. */
const WHO_IN = /^\s*who\s+(is|are|was|were)\s+(in|on|at|inside|part\s+of)\b/;
/** "who am I", "who am I logged in as": the caller's own user, whatever else the words say. */
const IDENTITY = /\bwho\s+am\s+i\b|\bwho\s+i\s+am\b/i;
const WHO_AM_I = 'get my own current authenticated user profile';
/** A question asks to read: "who …", "what …", "is the CI green …", "how many …". */
const QUESTION = /^\s*(who|whom|whose|what|what's|which|how|where|when|is|are|was|were|does|do|did|has|have)\b/;
/** Verbs that read (what GET operations do); any other verb a clause starts with asks to change something. */
const READ_VERBS = new Set(['get', 'list', 'show', 'find', 'search', 'see', 'view', 'read', 'fetch', 'retrieve', 'look', 'lookup', 'check', 'tell', 'browse', 'count', 'display', 'give', 'download', 'export', 'query', 'watch'].map(stem));
/** A single item's operation when the query asks for several (a plural), in an index without operation shapes. */
const SINGLE_FOR_PLURAL = 0.75;

interface Group {
  /** term number -> weight */
  terms: Map<number, number>;
  /** Counts towards coverage (an intent group only when the query has no other words). */
  required: boolean;
}

/**
 * The slice's tools ranked for a free-text query, best first, at most `limit` (default 8). Never empty while the
 * slice (or the toolset asked for) has tools: a query none of whose words the catalogue knows gets the tools whose
 * terms look most like its words, and failing that the slice's read operations first.
 */
export function rankTools(loaded: LoadedCatalogue, slice: Slice, query: string, options: RankOptions = {}): RankedTool[] {
  const data = rankingData(loaded);
  const limit = options.limit ?? 8;
  const members = sliceMembers(loaded, slice);
  const allowed = (i: number) => members[i] === 1 && (!options.toolset || loaded.toolsetsOf(i).includes(options.toolset));
  // Numbers, versions and #ids name values, not what is asked: "publish release v1.2.3" is about a release.
  const wording = withoutValues(query);
  const clauses = queryClauses(IDENTITY.test(wording) ? WHO_AM_I : wording, data.verbs).map((c) => ({ ...c, ...stemmedPhrase(c) }));
  let rankings = clauses.map((c) => rankClause(loaded, data, c, allowed, false, options.why));
  if (rankings.every((r) => !r.length)) rankings = clauses.map((c) => rankClause(loaded, data, c, allowed, true, options.why));
  const out: RankedTool[] = [];
  const seen = new Set<number>();
  // A tool's own name (or alias) names that tool.
  const exact = loaded.indexOf(query.trim());
  if (exact !== undefined && allowed(exact) && limit > 0) {
    seen.add(exact);
    out.push({ index: exact, name: loaded.name(exact), title: loaded.title(exact), score: Number.MAX_VALUE });
  }
  for (let i = 0; out.length < limit && rankings.some((r) => i < r.length); i++) {
    for (const r of rankings) {
      const hit = r[i];
      if (hit && !seen.has(hit.index) && out.length < limit) {
        seen.add(hit.index);
        out.push(hit);
      }
    }
  }
  if (!out.length) return lastResort(loaded, slice, allowed, limit);
  return out;
}

/**
 * The longest query the search tools rank. Ranking costs grow with the words and clauses of a query (a 75 KB query of
 * 5,000 clauses took 6 s of CPU on the GitHub catalogue, 1,000 characters of clauses up to 0.4 s), and a request body
 * may hold 4 MiB; a model asks in a sentence.
 */
export const MAX_QUERY_CHARS = 500;

/** Why a search tool refuses this query (too long), or undefined. */
export function queryTooLong(query: string): string | undefined {
  if (query.length <= MAX_QUERY_CHARS) return undefined;
  return `"query" is ${query.length} characters long; the limit is ${MAX_QUERY_CHARS}. Say what you want to do in a sentence, e.g. "list open issues with a label", and search again for each other thing.`;
}

/**
 * rankTools for a request: reads what ranking needs first (every record, only for a catalogue written before the
 * search index) and then the hits' records, so a sharded catalogue fetches just the shards its answer names.
 */
export async function rankToolsLoaded(loaded: LoadedCatalogue, slice: Slice, query: string, options: RankOptions = {}): Promise<RankedTool[]> {
  if (needsRecords(loaded)) await loaded.load(Array.from({ length: loaded.count }, (_, i) => i));
  const ranked = rankTools(loaded, slice, query, options);
  await loaded.load(ranked.map((h) => h.index));
  return ranked;
}

/** rankTools with each hit's one-line summary; the hits' records must be readable (a sharded catalogue loads them). */
export function searchTools(loaded: LoadedCatalogue, slice: Slice, query: string, options: RankOptions = {}): SearchHit[] {
  return rankTools(loaded, slice, query, options).map((h) => withSummary(loaded, h));
}

export function withSummary(loaded: LoadedCatalogue, hit: RankedTool): SearchHit {
  const tool = loaded.peek(hit.index);
  return { name: hit.name, title: hit.title, summary: compactDescription(tool.description, tool.title, 160, false), score: hit.score };
}

type RankedClause = Clause & { plural: boolean };

function rankClause(loaded: LoadedCatalogue, data: RankingData, clause: RankedClause, allowed: (i: number) => boolean, fuzzy: boolean, why?: Map<number, string>): RankedTool[] {
  const text = clause.text.toLowerCase();
  const groups: Group[] = [];
  let content = false;
  let named = false;
  // "stop sharing a file": the words are the gerund's (clauseIntent reads the "stop" as undoing it).
  const undo = STOP_DOING.exec(text);
  const list = words(undo ? text.slice(undo[0].length) : clause.text);
  for (let k = 0; k < list.length; k++) {
    const w = list[k]!;
    // "open an issue about the broken login page": once the clause has named its thing, what follows "about" says
    // what the thing holds, not which tool ("tell me about this repo" names it after).
    if (named && CONTENT.has(w)) content = true;
    if (clause.head !== undefined && stem(w) === clause.head) named = true;
    if (STOP.has(w) || DIGITS.test(w)) continue;
    const g = wordGroup(data, w, fuzzy);
    // A phrasal verb is also the one word APIs make of it: "shut down" -> shutdown, "log in" -> login.
    const compound = PARTICLE.has(list[k + 1] ?? '') ? data.termId.get(stem(w + list[k + 1])) : undefined;
    if (compound !== undefined) {
      g.set(compound, 1);
      k++;
    }
    if (content) {
      if (g.size) groups.push({ terms: scaled(g, CONTENT_WEIGHT), required: false });
      continue;
    }
    // A word the catalogue does not know still counts against every tool's coverage alike.
    if (g.size || !fuzzy) groups.push({ terms: g, required: true });
  }
  if (clause.context) {
    const g = wordGroup(data, clause.context, false);
    if (g.size) groups.push({ terms: scaled(g, 0.5), required: false });
  }
  const topical = groups.some((g) => g.required);
  for (const intent of INTENTS) {
    if (!intent.match.test(text)) continue;
    const g = new Map<number, number>();
    for (const t of intent.terms) {
      const id = data.termId.get(stem(t));
      if (id !== undefined) g.set(id, intent.weight);
    }
    if (g.size) groups.push({ terms: g, required: !topical });
  }
  const who = WHO.test(text);
  const container = WHO_IN.test(text);
  const required = groups.filter((g) => g.required).length;
  if (!groups.length || (!required && !who)) return who ? peopleTools(loaded, data, allowed) : [];

  const n = data.len.length;
  const { k1, b } = PARAMS;
  const score = new Float64Array(n);
  const matched = new Float64Array(n);
  const best = new Float64Array(n);
  const touched: number[] = [];
  const covered = new Map<number, number>();
  for (const g of groups) {
    best.fill(0);
    const docs: number[] = [];
    for (const [t, w] of g.terms) {
      const p = data.postings[t]!;
      const idf = Math.log(1 + (n - p.docs.length + 0.5) / (p.docs.length + 0.5));
      for (let k = 0; k < p.docs.length; k++) {
        const d = p.docs[k]!;
        const f = p.tf[k]!;
        const v = w * idf * ((f * (k1 + 1)) / (f + k1 * (1 - b + (b * data.len[d]!) / data.avgLen)));
        if (best[d] === 0) docs.push(d);
        if (v > best[d]!) best[d] = v;
      }
    }
    for (const d of docs) {
      if (score[d] === 0 && matched[d] === 0) touched.push(d);
      score[d]! += best[d]!;
      if (g.required) matched[d]! += 1;
    }
    for (const [t, w] of g.terms) covered.set(t, Math.max(covered.get(t) ?? 0, w));
  }

  const verbs = clause.verb ? wordGroup(data, clause.verb, false) : undefined;
  // Whether the clause asks to read or to change something; undefined when it does not say.
  const reads = QUESTION.test(text) ? true : clause.verb ? READ_VERBS.has(clause.verb) : undefined;
  const intent = data.acts ? clauseIntent(text, clause.verb, clause.plural) : undefined;
  const changes = clause.owner !== undefined && intent?.cls === 'update';
  // Putting into (a create "to"/"into") or taking out of (a delete "from"); "send it to a customer" names no container.
  const moves = intent?.cls === 'create' ? clause.intoBy !== 'from' : intent?.cls === 'delete' && clause.intoBy === 'from';
  const into = moves && clause.into !== undefined && data.nouns ? wordGroup(data, clause.into, false) : undefined;
  const readingVerb = intent?.cls !== undefined && (intent.cls === 'get' || intent.cls === 'list');
  // What the clause's verb asks to destroy, if anything (search-risk.ts).
  const asked = askedEffects(text, clause.verb, intent, undo !== null);
  const hits: RankedTool[] = [];
  const destroying = new Set<number>();
  for (const d of touched) {
    if (!allowed(d) || score[d]! <= 0) continue;
    let s = score[d]!;
    const because = why ? [`text=${s.toFixed(2)} words=${matched[d]}/${required}`] : undefined;
    // Coverage: a tool matching every word of the query beats one matching the rarest word twice.
    const coverage = required ? matched[d]! / required : 1;
    s *= PARAMS.coverage + (1 - PARAMS.coverage) * coverage * coverage;
    const phrase = data.phrases[d]!;
    // An action of its own (`/issues/{id}/add_spent_time`, `/campaigns/{id}/actions/create-resend`, `/videos/rate`)
    // creates the clause's thing only when its title says so ("Create a survey campaign"): "open an issue" asks for
    // the tool whose title creates issues, not for one adding time to an issue.
    const onHead = actsOn(data, phrase, clause, d) && !(intent?.cls === 'create' && data.acts?.[d] === 'action' && !titleCreates(phrase, clause.head));
    if (onHead) {
      s *= PARAMS.head;
      because?.push('head');
    } else if (changes && actsOn(data, phrase, { ...clause, head: clause.owner }, d)) {
      // "change the priority of an issue" changes the issue.
      s *= PARAMS.head;
      because?.push('owner');
    } else if (!intent && clause.plural && clause.verb && READ_VERBS.has(clause.verb) && phrase.verb !== 'list' && !phrase.plural) {
      // "get their repositories" asks for a list: one item's operation loses close calls.
      s *= SINGLE_FOR_PLURAL;
    }
    // "add a user to the team": a tool working inside the team (`/teams/{id}/members`) does it, not one on users alone.
    if (into && insideOf(data, d, into)) {
      s *= PARAMS.head;
      because?.push('into');
    }
    // Reading verbs say little beyond their class ("get" their repositories is "List repositories …").
    const ownVerb = verbs !== undefined && !readingVerb && doesVerb(loaded, data, phrase, verbs, d);
    if (ownVerb) s *= PARAMS.verb;
    const people = who && data.people[d] === 1 && !(container && covered.has(data.resources[d]!));
    if (people) s *= PARAMS.people;
    if (data.everyday[d]) s *= PARAMS.everyday;
    if (data.deprecated[d]) s *= PARAMS.deprecated;
    let fit = 1;
    if (intent) fit = shapeFit(loaded, data, d, intent, covered, onHead, who);
    else if (reads !== undefined && reads !== loaded.readOnly(d)) fit = PARAMS.modeMismatch;
    s *= fit;
    // Never lead with destroying what the query's verb does not ask to destroy (search-risk.ts); a tool destructive
    // only by its method does what its own verb says ("Unlock an issue", a DELETE, for "unlock issue #12").
    const risk = toolRisk(loaded, data, d);
    const effect = risk?.effect;
    const unasked = risk !== undefined && !asked.has(risk.effect) && !(risk.methodOnly && saysVerb(data, phrase, clause.verb, d));
    if (unasked) {
      s *= PARAMS.destructive;
      destroying.add(d);
    }
    if (because) {
      const rules = { verb: ownVerb, people, everyday: data.everyday[d] === 1, deprecated: data.deprecated[d] === 1, [`unasked-${effect}`]: unasked };
      for (const [rule, applied] of Object.entries(rules)) if (applied) because.push(rule);
      why!.set(d, `${because.join(' ')} fit=${fit.toFixed(2)}${intent?.cls ? ` (asks to ${intent.cls})` : ''}`);
    }
    hits.push({ index: d, name: loaded.name(d), title: loaded.title(d), score: s });
  }
  hits.sort((a, b) => b.score - a.score || a.name.length - b.name.length || (a.name < b.name ? -1 : 1));
  // However far ahead, a tool destroying what was not asked never leads while another tool matched the query.
  const safe = destroying.has(hits[0]?.index ?? -1) ? hits.findIndex((h) => !destroying.has(h.index)) : -1;
  if (safe > 0) hits.unshift(...hits.splice(safe, 1));
  return hits;
}

/** A query word's terms: its own stem (weight 1) and what the index's vocabulary says it also means. */
function wordGroup(data: RankingData, word: string, fuzzy: boolean): Map<number, number> {
  const g = new Map<number, number>();
  const s = stem(word);
  const id = data.termId.get(s);
  if (id !== undefined) g.set(id, 1);
  for (const [t, w] of data.expansions(s)) if ((g.get(t) ?? 0) < w) g.set(t, w);
  if (fuzzy && !g.size && s.length >= 4) {
    // Typos and spellings the vocabulary lacks: terms sharing the word's first four letters.
    const prefix = s.slice(0, 4);
    for (let t = 0; t < data.terms.length; t++) if (data.terms[t]!.startsWith(prefix)) g.set(t, 0.4);
  }
  return g;
}

function scaled(g: Map<number, number>, by: number): Map<number, number> {
  return new Map([...g].map(([t, w]) => [t, w * by]));
}

/** Tool `d`'s path holds one of `terms` before what it acts on: it works inside that thing. */
function insideOf(data: RankingData, d: number, terms: ReadonlyMap<number, number>): boolean {
  const nouns = data.nouns?.[d];
  if (!nouns || terms.has(data.resources[d]!)) return false;
  for (const t of nouns) if (terms.has(t)) return true;
  return false;
}

/** The tool's title creates `head`: its verb is of the create class and its head noun is `head`. */
function titleCreates(phrase: RankingData['phrases'][number], head: string | undefined): boolean {
  return phrase.head === head && [phrase.verb, phrase.also].some((v) => verbClass(v) === 'create');
}

/** The tool acts on what the clause asks for: its title's head noun (or its path's resource) is the clause's. */
function actsOn(data: RankingData, phrase: RankingData['phrases'][number], clause: RankedClause, d: number): boolean {
  const head = clause.head;
  if (!head) return false;
  const resource = data.resources[d]!;
  const onResource = resource >= 0 && data.terms[resource] === head;
  if (phrase.head !== head && !onResource) return false;
  if (!clause.verb || !phrase.verb) return true;
  // "get their repositories" asks for a list, not for one repository.
  if (clause.plural && (clause.verb === 'get' || clause.verb === 'show')) return phrase.verb === 'list' || phrase.plural;
  return true;
}

/**
 * The tool does what the clause's verb says: its title starts with that verb (or one meaning the same), or it
 * writes the resource the verb names ("assign" -> assignees, "remind" -> reminders, "subscribe" -> subscriptions).
 */
function doesVerb(loaded: LoadedCatalogue, data: RankingData, phrase: RankingData['phrases'][number], verbs: Map<number, number>, d: number): boolean {
  for (const v of [phrase.verb, phrase.also]) {
    const own = v === undefined ? undefined : data.termId.get(v);
    if (own !== undefined && verbs.has(own)) return true;
  }
  const action = data.actions?.[d] ?? -1;
  if (action >= 0 && verbs.has(action)) return true;
  // "comment on …", "vote for …", "remind me …": the verb asks to add what it names, so only a tool creating it does it.
  const resource = data.resources[d]!;
  return resource >= 0 && verbs.has(resource) && !loaded.readOnly(d) && (data.acts === undefined || doesClass(data, d, 'create'));
}

/** The tool's own verb (its title's, or its path's action) is the clause's verb itself, not one related to it. */
function saysVerb(data: RankingData, phrase: RankingData['phrases'][number], verb: string | undefined, d: number): boolean {
  if (verb === undefined) return false;
  if (phrase.verb !== undefined) return phrase.verb === verb || phrase.also === verb;
  // Without a title verb, the path's action says it (`/cancel`); beside one, the path names a thing (`/lock`).
  const action = data.actions?.[d] ?? -1;
  return action >= 0 && data.terms[action] === verb;
}

/** "who …" with nothing else the catalogue knows: the operations about people. */
function peopleTools(loaded: LoadedCatalogue, data: RankingData, allowed: (i: number) => boolean): RankedTool[] {
  const out: RankedTool[] = [];
  for (let d = 0; d < data.people.length; d++) if (data.people[d] && allowed(d)) out.push({ index: d, name: loaded.name(d), title: loaded.title(d), score: 0.1 });
  return out;
}

/** Nothing matched even loosely: the slice's read operations first, then the rest, each by name. */
function lastResort(loaded: LoadedCatalogue, slice: Slice, allowed: (i: number) => boolean, limit: number): RankedTool[] {
  const tools = slice.tools.filter(allowed);
  const reads = tools.filter((i) => loaded.readOnly(i));
  return [...reads, ...tools.filter((i) => !loaded.readOnly(i))].slice(0, limit).map((i) => ({ index: i, name: loaded.name(i), title: loaded.title(i), score: 0 }));
}
