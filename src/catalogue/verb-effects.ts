// What a verb does to what already exists, in seven effects (docs/confirmation.md, "Which tools are destructive"),
// in rising order of harm:
//   read       changes nothing (get, list, search, validate, render)
//   add        adds something new or a relation, touching nothing that exists (create, send, star, follow, invite)
//   flip       flips a state that the opposite call flips back, losing nothing (lock, archive, pause, enable, mark)
//   overwrite  replaces values that existed (update, set, replace, reset, rename, merge, transfer)
//   end        ends something for good (cancel, revoke, void, dismiss, reject)
//   remove     takes something away (delete, remove, purge, uninstall, clear)
//   act_as     acts as another identity, with whatever it may do (impersonate, sudo)
// The last four are destructive. One lexicon for both sides of the catalogue: the generator reads a tool's
// destructiveHint from its own words (scripts/catalog/annotations.ts, which adds WordNet for words outside these
// lists), and search reads a query's verb with the same words, so "the query's verb asks for the tool's effect" means
// one thing (src/discovery/search-risk.ts). Plain data and string work only: it runs in the Worker too.

export type Effect = 'read' | 'add' | 'flip' | 'overwrite' | 'end' | 'remove' | 'act_as';

/** The effects that may destroy or change what exists (MCP's destructiveHint). */
export const DESTRUCTIVE: ReadonlySet<Effect> = new Set<Effect>(['overwrite', 'end', 'remove', 'act_as']);

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
    'favorite watch flag hold stop restart reboot shutdown boot skip seek unlock unpin unarchive unhide unmute unsuspend unblock ' +
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

/** What the lexicon cannot say, asked of a fuller dictionary (the generator's WordNet); absent in the Worker. */
export interface EffectFallback {
  /** The effect of a word outside the lexicon, if the dictionary relates it to one in it. */
  effect(word: string): Effect | undefined;
  /** Verbs an action noun derives from ("deletion" -> delete). */
  derivedVerbs(noun: string): string[];
}

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
 * the fallback dictionary. Undefined when nothing says.
 */
export function verbEffect(word: string, fallback?: EffectFallback | null): Effect | undefined {
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
  return fallback ? fallback.effect(w) : undefined;
}

/** Whether the lexicon itself knows the word (no fallback): a verb the lexicon reads an effect from. */
export function lexiconHas(word: string): boolean {
  return LEXICON.has(word);
}

/** The effect of a word given as its Porter stem (a query's verb, as search reads it); built on first use. */
let byStem: Map<string, Effect> | undefined;
export function stemEffect(verbStem: string, stem: (word: string) => string): Effect | undefined {
  if (!byStem) {
    byStem = new Map();
    for (const [w, e] of LEXICON) if (!byStem.has(stem(w))) byStem.set(stem(w), e);
  }
  const known = byStem.get(verbStem);
  if (known) return known;
  const prefixed = /^(un|dis|de|re)(.{3,})$/.exec(verbStem);
  const inner = prefixed ? byStem.get(prefixed[2]!) : undefined;
  if (!prefixed || !inner) return undefined;
  if (prefixed[1] === 're') return inner;
  if (inner === 'add' || inner === 'flip') return 'flip';
  if (prefixed[1] === 'un' && (inner === 'remove' || inner === 'end')) return 'add';
  return undefined;
}

/**
 * The verbs a title or summary opens with, as it says them: the first word after adverbs and modifiers, and the
 * verbs listed with it ("Create or update", "Update, add, or delete"). Empty when it opens with something else.
 */
export function leadingVerbs(text: string, fallback?: EffectFallback | null): string[] {
  const words = text.toLowerCase().replace(/[^a-z0-9\s,'-]/g, ' ').split(/\s+/).filter(Boolean);
  let i = 0;
  while (i < words.length - 1 && (MODIFIERS.has(words[i]!.replace(/,$/, '')) || (/^[a-z]{4,}ly$/.test(words[i]!) && !LEXICON.has(words[i]!)))) i++;
  const verbs: string[] = [];
  const first = words[i]?.replace(/,$/, '');
  if (!first || verbEffect(first, fallback) === undefined) return verbs;
  verbs.push(first);
  // "Perform a partial update", "Request a deletion": a light verb leaves the action to its object.
  if (LIGHT.has(baseForm(first))) {
    // The object phrase, up to its first preposition: "a partial update", "account deletion".
    for (const w of words.slice(i + 1, i + 5)) {
      if (PREPOSITIONS.has(w)) break;
      const action = OBJECT_FILLER.has(w) ? undefined : actionOfNoun(w.replace(/,$/, ''), fallback);
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
    if (!next || verbEffect(next) === undefined) break;
    verbs.push(next);
    j = k;
  }
  return verbs;
}

/** Verbs that leave the action to their object ("perform an update", "make changes", "request a deletion"). */
const LIGHT = new Set(['perform', 'do', 'make', 'execute', 'run', 'carry', 'apply', 'process', 'submit', 'request', 'trigger', 'initiate', 'schedule']);
const OBJECT_FILLER = new Set(['a', 'an', 'the', 'out', 'new', 'one', 'some', 'any', 'this', 'that', 'your', 'its', 'their', 'multiple', 'single']);
const PREPOSITIONS = new Set(['to', 'for', 'of', 'on', 'in', 'from', 'with', 'by', 'at', 'into', 'onto', 'as', 'against']);

/** Endings that make a noun of an action ("deletion", "removal", "replacement", "closure"). */
const NOMINAL = /(?:tion|sion|ment|al|ance|ence|ure|age)$/;

/**
 * The verb an action noun names: the noun itself when it is one ("update", "reset"), else, for a noun made of an
 * action, its derivation ("deletion" -> delete); not a thing's name that merely shares a root ("droplet" -> drop).
 */
function actionOfNoun(noun: string, fallback?: EffectFallback | null): string | undefined {
  const w = noun.replace(/s$/, '');
  if (verbEffect(w) !== undefined) return w;
  if (!fallback || !/^[a-z]{4,}$/.test(w) || !NOMINAL.test(w)) return undefined;
  return fallback.derivedVerbs(w).find((v) => LEXICON.has(v));
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
export function effectOfVerbs(verbs: readonly string[], fallback?: EffectFallback | null): Effect | undefined {
  let out: Effect | undefined;
  for (const v of verbs) out = worse(out, verbEffect(v, fallback));
  return out;
}
