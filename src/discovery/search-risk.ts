// What a tool can destroy, and whether a query asks for it: search never leads with a destructive tool unless the
// query's own verb asks for that effect ("stop the running timer" must not put deleting the time entry first; "unlock
// an account" must not put impersonating the user first; "send this contract" must not put "Send, void, or modify a
// draft envelope" first). A destructive tool that does not fit the asked effect loses close calls
// (PARAMS.destructive), so a non-destructive tool that fits ranks above it.
//
// Both sides are read with the generator's own lexicon of effects (src/catalogue/verb-effects.ts: overwrite, end,
// remove, act as someone), the one that decided the tool's destructiveHint:
// - a tool's effect (search-harm.ts, read when the index is built): none unless the catalogue marks it destructive;
//   then the most harmful effect its title's verbs name ("Send, void, or modify": void ends), else its path's action
//   or resource (`/reset-password`, `/impersonation`), else its method's (a DELETE removes, any other write overwrites);
// - a query's: its verb's effect in the same lexicon ("merge", "rename" overwrite; "void", "refund", "reject" end;
//   "trash" removes; "reset", "rotate" reset, which no other verb asks for), its verb's class (deleting removes or
//   ends; any other writing verb may overwrite, since changing a thing's fields is what most updates do), stopping
//   something ends it (its own cancel or abort), "stop doing …" undoes, "log in as" acts as someone.
// A tool destructive only by its method, whose own words name a harmless effect ("Unlock an issue", a DELETE of the
// lock), does what its verb says: a query with that verb asks for it.
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import { stemEffect } from '../catalogue/verb-effects.ts';
import type { RankingData } from './search-cache.ts';
import type { ClauseIntent } from './search-fit.ts';
import { harmOf, readHarm, type Harm, type ToolRisk } from './search-harm.ts';
import { stem } from './search-text.ts';

export type { Harm, ToolRisk };

/** "log in as a user", "act as someone", "become a user": asks to impersonate. */
export const AS_SOMEONE = /\b(?:(?:log|logged|sign|signed)\s+in\s+as|act\s+as|acting\s+as|become)\b/;

/** Per ranking data of an index written without risks: each tool's, read on first use (null: destroys nothing). */
const risks = new WeakMap<RankingData, Array<ToolRisk | null | undefined>>();

/** What tool `d` may destroy (search-harm.ts), or undefined for a tool that destroys nothing (reads never do). */
export function toolRisk(loaded: LoadedCatalogue, data: RankingData, d: number): ToolRisk | undefined {
  if (data.harms) return data.harms[d];
  let list = risks.get(data);
  if (!list) risks.set(data, (list = []));
  let risk = list[d];
  if (risk === undefined) {
    // An index written before it kept risks: its shape stands in for the method.
    const term = (t: number | undefined) => (t !== undefined && t >= 0 ? data.terms[t] : undefined);
    const source = { readOnly: loaded.readOnly(d), destructive: loaded.destructive(d), title: loaded.title(d), method: data.acts?.[d] === 'delete' ? 'DELETE' : 'PUT' };
    const action = term(data.actions?.[d]);
    const resource = term(data.resources[d]);
    list[d] = risk = readHarm({ ...source, ...(action ? { action } : {}), ...(resource ? { resource } : {}) }) ?? null;
  }
  return risk ?? undefined;
}

/** The effect alone (toolRisk's). */
export function toolEffect(loaded: LoadedCatalogue, data: RankingData, d: number): Harm | undefined {
  return toolRisk(loaded, data, d)?.effect;
}

/**
 * The effects a clause asks for: its verb's own (stemmed, read with the generator's lexicon), deleting (the delete
 * class, "stop doing …") removes or ends, any other verb that writes may overwrite, stopping something ends it, "log
 * in as" acts as someone. A read or a clause without a verb asks for none.
 */
export function askedEffects(text: string, verb: string | undefined, intent: ClauseIntent | undefined, undo: boolean): Set<Harm> {
  const out = new Set<Harm>();
  const cls = intent?.cls;
  const own = verb === undefined ? undefined : stemEffect(verb, stem);
  if (undo || cls === 'delete' || intent?.alt === 'delete' || own === 'remove') out.add('remove').add('end');
  if (intent?.writes || cls === 'create' || cls === 'update' || intent?.alt === 'create' || intent?.alt === 'update') out.add('overwrite');
  if (intent?.stops) out.add('end');
  const harm = verb === undefined ? undefined : harmOf([verb], own);
  if (harm) out.add(harm);
  if (AS_SOMEONE.test(text.toLowerCase())) out.add('act_as');
  return out;
}
