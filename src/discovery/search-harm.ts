// What a destructive tool may destroy, read once per tool when the search index is built (its `harms` line) and read
// back by the ranker (search-risk.ts): the catalogue's destructiveHint says whether it destroys; its own words, with
// the generator's lexicon of effects (src/catalogue/verb-effects.ts), say what. None unless the catalogue marks it
// destructive; then the most harmful effect its title's verbs name ("Send, void, or modify a draft envelope": void
// ends), else its path's action or resource (`/reset-password`, `/impersonation`), else its method's: a DELETE removes,
// any other write overwrites. Resetting is told apart from other overwriting: only its own verbs ask for it.
import { DESTRUCTIVE, effectOfVerbs, leadingVerbs, stemEffect, type Effect, type EffectFallback } from '../catalogue/verb-effects.ts';
import { stem } from './search-text.ts';

/** The effects search must not lead with unasked: the lexicon's destructive ones, and resetting apart from other
 * overwriting ("unlock an account" must not lead with resetting its password). */
export type Harm = Extract<Effect, 'overwrite' | 'end' | 'remove' | 'act_as'> | 'reset';

export interface ToolRisk {
  effect: Harm;
  /** Its own words name no harm (or nothing): only its method made it destructive ("Unlock an issue", a DELETE). */
  methodOnly: boolean;
}

/** What the harm is read from: the tool's hints, title and method, and its path's action and resource words. */
export interface HarmSource {
  readOnly: boolean;
  destructive: boolean;
  title: string;
  method: string;
  action?: string;
  resource?: string;
}

/** Verbs that overwrite a secret or a state with a fresh one. */
const RESETTING = new Set(['reset', 'rotate', 'regenerate', 'reissue'].map(stem));

const harmful = (e: Effect | undefined): e is Exclude<Harm, 'reset'> => e !== undefined && DESTRUCTIVE.has(e);

/** The harm verbs (given stemmed) name together with their effect: resetting, else the lexicon's destructive effect. */
export function harmOf(stems: readonly string[], effect: Effect | undefined): Harm | undefined {
  if (!harmful(effect)) return undefined;
  return effect === 'overwrite' && stems.some((s) => RESETTING.has(s)) ? 'reset' : effect;
}

/** A tool's risk (undefined: it destroys nothing). `fallback`: the generator's WordNet, for title verbs outside the lexicon. */
export function readHarm(tool: HarmSource, fallback?: EffectFallback | null): ToolRisk | undefined {
  if (tool.readOnly || !tool.destructive) return undefined;
  const verbs = leadingVerbs(tool.title, fallback);
  const words = harmOf(verbs.map((v) => stem(v)), effectOfVerbs(verbs, fallback));
  if (words) return { effect: words, methodOnly: false };
  for (const w of [tool.action, tool.resource]) {
    const s = w === undefined ? undefined : stem(w);
    const said = s === undefined ? undefined : harmOf([s], stemEffect(s, stem));
    if (said) return { effect: said, methodOnly: false };
  }
  return { effect: tool.method.toUpperCase() === 'DELETE' ? 'remove' : 'overwrite', methodOnly: true };
}

const CODE: Record<Harm, string> = { overwrite: 'o', reset: 'r', end: 'e', remove: 'x', act_as: 'i' };
const HARM_OF_CODE = new Map(Object.entries(CODE).map(([h, c]) => [c, h as Harm]));

/** One letter per tool: `-` for none, else the harm's letter, in capitals when only the method made it destructive. */
export function encodeHarm(risk: ToolRisk | undefined): string {
  if (!risk) return '-';
  const c = CODE[risk.effect];
  return risk.methodOnly ? c.toUpperCase() : c;
}

export function decodeHarm(letter: string): ToolRisk | undefined {
  const effect = HARM_OF_CODE.get(letter.toLowerCase());
  return effect ? { effect, methodOnly: letter !== letter.toLowerCase() } : undefined;
}
