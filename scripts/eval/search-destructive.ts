// Issue 38's measure: for how many tasks that ask to destroy nothing does search lead with a destructive tool? A task
// asks for an effect when its verb does, read with the ranker's own query parsing and the generator's lexicon of
// effects (src/discovery/search-risk.ts: deleting removes or ends, other writing verbs may overwrite, a verb's own
// effect: "void" ends, "log in as" acts as someone); its right tools destroy nothing when none has an effect.
import type { LoadedCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { queryClauses } from '../../src/discovery/head-nouns.ts';
import type { RankingData } from '../../src/discovery/search-cache.ts';
import { clauseIntent, STOP_DOING } from '../../src/discovery/search-fit.ts';
import { askedEffects, toolEffect, type Harm } from '../../src/discovery/search-risk.ts';
import { stem, withoutValues } from '../../src/discovery/search-text.ts';

/** The effects the query's first clause asks for (the ranker's own reading of its verb, search-risk.ts). */
export function askedBy(query: string, data: RankingData): Set<Harm> {
  const clause = queryClauses(withoutValues(query), data.verbs)[0];
  if (!clause) return new Set();
  const verb = clause.verb === undefined ? undefined : stem(clause.verb);
  const text = clause.text.toLowerCase();
  return askedEffects(text, verb, clauseIntent(text, verb, /[^s]s$|ies$/.test(clause.head ?? '')), STOP_DOING.test(text));
}

/**
 * The task's first hit destroys something that neither the task's verb asks for nor its right tools (catalogue
 * indices) do. Unlike the ranker, a tool destructive only by its method gets no pass for sharing the query's verb.
 */
export function destructiveLead(loaded: LoadedCatalogue, data: RankingData, query: string, first: number | undefined, expected: readonly number[]): boolean {
  const destroys = (i: number) => toolEffect(loaded, data, i) !== undefined;
  if (first === undefined || expected.some(destroys)) return false;
  const effect = toolEffect(loaded, data, first);
  return effect !== undefined && !askedBy(query, data).has(effect);
}
