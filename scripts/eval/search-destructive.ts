// Issue 38's measure: for how many tasks that ask to destroy nothing does search lead with a destructive tool? A task
// asks for an effect when its verb does (the delete class or "stop doing …" deletes, the update class replaces, and
// verbs naming an effect: reset, impersonate), read with the ranker's own query parsing; its right tools destroy
// nothing when none has an effect (src/discovery/search-risk.ts, toolEffect).
import type { LoadedCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { queryClauses } from '../../src/discovery/head-nouns.ts';
import type { RankingData } from '../../src/discovery/search-cache.ts';
import { clauseIntent, STOP_DOING } from '../../src/discovery/search-fit.ts';
import { askedEffects, toolEffect, type Effect } from '../../src/discovery/search-risk.ts';
import { stem, withoutValues } from '../../src/discovery/search-text.ts';

/** The effects the query's first clause asks for (the ranker's own reading of its verb, search-risk.ts). */
export function askedBy(query: string, data: RankingData): Set<Effect> {
  const clause = queryClauses(withoutValues(query), data.verbs)[0];
  if (!clause) return new Set();
  const verb = clause.verb === undefined ? undefined : stem(clause.verb);
  const text = clause.text.toLowerCase();
  return askedEffects(text, verb, clauseIntent(text, verb, /[^s]s$|ies$/.test(clause.head ?? '')), STOP_DOING.test(text));
}

/**
 * The task's first hit destroys something that neither the task's verb asks for nor its right tools (catalogue
 * indices) do. Unlike the ranker, a tool whose own verb is the query's gets no pass here.
 */
export function destructiveLead(loaded: LoadedCatalogue, data: RankingData, query: string, first: number | undefined, expected: readonly number[]): boolean {
  const destroys = (i: number) => toolEffect(loaded, data, i) !== undefined;
  if (first === undefined || expected.some(destroys)) return false;
  const effect = toolEffect(loaded, data, first);
  return effect !== undefined && !askedBy(query, data).has(effect);
}
