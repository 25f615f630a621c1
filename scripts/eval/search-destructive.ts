// Issue 38's measure: for how many tasks that ask to destroy nothing does search lead with a destructive tool? A task
// asks to destroy when its verb does (a verb of the delete class, "stop doing …", or a verb naming an effect:
// reset, replace, impersonate), read with the ranker's own query parsing but none of its ranking rules; it destroys
// nothing when none of its right tools does (src/discovery/search-risk.ts, toolEffect).
import type { LoadedCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { queryClauses } from '../../src/discovery/head-nouns.ts';
import type { RankingData } from '../../src/discovery/search-cache.ts';
import { clauseIntent, STOP_DOING } from '../../src/discovery/search-fit.ts';
import { effectOfVerb, toolEffect } from '../../src/discovery/search-risk.ts';
import { stem, withoutValues } from '../../src/discovery/search-text.ts';

/** Whether the query's first clause asks to destroy something. */
export function asksToDestroy(query: string, data: RankingData): boolean {
  const clause = queryClauses(withoutValues(query), data.verbs)[0];
  if (!clause) return false;
  const verb = clause.verb === undefined ? undefined : stem(clause.verb);
  const text = clause.text.toLowerCase();
  if (STOP_DOING.test(text) || effectOfVerb(verb) !== undefined) return true;
  return clauseIntent(text, verb, /[^s]s$|ies$/.test(clause.head ?? '')).cls === 'delete';
}

/** The task's first hit destroys something though neither the task nor its right tools (catalogue indices) do. */
export function destructiveLead(loaded: LoadedCatalogue, data: RankingData, query: string, first: number | undefined, expected: readonly number[]): boolean {
  const destroys = (i: number) => toolEffect(loaded, data, i) !== undefined;
  return first !== undefined && destroys(first) && !expected.some(destroys) && !asksToDestroy(query, data);
}
