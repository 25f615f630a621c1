// What an operation does to what already exists, read from the verbs its own words use (docs/confirmation.md,
// "Which tools are destructive"). Seven effects, in rising order of harm:
//   read       changes nothing (get, list, search, validate, render)
//   add        adds something new or a relation, touching nothing that exists (create, send, star, follow, invite)
//   flip       flips a state that the opposite call flips back, losing nothing (lock, archive, pause, enable, mark)
//   overwrite  replaces values that existed (update, set, replace, reset, rename, merge, transfer)
//   end        ends something for good (cancel, revoke, void, dismiss, reject)
//   remove     takes something away (delete, remove, purge, uninstall, clear)
//   act_as     acts as another identity, with whatever it may do (impersonate, sudo)
// The last four are destructive: after the call, something that was there may be gone or different, and no other
// call brings it back as it was. The verbs are grouped by meaning, not by API: a word outside these lists is read
// through its prefix ("unpin" undoes an add, so it flips) or through WordNet (its commonest verb sense's synonyms,
// then that sense's direct hypernym), else it says nothing and the HTTP method decides.
import { wordnet, type WordNet } from './wordnet.ts';

export type Effect = 'read' | 'add' | 'flip' | 'overwrite' | 'end' | 'remove' | 'act_as';

/** The effects that may destroy or change what exists (MCP's destructiveHint). */
export const DESTRUCTIVE = new Set<Effect>(['overwrite', 'end', 'remove', 'act_as']);

const ORDER: Effect[] = ['read', 'add', 'flip', 'overwrite', 'end', 'remove', 'act_as'];

/** The more harmful of two effects. */
export function worse(a: Effect | undefined, b: Effect | undefined): Effect | undefined {
  if (!a) return b;
  if (!b) return a;
  return ORDER.indexOf(a) >= ORDER.indexOf(b) ? a : b;
}

const WORDS: Record<Effect, string> = {
  read:
    'get list show view read fetch retrieve find search query lookup describe count check inspect download export preview ' +
    'validate verify calculate estimate compute compare analyze analyse detect render scan poll test ping browse evaluate ' +
    'simulate lint diff',
  add:
    'create add make new insert append post publish send submit upload attach assign invite register enroll join follow ' +
    'star subscribe like vote react bookmark tag label comment reply fork clone copy duplicate import generate request book ' +
    'reserve schedule start run rerun retry trigger execute launch deploy build provision grant allow permit share accept ' +
    'approve confirm claim capture redeem pay charge open issue review commit finalize complete restore undelete recover ' +
    'redeliver resend notify remind track record log enqueue dispatch order purchase buy authorize authenticate ' +
    'associate link connect bind install renew extend answer report',
  flip:
    'lock pin archive hide mute enable disable activate reactivate deactivate suspend pause resume close reopen block ban ' +
    'mark snooze ' +
    'favorite watch flag hold stop restart reboot shutdown boot unlock unpin unarchive unhide unmute unsuspend unblock ' +
    'unban unmark unsnooze unfavorite unwatch unflag unfollow unstar unsubscribe unlike unassign unlink unshare detach ' +
    'disconnect disassociate unbind dequeue demote promote',
  overwrite:
    'update edit modify change set replace overwrite reset rename move transfer convert merge squash rebase sync ' +
    'synchronize migrate upgrade downgrade patch configure adjust correct fix reorder prioritize reprioritize rotate ' +
    'regenerate reissue reassign reconfigure rewrite rebuild reinstall reimage redact upsert swap map override',
  end:
    'cancel terminate abort revoke void expire invalidate kill end withdraw rescind retract reject decline deny dismiss ' +
    'refund reverse rollback revert undo annul nullify discontinue retire leave',
  remove:
    'delete remove destroy erase purge clear wipe drop discard trash expunge uninstall unregister deregister deprovision ' +
    'decommission evict kick empty truncate prune scrub shred forget obliterate eliminate',
  act_as: 'impersonate masquerade sudo assume become',
};

const LEXICON = new Map<string, Effect>();
for (const e of ORDER) for (const w of WORDS[e].split(/\s+/)) if (w && !LEXICON.has(w)) LEXICON.set(w, e);

/** Words between an adverb-free verb and what it acts on that say nothing of the action ("Bulk delete", "Force cancel"). */
const MODIFIERS = new Set(['bulk', 'batch', 'partial', 'partially', 'full', 'fully', 'all', 'force', 'async', 'asynchronously', 'specifically', 'privately', 'publicly', 'also', 'then', 'just', 'please']);

/** The base form of a word said in the third person ("Deletes", "Applies", "Pushes"), when the lexicon knows it. */
function baseForm(word: string): string {
  if (LEXICON.has(word)) return word;
  for (const b of [word.replace(/ies$/, 'y'), word.replace(/(ss|sh|ch|x|z|o)es$/, '$1'), word.replace(/s$/, '')]) if (b !== word && LEXICON.has(b)) return b;
  return word;
}

/**
 * The effect one verb means: the lexicon, then its prefix ("un"/"de"/"dis" before a verb that adds or flips, flips;
 * "un" before one that removes or ends, adds back: "undelete"; "re" repeats the verb's own effect: "resend"), then
 * WordNet (null: not asked). Undefined when nothing says.
 */
export function verbEffect(word: string, wn: WordNet | null = wordnet()): Effect | undefined {
  const w = baseForm(word.toLowerCase().replace(/-/g, ''));
  const known = LEXICON.get(w);
  if (known) return known;
  const prefixed = /^(un|dis|de|re)(.{3,})$/.exec(w);
  if (prefixed) {
    const inner = LEXICON.get(baseForm(prefixed[2]!));
    if (inner) {
      if (prefixed[1] === 're') return inner;
      if (inner === 'add' || inner === 'flip') return 'flip';
      if (prefixed[1] === 'un' && (inner === 'remove' || inner === 'end')) return 'add';
    }
  }
  return wn ? wordnetEffect(w, wn) : undefined;
}

/** Through the commonest verb sense: a synonym the lexicon knows, else that sense's direct hypernym. */
function wordnetEffect(w: string, wn: WordNet): Effect | undefined {
  if (!/^[a-z]{3,}$/.test(w)) return undefined;
  const [sense] = wn.senses(w, 'verb', 1);
  if (!sense) return undefined;
  for (const s of sense.words) if (s !== w && LEXICON.has(s)) return LEXICON.get(s);
  for (const [pos, offset] of sense.hypernyms) for (const h of wn.synset(pos, offset).words) if (LEXICON.has(h)) return LEXICON.get(h);
  return undefined;
}

/** Whether a word is a verb this module reads an effect from without WordNet (for path segments and extension values). */
export function knownVerb(word: string): boolean {
  return verbEffect(word, null) !== undefined;
}

/**
 * The verbs a title or summary opens with, as it says them: the first word after adverbs and modifiers, and the
 * verbs listed with it ("Create or update", "Update, add, or delete"). Empty when it opens with something else.
 */
export function leadingVerbs(text: string, wn: WordNet | null = wordnet()): string[] {
  const words = text.toLowerCase().replace(/[^a-z0-9\s,'-]/g, ' ').split(/\s+/).filter(Boolean);
  let i = 0;
  while (i < words.length - 1 && (MODIFIERS.has(words[i]!.replace(/,$/, '')) || (/^[a-z]{4,}ly$/.test(words[i]!) && !LEXICON.has(words[i]!)))) i++;
  const verbs: string[] = [];
  const first = words[i]?.replace(/,$/, '');
  if (!first || verbEffect(first, wn) === undefined) return verbs;
  verbs.push(first);
  // "Perform a partial update", "Request a deletion": a light verb leaves the action to its object.
  if (LIGHT.has(baseForm(first))) {
    // The object phrase, up to its first preposition: "a partial update", "account deletion".
    for (const w of words.slice(i + 1, i + 5)) {
      if (PREPOSITIONS.has(w)) break;
      const action = OBJECT_FILLER.has(w) ? undefined : actionOfNoun(w.replace(/,$/, ''), wn);
      if (action) verbs.push(action);
    }
  }
  // "Create or update", "Update, add, or delete": verbs joined by commas, "or" and "and".
  for (let j = i; j < words.length - 1; ) {
    const joined = words[j]!.endsWith(',') || words[j + 1] === 'or' || words[j + 1] === 'and' || words[j + 1] === 'and/or';
    if (!joined) break;
    let k = j + 1;
    while (k < words.length && /^(or|and|and\/or)$/.test(words[k]!)) k++;
    const next = words[k]?.replace(/,$/, '');
    if (!next || verbEffect(next, null) === undefined) break;
    verbs.push(next);
    j = k;
  }
  return verbs;
}

/** Verbs that leave the action to their object ("perform an update", "make changes", "request a deletion"). */
const LIGHT = new Set(['perform', 'do', 'make', 'execute', 'run', 'carry', 'apply', 'process', 'submit', 'request', 'trigger', 'initiate', 'schedule']);
const OBJECT_FILLER = new Set(['a', 'an', 'the', 'out', 'new', 'one', 'some', 'any', 'this', 'that', 'your', 'its', 'their', 'multiple', 'single']);
const PREPOSITIONS = new Set(['to', 'for', 'of', 'on', 'in', 'from', 'with', 'by', 'at', 'into', 'onto', 'as', 'against']);

/** The verb an action noun names: the noun itself when it is one ("update", "reset"), else its WordNet derivation ("deletion" -> delete). */
function actionOfNoun(noun: string, wn: WordNet | null): string | undefined {
  const w = noun.replace(/s$/, '');
  if (verbEffect(w, null) !== undefined) return w;
  if (!wn || !/^[a-z]{4,}$/.test(w)) return undefined;
  return wn.derived(w, 8).find((v) => LEXICON.has(v));
}

/** The words of an identifier: "archiveAllCards" -> archive all cards, "reset_password" -> reset password. */
export function identifierWords(id: string): string[] {
  return id
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** The most harmful effect among verbs (undefined when none says). */
export function effectOfVerbs(verbs: readonly string[], wn: WordNet | null = wordnet()): Effect | undefined {
  let out: Effect | undefined;
  for (const v of verbs) out = worse(out, verbEffect(v, wn));
  return out;
}
