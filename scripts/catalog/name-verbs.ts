// The verbs of operation names and titles (docs/naming.md, "Names from meaning"): a fixed lexicon of English verbs
// that APIs use, the verb a summary or description opens with, and the verb an HTTP method means on a path shape.
// Fixed in code, so a name depends only on its own operation.

/** Verbs that are rarely anything else: a summary opening with one says its action. */
const VERB_ONLY = (
  'accept acknowledge activate adjust advance allocate analyze analyse annotate append apply approve archive assign ' +
  'associate attach authenticate authorize ban bind block bookmark broadcast calculate cancel capture claim ' +
  'clean clear clone close collect commit compare compile complete compute configure confirm connect convert ' +
  'create deactivate deauthorize decline decrypt delete deny deploy deprecate describe destroy detach detect disable ' +
  'disassociate disconnect discover dismiss duplicate edit enable encrypt end enqueue enroll ensure estimate ' +
  'evaluate execute expire extend extract fetch finalize finalise find flush follow forget forward generate get ' +
  'grant hide identify ignore increment decrement initialize initialise initiate insert install invalidate ' +
  'invite invoke join kick launch leave load lock logout merge migrate modify move mute notify obtain open ' +
  'overwrite parse pause perform ping poll preview promote provision publish pull purge push query reactivate ' +
  'read reboot recalculate receive recover redact redeem redirect refresh regenerate register reindex reject ' +
  'reload remove rename render renew reopen reorder replace require resend reserve reset resize resolve restart ' +
  'restore resume retrieve retry return reverse revert revoke rollback rotate run save scan search select send ' +
  'ship show shutdown sign simulate skip snooze sort split start stop submit subscribe succeed suspend swap sync ' +
  'synchronize terminate toggle trigger unarchive unassign unban unblock undelete undo unfollow uninstall unlink ' +
  'unlock unmute unpin unpublish unregister unset unshare unstar unsubscribe unsuspend untag unwatch update ' +
  'upgrade downgrade upload upsert validate verify void wait withdraw write'
).split(/\s+/);

/** Verbs that are nouns as often ("Link to a file", "List of absences"): in a path segment only alone (/refund). */
const NOUN_VERB = (
  'add assess backup build change check copy count download export fail flag import link list mark pay print process queue ' +
  'refund release request review schedule set share store tag test track transfer translate view vote watch'
).split(/\s+/);

/** Words that are nouns first ("Order details", "Report summary"): a verb only as "Orders …" or before an object word. */
const NOUN_FIRST = 'answer batch book charge comment email fund invoice issue like login match message order pin rate record reply report star trace unlike use'.split(' ');

const LEXICON = new Set([...VERB_ONLY, ...NOUN_VERB, ...NOUN_FIRST]);
const AMBIGUOUS = new Set([...NOUN_VERB, ...NOUN_FIRST]);
const NOUNISH = new Set(NOUN_FIRST);

/** Words that open an object: after one, an ambiguous word is a verb ("Set the volume", "Check a domain"). */
const OBJECT_OPENER = new Set('a an the all one many multiple new existing specific specified given your my our their its this these that those some any each every up out in on off'.split(' '));

/** Read-only actions: what a GET or HEAD may say it does. */
export const READ_VERBS = new Set('get list search find query count download export preview describe fetch retrieve read show view obtain return check validate verify calculate estimate compute compare lookup analyze analyse detect parse render scan poll'.split(' '));

/** Synonyms folded into the action words every client sees the most. */
const CANONICAL: Record<string, string> = { retrieve: 'get', fetch: 'get', show: 'get', read: 'get', obtain: 'get', return: 'get', view: 'get', describe: 'get', edit: 'update', modify: 'update', change: 'update', destroy: 'delete' };

/** True for a word that is a noun first ("order", "report", "issue"), a verb only when the text says so. */
export function isNounFirst(word: string): boolean {
  return NOUNISH.has(word);
}

/** True for a base-form verb of the lexicon; `strict`: only one that is rarely a noun. */
export function isVerb(word: string, strict = false): boolean {
  return LEXICON.has(word) && !(strict && AMBIGUOUS.has(word));
}

/** Base form of a lexicon verb said in the third person ("Cancels" -> "cancel", "Applies" -> "apply"), else undefined. */
export function baseForm(word: string): string | undefined {
  const w = word.toLowerCase();
  for (const b of [w.replace(/ies$/, 'y'), w.replace(/(ss|sh|ch|x|z|o)es$/, '$1'), w.replace(/s$/, '')]) if (b !== w && LEXICON.has(b)) return b;
  return undefined;
}

export interface LeadVerb {
  /** The verb as the text says it, in the base form ("cancel"); "create_or_update" for "Creates or updates". */
  verb: string;
  /** How many words of the text it spans. */
  words: number;
}

/**
 * The action a sentence or summary opens with: a lexicon verb in the base form or the third person, after
 * adverbs ("Permanently deletes"). Ambiguous words ("List", "Order") count only in the third person or before an
 * object word. Undefined when the text opens otherwise ("Details of a field", "Stripe automatically finalizes").
 */
export function leadVerb(text: string): LeadVerb | undefined {
  const ws = text.toLowerCase().replace(/[^a-z0-9\s-]/g, ' ').split(/\s+/).filter(Boolean);
  let i = 0;
  while (i < ws.length - 1 && /^[a-z]{4,}ly$/.test(ws[i]!) && !LEXICON.has(ws[i]!)) i++;
  const one = (j: number): string | undefined => {
    const w = ws[j];
    if (!w) return undefined;
    const third = baseForm(w);
    if (third) return third;
    if (!LEXICON.has(w)) return undefined;
    // "List pets", "Check a domain" open with a verb; "List of absences", "Order details", "Report" alone do not.
    const next = ws[j + 1] ?? '';
    if (AMBIGUOUS.has(w) && !OBJECT_OPENER.has(next) && (!next || next === 'of' || NOUNISH.has(w))) return undefined;
    return w;
  };
  const v = one(i);
  if (!v) return undefined;
  const second = (ws[i + 1] === 'or' || ws[i + 1] === 'and') && ws[i + 2] ? (baseForm(ws[i + 2]!) ?? (LEXICON.has(ws[i + 2]!) ? ws[i + 2] : undefined)) : undefined;
  if (second && second !== v) return { verb: `${v}_${ws[i + 1]}_${second}`, words: i + 3 };
  return { verb: v, words: i + 1 };
}

/** The action word of a verb as names and titles say it ("retrieve" -> "get"; "list" stays "list"). */
export function canonicalVerb(verb: string): string {
  return CANONICAL[verb] ?? verb;
}
