// Shortening a tool name by meaning (docs/naming.md), steps in order and only as far as the budget needs:
// 0. the API's own name when it leads the name (Google's "cloudprivatecatalogproducer_…"): the server says it;
// 1. drop filler words, then words repeating the tool's toolset (tag) words: Kubernetes' version tokens
//    ("v1alpha1") first, then the rest (its group token "admissionregistration", GitHub's repeated "actions");
// 2. abbreviate from the fixed table;
// 3. drop middle words one at a time: words the path does not have, most frequent first (frozen frequency
//    table), then abbreviated words, then prepositions, then path words from the shallowest segment down;
//    then, if it must, the leading toolset words: abbreviated, then dropped the same way.
// Always kept: the first word (once the API's name went, not even that), the verb phrase, the head noun, the final
// word and the caller's `keep` words.
// Hyphenated compounds of the summary ("self-hosted") go whole or not at all.
// A pure function of its arguments: a name never depends on other operations.
import { ABBREVIATIONS, FILLER, GLUE, VERBS, wordRank } from './name-words.ts';
import { snake } from './snake.ts';

export interface Shortened {
  name: string;
  /** Last step applied: 0 = the full name fits. */
  step: 0 | 1 | 2 | 3;
  /** False when even the kept words alone exceed the budget. */
  fits: boolean;
}

export interface ShortenContext {
  /** The tool's tags, each as its snake_case words. */
  toolset: string[][];
  /** Text whose hyphenated compounds ("self-hosted runner") must not be split: the operation's summary. */
  summary?: string;
  /** The operation's path: its words name the resource, the deeper the more specific. */
  path?: string;
  /** Words that must survive (the words that tell colliding operations apart). */
  keep?: ReadonlySet<string>;
  /** The API's own name (specStyle's `api`): leading a name, it is the first to go, before any word that says the operation. */
  api?: readonly string[];
  /** The first word may go like a middle word (set once the API's name went: what leads then is only a container). */
  leadFree?: boolean;
}

interface Token {
  word: string;
  out: boolean;
  kept: boolean;
  /** Tokens of one hyphenated compound share a unit number. */
  unit: number;
}

export function shortenName(full: string, ctx: ShortenContext, budget: number): Shortened {
  if (full.length <= budget) return { name: full, step: 0, fits: true };
  const words = full.split('_');
  // Kept, it would cost the resource or the verb their place ("cloudprivatecatalogproducer_delete" for a version's
  // delete). Two words at least stay: a resource and its action.
  const api = ctx.api ?? [];
  if (api.length && words.length >= api.length + 2 && api.every((w, i) => words[i] === w) && !api.some((w) => ctx.keep?.has(w))) {
    // What follows the API's name is its resource path (Google's "projects_locations_…"): no word of it leads by right.
    const rest = shortenName(words.slice(api.length).join('_'), { ...ctx, api: undefined, leadFree: true }, budget);
    // One glued word left ("modifylinkedofferobjects") says less than the API's name beside it.
    if (rest.fits && rest.name.includes('_')) return { ...rest, step: rest.step || 1 };
  }
  const tokens = markTokens(words, ctx);
  const prefix = ctx.leadFree ? 0 : prefixLength(words, ctx.toolset);
  // Tag words say nothing new when the name opens with the tag (GitHub's "actions_…") or the tag is a group and
  // version (Kubernetes' "admissionregistration_v1alpha1"); a tag that only names the resource
  // (Google's "regionTargetHttpsProxies" in "compute_region_target_https_proxies_insert") is the name's noun.
  const tagWords = new Set(ctx.toolset.filter((t) => prefix > 0 || t.some((w) => isVersion(w))).flat());
  const text = () => tokens.filter((t) => !t.out).map((t) => t.word).join('_');
  const fits = () => text().length <= budget;

  // 1. Filler words; a word or two-word phrase said again right after ("customers_customer"); then toolset words after the leading ones (the final word too when the prefix says it):
  //    version tokens first, then the rest.
  const repeated = repeatedIndexes(words);
  const drops: Array<(t: Token, i: number) => boolean> = [
    (t, i) => !t.kept && i >= prefix && FILLER.has(t.word),
    (t, i) => !t.kept && i >= prefix && repeated.has(i),
    (t, i) => !t.kept && i >= prefix && tagWords.has(t.word) && isVersion(t.word),
    (t, i) => (!t.kept && i >= prefix && tagWords.has(t.word)) || (prefix > 0 && i === words.length - 1 && words.slice(0, prefix).includes(t.word)),
  ];
  for (const drop of drops) {
    for (const [i, t] of tokens.entries()) if (drop(t, i)) t.out = true;
    if (fits()) return { name: text(), step: 1, fits: true };
  }

  // 2. The abbreviation table, except on the leading toolset words (they name the toolset).
  abbreviate(tokens.slice(prefix));
  if (fits()) return { name: text(), step: 2, fits: true };

  // 3. Middle words by score, lowest first (a compound scores as its most informative word), ties leftmost.
  const depth = pathDepths(ctx.path ?? '');
  const short = new Set(Object.values(ABBREVIATIONS));
  const wordScore = (w: string) => {
    const d = depth.get(stem(w));
    if (d !== undefined) return PATH_SCORE + d;
    if (GLUE.has(w)) return PATH_SCORE - 1;
    if (short.has(w)) return PATH_SCORE - 2;
    return Math.min(wordRank(w), PATH_SCORE - 3);
  };
  // "or" in "create_or_update" says least of all: first to go.
  const betweenVerbs = (t: Token) => GLUE.has(t.word) && VERBS.has(tokens[tokens.indexOf(t) - 1]?.word ?? '') && VERBS.has(tokens[tokens.indexOf(t) + 1]?.word ?? '');
  const score = (ts: Token[]) => (ts.length === 1 && betweenVerbs(ts[0]!) ? -1 : Math.max(...ts.map((t) => wordScore(t.word))));
  const dropFrom = (from: number, to: number): boolean => {
    const units = new Map<number, Token[]>();
    for (const t of tokens.slice(from, to)) if (!t.out && !t.kept) units.set(t.unit, [...(units.get(t.unit) ?? []), t]);
    const order = [...units.values()].sort((a, b) => score(a) - score(b) || tokens.indexOf(a[0]!) - tokens.indexOf(b[0]!));
    for (const u of order) {
      if (u[0]!.out) continue;
      for (const t of u) t.out = true;
      // A preposition loses its meaning with the word before it ("access_to"): it goes too.
      const next = tokens.slice(tokens.indexOf(u[u.length - 1]!) + 1).find((t) => !t.out);
      if (next && !next.kept && GLUE.has(next.word)) next.out = true;
      if (fits()) return true;
    }
    return false;
  };
  if (dropFrom(prefix, tokens.length)) return { name: text(), step: 3, fits: true };
  // Last, the leading toolset words themselves: abbreviated, then dropped like middle words (Azure's long
  // "managed_backup_short_term_retention_policies_get" is nearly all toolset).
  abbreviate(tokens.slice(0, prefix));
  const ok = fits() || dropFrom(0, prefix);
  return { name: text(), step: 3, fits: ok };
}

const isVersion = (w: string) => /^v\d+([a-z]+\d*)?$/.test(w);

/** Scores above every frequency rank: path words go last. */
const PATH_SCORE = 1_000_000;

/** Single words from the table, and two-word phrases ("pull_request" -> "pr"). */
function abbreviate(tokens: Token[]): void {
  const live = tokens.filter((t) => !t.out);
  for (const [i, t] of live.entries()) {
    const next = live[i + 1];
    const phrase = next && ABBREVIATIONS[`${t.word}_${next.word}`];
    if (phrase) {
      t.word = phrase;
      next.out = true;
      t.kept ||= next.kept;
    } else if (!t.out) t.word = ABBREVIATIONS[t.word] ?? t.word;
  }
}

/** Singular-ish form for comparing name words with path words. */
const stem = (w: string) => (w.length > 3 ? w.replace(/s$/, '') : w);

/** Words of the path's segments (parameters included), abbreviated and stemmed, with the deepest segment index. */
function pathDepths(path: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const [i, seg] of path.split('/').filter(Boolean).entries()) {
    for (const w of snake(seg).split('_')) if (w) out.set(stem(ABBREVIATIONS[w] ?? w), i);
  }
  return out;
}

/** Number of leading words that spell one of the tool's tags ("code_security_…" for tag "code-security"). */
function prefixLength(words: string[], toolset: string[][]): number {
  return Math.max(0, ...toolset.filter((t) => t.length && t.length < words.length && t.every((w, i) => words[i] === w)).map((t) => t.length));
}

/** Indexes of a word or two-word phrase said again, in any number, right after it ("payment_methods_payment_method"). */
function repeatedIndexes(words: string[]): Set<number> {
  const out = new Set<number>();
  for (let i = 0; i < words.length; i++) {
    for (const n of [1, 2]) {
      if (words.length < i + 2 * n) continue;
      const a = words.slice(i, i + n).map(stem).join('_');
      const b = words.slice(i + n, i + 2 * n).map(stem).join('_');
      if (a === b) for (let k = i; k < i + n; k++) out.add(k);
    }
  }
  return out;
}

/** Tokens with the words that must stay marked, and compound units from the summary's hyphenated words. */
function markTokens(words: string[], ctx: ShortenContext): Token[] {
  const tokens: Token[] = words.map((word, i) => ({ word, out: false, kept: false, unit: i }));
  const tagWords = new Set(ctx.toolset.flat());
  const prefix = ctx.leadFree ? 0 : prefixLength(words, ctx.toolset);
  const keep = (i: number) => {
    if (tokens[i]) tokens[i].kept = true;
  };
  if (!ctx.leadFree) keep(0);
  // The verb phrase: the first listed verb after the prefix (else its first own word), and "or"/"and" verbs after it.
  let verb = words.findIndex((w, i) => i >= prefix && VERBS.has(w));
  if (verb < 0) {
    verb = prefix;
    while (verb < words.length - 1 && (tagWords.has(words[verb]!) || FILLER.has(words[verb]!))) verb++;
  }
  keep(verb);
  for (let i = verb; GLUE.has(words[i + 1] ?? '') && VERBS.has(words[i + 2] ?? ''); i += 2) keep(i + 2);
  // The head noun: the word before the first filler or glue word after the verb phrase ("labels" in "list_labels_for_runner").
  const glue = words.findIndex((w, i) => i > verb + 1 && (FILLER.has(w) || GLUE.has(w)) && !VERBS.has(words[i - 1]!));
  if (glue > 0 && !GLUE.has(words[glue - 1]!) && !FILLER.has(words[glue - 1]!)) keep(glue - 1);
  keep(words.length - 1);
  for (const [i, w] of words.entries()) if (ctx.keep?.has(w)) keep(i);
  for (const m of (ctx.summary ?? '').matchAll(/[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+/g)) {
    const parts = snake(m[0]).split('_');
    for (let i = 0; i + parts.length <= words.length; i++) {
      if (!parts.every((p, k) => words[i + k] === p)) continue;
      // A compound holding a kept word would keep too much: its other words stay droppable one by one.
      const unit = tokens.slice(i, i + parts.length);
      if (!unit.some((t) => t.kept)) for (const t of unit) t.unit = i;
    }
  }
  return tokens;
}
