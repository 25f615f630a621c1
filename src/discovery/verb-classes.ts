// What a verb asks an API to do, in five classes: read one thing, list many, create, change, delete. Everyday
// English, general across APIs: a person says "spin up", "book", "raise" or "open" where a spec says POST, "get rid
// of", "cancel" or "release" where it says DELETE. The same table reads a tool's title verb ("Add a collaborator" is a
// create even though it is a PUT) and a query's verb; a verb outside the table has no class and is matched as a word.
import { stem } from './search-text.ts';

export type ActClass = 'get' | 'list' | 'create' | 'update' | 'delete';

const CLASSES: Record<ActClass, string> = {
  get: 'get return show see view read fetch retrieve check look lookup display inspect describe download tell',
  list: 'list find search browse enumerate query count',
  create:
    'create add make new open save post publish raise book register upload invite write compose draft issue generate launch spin ' +
    'submit build start run trigger kick schedule insert send file log record put import provision deploy buy purchase',
  // Stopping something (a timer, a call, a server) changes its state; it does not delete it (STOPPING below).
  update: 'update change edit modify rename set adjust replace mark move configure enable disable turn toggle switch reschedule correct fix patch reorder rearrange stop end pause halt finish suspend resume',
  delete: 'delete remove cancel erase destroy drop clear purge revoke release unregister uninstall discard trash unsubscribe terminate deactivate kill unassign unlink detach',
};

const BY_STEM = new Map<string, ActClass>();
for (const [cls, list] of Object.entries(CLASSES) as Array<[ActClass, string]>) for (const w of list.split(' ')) if (!BY_STEM.has(stem(w))) BY_STEM.set(stem(w), cls);

/** Verbs that stop something going on: the thing's own stop, end or pause (an action of its own) fits them too. */
export const STOPPING: ReadonlySet<string> = new Set('stop end pause halt finish suspend'.split(' ').map(stem));
/** A tool's own verbs that stop something (its path's action or its title's verb), compounds of phrasal verbs too. */
export const STOP_ACTIONS: ReadonlySet<string> = new Set([...STOPPING, ...'cancel abort terminate kill interrupt shutdown poweroff hangup'.split(' ').map(stem)]);

/** The class of a verb (given stemmed), or undefined when the table does not know it. */
export function verbClass(verbStem: string | undefined): ActClass | undefined {
  return verbStem === undefined ? undefined : BY_STEM.get(verbStem);
}

/** Whether a class reads (GET) rather than changes something. */
export function reads(cls: ActClass): boolean {
  return cls === 'get' || cls === 'list';
}

/** One letter per class in the search index; `a` for an action of its own ("merge", "approve"). */
export const ACT_CODE: Record<ActClass | 'action', string> = { get: 'g', list: 'l', create: 'c', update: 'u', delete: 'd', action: 'a' };
export const CODE_ACT: Record<string, ActClass | 'action'> = Object.fromEntries(Object.entries(ACT_CODE).map(([k, v]) => [v, k as ActClass | 'action']));
