// How well an operation's shape (search-shape.ts, stored in the index) fits what a query clause asks: the class of its
// verb (read one, list many, create, change, delete: verb-classes.ts), and whether its path names things the query
// never mentions (`…/pullrequests/{id}/commits` for "show the latest commits"). A factor on the text score.
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { RankingData } from './search-cache.ts';
import { PARAMS } from './search-params.ts';
import { reads, STOP_ACTIONS, STOPPING, verbClass, type ActClass } from './verb-classes.ts';

export interface ClauseIntent {
  /** What the clause asks to do; undefined when neither its verb nor its form says. */
  cls?: ActClass;
  /** A second class the verb asks for as much: "set a price" creates one as often as it changes one. */
  alt?: ActClass;
  /** A verb outside the classes ("merge", "star", "comment on"): the clause asks to change something. */
  writes?: boolean;
  /** The verb stops something going on ("stop the timer", "shut down a server", "hang up a call"). */
  stops?: boolean;
}

/** Questions read: "who …", "what …", "is the CI green …", "how many …". */
const QUESTION = /^\s*(who|whom|whose|what|what's|whats|which|how|where|when|is|are|was|were|does|do|did|has|have|am)\b/;
/** Questions whose answer is many things. */
const MANY = /^\s*(who|whom|which)\b(?!\s+(am|is|was)\b(?!\s+(in|on|at|inside|part|allowed|subscribed|invited|assigned|watching|following)\b))|\b(all|every|each)\b/;

/** "… whenever X happens": asks to be told of events from now on, which creates a subscription (a webhook, a watch). */
export const WHENEVER = /\b(whenever|every\s+time|each\s+time|as\s+soon\s+as|any\s+time)\b|(?<=\S\s+)\b(?:when|once)\s+(?!(?:i|you|we|it|they|he|she)\b)(?=\w)/;

/** "stop sharing …", "quit following …": the request undoes the gerund's act. */
export const STOP_DOING = /^\s*(?:please\s+)?(?:stop|quit|cease)\s+(?=[a-z]{3,}ing\b)/;

/** Phrasal verbs that stop what goes on. */
const STOPPING_PHRASE = /^\s*(?:please\s+)?(hang\s+up|shut\s+(?:down|off)|power\s+(?:down|off)|wind\s+down)\b/;

/** Phrasal verbs whose particle changes the class: "set up" and "spin up" create, "hang up" ends, "look up" reads. */
const PHRASAL: Array<[RegExp, ActClass]> = [
  [/^\s*(?:please\s+)?(set|spin|sign|kick|start|fire|stand|open)\s+(up|off)\b/, 'create'],
  // Stopping what goes on changes its state: "shut down a server", "hang up a call", "power off a machine".
  [STOPPING_PHRASE, 'update'],
  // Ending a session deletes it: "log out a user", "sign someone out".
  [/^\s*(?:please\s+)?(take\s+down|tear\s+down|wipe\s+out|get\s+rid\s+of|(?:log|sign)\s+(?:out|off)|(?:log|sign)\s+(?:\S+\s+){1,3}out)\b/, 'delete'],
  // "stop sharing a file": undo what the gerund made (the share), which is not stopping a thing called a share.
  [STOP_DOING, 'delete'],
  [/^\s*(?:please\s+)?(turn|switch)\s+(on|off)\b/, 'update'],
  [/^\s*(?:please\s+)?(look\s+up|find\s+out|pull\s+up)\b/, 'get'],
];

/** Verbs that say "make it so" whether or not the thing exists yet (given stemmed): either class fits. */
const EITHER = new Map<string, ActClass>([
  ['set', 'create'],
]);

/** The clause's intent from its (stemmed) verb, its form and whether its head is a plural. */
export function clauseIntent(text: string, verb: string | undefined, plural: boolean): ClauseIntent {
  const lower = text.toLowerCase();
  let cls = PHRASAL.find(([re]) => re.test(lower))?.[1] ?? (WHENEVER.test(lower) ? 'create' : verbClass(verb));
  if (QUESTION.test(lower) && (!cls || !reads(cls))) cls = 'get';
  if (cls === 'get' && (plural || MANY.test(lower))) cls = 'list';
  const alt = verb === undefined ? undefined : EITHER.get(verb);
  const stops = (verb !== undefined && STOPPING.has(verb)) || STOPPING_PHRASE.test(lower);
  if (cls) return { cls, ...(alt && alt !== cls ? { alt } : {}), ...(stops && cls === 'update' ? { stops } : {}) };
  return verb ? { writes: true } : {};
}

/**
 * The factor for tool `d`: 1 when its shape fits, less for each way it does not. `covered`: the terms the clause's
 * words stand for; `onHead`: the tool acts on the clause's head noun; `asksWho`: the clause asks who.
 */
export function shapeFit(loaded: LoadedCatalogue, data: RankingData, d: number, intent: ClauseIntent, covered: ReadonlyMap<number, number>, onHead = false, asksWho = false): number {
  let f = 1;
  const cls = intent.cls;
  if (intent.writes) {
    if (loaded.readOnly(d)) f *= PARAMS.modeMismatch;
    else {
      // A verb of no class ("share", "merge", "star") does something; the verbs that undo have their class.
      const classes = toolClasses(data, d);
      if (classes.size === 1 && classes.has('delete')) f *= PARAMS.writeMismatch;
    }
  } else if (intent.stops && !loaded.readOnly(d)) {
    // Stopping something fits its own stop, end, cancel or shutdown (`/runs/{id}/cancel`, `/actions/shutdown`) or a
    // change of its state (a call's status), but neither deleting it nor starting something.
    if (data.acts?.[d] === 'delete' || !(stopsItself(data, d) || toolClasses(data, d).has('update'))) f *= PARAMS.writeMismatch;
  } else if (cls) {
    const classes = toolClasses(data, d);
    if (classes.size && !classes.has(cls) && !(intent.alt && classes.has(intent.alt))) {
      const toolReads = loaded.readOnly(d);
      if (reads(cls) !== toolReads) f *= PARAMS.modeMismatch;
      else f *= toolReads ? PARAMS.readMismatch : PARAMS.writeMismatch;
      // One item of a collection that is listed too, when the query asks for many (or the other way round): the
      // pair's other half answers it.
      if (toolReads && data.paired[d] === (cls === 'list' ? 1 : 2)) f *= PARAMS.readMismatch;
    } else if (!classes.size) {
      // An action of its own ("link", "verify") is not what a verb of a known class asks for.
      f *= reads(cls) !== loaded.readOnly(d) ? PARAMS.modeMismatch : PARAMS.writeMismatch;
    }
  }
  const nouns = data.nouns?.[d];
  if (nouns) {
    const common = PARAMS.commonNoun * data.len.length;
    // "who …" names the people a tool acts on ("who is in this channel": `/conversations.members`).
    const named = asksWho && data.people[d] ? data.resources[d] : -1;
    for (const t of nouns) if (data.nounCount[t]! <= common && !covered.has(t) && t !== named) f *= PARAMS.pathExtra;
    // What the tool acts on counts however common, when the query names another noun of its path instead:
    // `/Invoices/{id}/Attachments` is about attachments, which "create an invoice" never mentions, even in a spec
    // where every resource has attachments. Unless its title says it acts on what the query asks for
    // ("repositories" for `/users/{username}/repos`).
    const target = data.resources[d]!;
    if (!onHead && target >= 0 && data.nounCount[target]! > common && !covered.has(target) && nouns.some((t) => t !== target && covered.has(t))) f *= PARAMS.targetExtra;
  }
  return f;
}

/** Whether tool `d`'s own verb (its path's action or its title's) stops something: stop, cancel, shutdown, hangup … */
function stopsItself(data: RankingData, d: number): boolean {
  const a = data.actions?.[d] ?? -1;
  return [a >= 0 ? data.terms[a] : undefined, data.phrases[d]!.verb].some((v) => v !== undefined && STOP_ACTIONS.has(v));
}

/** Whether tool `d` does what verb class `cls` asks (by its shape, action or title verb). */
export function doesClass(data: RankingData, d: number, cls: ActClass): boolean {
  return toolClasses(data, d).has(cls);
}

/** What the tool does, in verb classes: its shape's, its action's and its title verb's. */
function toolClasses(data: RankingData, d: number): Set<ActClass> {
  const out = new Set<ActClass>();
  const act = data.acts?.[d];
  if (act && act !== 'action') out.add(act);
  const a = data.actions?.[d] ?? -1;
  const byAction = a >= 0 ? verbClass(data.terms[a]) : undefined;
  if (byAction) out.add(byAction);
  for (const v of [data.phrases[d]!.verb, data.phrases[d]!.also]) {
    const byTitle = verbClass(v);
    if (byTitle) out.add(byTitle);
  }
  return out;
}
