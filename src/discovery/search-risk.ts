// What a tool can destroy, and whether a query asks for it: search never leads with a tool that deletes, replaces,
// resets or impersonates unless the query's own verb asks for that effect ("stop the running timer" must not put
// deleting the time entry first; "unlock an account" must not put impersonating the user first). A destructive tool
// that does not fit the asked effect loses close calls (PARAMS.destructive), so a non-destructive tool that fits
// ranks above it; one whose own verb is the query's ("Cancel a subscription" for "cancel my subscription") keeps its
// place.
//
// A tool's effect: its title's verb or its path's action (`/reset-password`, `/impersonation`) when they name one,
// else the catalogue's destructiveHint (the generator's decision, read from the tool's flags) with the operation's
// class: a destructive delete deletes, a destructive update replaces.
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { RankingData } from './search-cache.ts';
import type { ClauseIntent } from './search-fit.ts';
import { stem } from './search-text.ts';

export type Effect = 'delete' | 'replace' | 'reset' | 'impersonate';

/** Verbs (and their nouns) that name each effect in titles and paths. */
const EFFECT_WORDS: Record<Effect, string> = {
  delete: 'delete deletion remove removal destroy erase purge wipe drop clear trash discard revoke revocation terminate kill uninstall unregister',
  replace: 'replace replacement overwrite',
  reset: 'reset rotate rotation regenerate',
  impersonate: 'impersonate impersonation',
};
const EFFECT_OF = new Map<string, Effect>();
for (const [effect, list] of Object.entries(EFFECT_WORDS) as Array<[Effect, string]>) for (const w of list.split(' ')) EFFECT_OF.set(stem(w), effect);

/** The effect a (stemmed) verb names, if it names one ("reset", "impersonate", "delete"). */
function effectOfVerb(verb: string | undefined): Effect | undefined {
  return verb === undefined ? undefined : EFFECT_OF.get(verb);
}

/** "log in as a user", "act as someone", "become a user": asks to impersonate. */
export const AS_SOMEONE = /\b(?:(?:log|logged|sign|signed)\s+in\s+as|act\s+as|acting\s+as|become)\b/;

/**
 * The effect of tool `d` that search must not lead with unasked, or undefined for a tool that destroys nothing.
 * Reads are never destructive.
 */
export function toolEffect(loaded: LoadedCatalogue, data: RankingData, d: number): Effect | undefined {
  if (loaded.readOnly(d)) return undefined;
  const phrase = data.phrases[d]!;
  const action = data.actions?.[d] ?? -1;
  const resource = data.resources[d]!;
  for (const term of [phrase.verb, phrase.also, action >= 0 ? data.terms[action] : undefined, resource >= 0 ? data.terms[resource] : undefined]) {
    const effect = term === undefined ? undefined : EFFECT_OF.get(term);
    if (effect) return effect;
  }
  if (!loaded.destructive(d)) return undefined;
  return data.acts?.[d] === 'update' ? 'replace' : 'delete';
}

/**
 * The effects a clause's verb asks for: deleting (the delete class, "stop doing …"); replacing (any other verb that
 * writes: changing a thing's fields is what most updates do, and "close", "archive", "add topics" are updates as
 * often as not); resetting and impersonating (only their own verbs). A read or a clause without a verb asks for none.
 */
export function askedEffects(text: string, verb: string | undefined, intent: ClauseIntent | undefined, undo: boolean): Set<Effect> {
  const out = new Set<Effect>();
  const cls = intent?.cls;
  if (undo || cls === 'delete' || intent?.alt === 'delete') out.add('delete');
  if (intent?.writes || cls === 'create' || cls === 'update' || intent?.alt === 'create' || intent?.alt === 'update') out.add('replace');
  const own = effectOfVerb(verb);
  if (own) out.add(own);
  if (AS_SOMEONE.test(text.toLowerCase())) out.add('impersonate');
  return out;
}
