// Name quality of a catalogue (docs/naming.md, "Measuring"): the share of names that are an HTTP verb plus a path,
// the share of titles that are not titles (too long, cut, a sentence rather than an action, a path echo), acronyms
// split in two, and the longest names. Pure functions of the names and titles, so the report
// (`npm run catalog -- --report`) and the corpus check (name-quality-corpus.ts) measure the same thing.
import type { CatalogueTool } from '../../src/catalogue/types.ts';
import { countSmells, isCutTitle, NAME_SMELLS, splitAcronyms, type SmellCount } from './name-smells.ts';

/** HTTP methods that are not English action verbs: a name led by one says how, not what. */
const HTTP_ONLY = new Set(['post', 'put', 'head', 'options']);

/** A title past this many words is a sentence, not a title. */
export const TITLE_MAX_WORDS = 12;

/** What every catalogue should meet (issue 24): shares of HTTP-verb names and of titles that are not titles; of tools with a name smell (issue 40). */
export const NAME_TARGETS = { httpVerbNames: 0.02, badTitles: 0.03, smells: 0.02 };

/**
 * Openers of a sentence rather than of an action: pronouns, subordinate clauses, hedges, "allows/lets/enables"
 * (a description of the tool, not its action). Matched on the title's first words, case-insensitively.
 */
const SENTENCE_OPENER =
  /^(you|your|we|our|i|it|its|this|these|those|they|there|here|when|whenever|if|once|after|before|while|since|because|although|though|unless|as|by default|note|notes|please|in order|in this|in the|for (this|that|each|all|more|example)|with this|using this|use this|allows|lets|enables|provides|can|may|must|should|will|does|is|are)\b/i;

export type TitleProblem = 'long' | 'cut' | 'sentence' | 'echo' | 'raw';

const words = (s: string) => s.split(/\s+/).filter(Boolean);
const stem = (w: string) => w.toLowerCase().replace(/(ies|es|s)$/, '');

/** Why a title is not a title, or undefined when it is one. */
export function titleProblem(title: string): TitleProblem | undefined {
  const t = title.trim();
  if (!t || /[/{}_]/.test(t) || /^(GET|PUT|POST|PATCH|DELETE|HEAD|OPTIONS|TRACE)\b/.test(t)) return 'raw';
  // An identifier, not words: a call ("DeleteActionsByIdAction()") or one camel-case token ("RetrieveOrder").
  if (/\(\)$/.test(t) || /^[A-Za-z][a-z0-9]+[A-Z][A-Za-z0-9]*$/.test(t)) return 'raw';
  if (/(…|\.\.\.)$/.test(t) || isCutTitle(t)) return 'cut';
  const w = words(t);
  if (w.length > TITLE_MAX_WORDS) return 'long';
  if (SENTENCE_OPENER.test(t) || /[.!?]\s+\S/.test(t)) return 'sentence';
  // A path said in words: the same noun twice in a row ("customers customer").
  for (let i = 1; i < w.length; i++) if (w[i]!.length > 2 && stem(w[i]!) === stem(w[i - 1]!)) return 'echo';
  return undefined;
}

/**
 * True for a name led by an HTTP method that is not a verb (`post_customers`, `put_absence_progress`, `head_image`).
 * With the operation's path, a first word the path has as a noun is no method (`post_comments_list` on /posts/{id}/comments).
 */
export function isHttpVerbName(name: string, path?: string): boolean {
  const first = name.split('_')[0]!;
  if (!HTTP_ONLY.has(first)) return false;
  const nouns = (path ?? '').replace(/[?#].*$/, '').toLowerCase().split(/[^a-z0-9]+/);
  return !nouns.some((w) => w === first || w === `${first}s`);
}

/** Acronyms of the operationId that the name splits ("floatingIPs" as `floating_i_ps`, "OAuth2" as `o_auth2`): name-smells.ts. */
export const acronymSplits = splitAcronyms;

export interface NamedTool {
  name: string;
  title: string;
  operationId?: string;
  /** The operation's path: a first word it has as a noun is no HTTP method. */
  path?: string;
  method?: string;
}

export interface NameQuality {
  tools: number;
  /** Names led by an HTTP method that is not a verb. */
  httpVerbNames: string[];
  /** Titles that are not titles, with why. */
  badTitles: Array<{ name: string; title: string; problem: TitleProblem }>;
  /** Names that split an acronym ("floating_i_ps"). */
  acronymSplits: Array<{ name: string; split: string[] }>;
  /** The longest names, longest first (ties by name). */
  longest: string[];
  /** Titles over 8 words (within 12: allowed where no clause boundary gives a shorter one). */
  overEight: number;
  /** Name smells (name-smells.ts): framework-made ids, path echoes, method-settled collisions, cut and noun-first titles, split acronyms. */
  smells: SmellCount;
}

/** The catalogue's tools as the measures read them; `operationIds` ("METHOD path" -> operationId) finds acronym splits exactly. */
export function namedTools(tools: CatalogueTool[], operationIds?: Map<string, string>): NamedTool[] {
  return tools.map((t) => ({ name: t.name, title: t.title ?? '', path: t.http.path, method: t.http.method, operationId: operationIds?.get(`${t.http.method} ${t.http.path}`) }));
}

export function nameQuality(tools: NamedTool[], longest = 5): NameQuality {
  const badTitles: NameQuality['badTitles'] = [];
  const splits: NameQuality['acronymSplits'] = [];
  for (const t of tools) {
    const problem = titleProblem(t.title);
    if (problem) badTitles.push({ name: t.name, title: t.title, problem });
    const split = acronymSplits(t.name, t.operationId);
    if (split.length) splits.push({ name: t.name, split });
  }
  const byLength = [...tools].map((t) => t.name).sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0));
  return {
    tools: tools.length,
    httpVerbNames: tools.filter((t) => isHttpVerbName(t.name, t.path)).map((t) => t.name).sort(),
    badTitles: badTitles.sort((a, b) => (a.name < b.name ? -1 : 1)),
    acronymSplits: splits.sort((a, b) => (a.name < b.name ? -1 : 1)),
    longest: byLength.slice(0, longest),
    overEight: tools.filter((t) => words(t.title).length > 8).length,
    smells: countSmells(tools),
  };
}

const pct = (n: number, of: number) => `${((100 * n) / Math.max(1, of)).toFixed(1)}%`;

/** The report's "Name quality" section (markdown). */
export function formatNameQuality(q: NameQuality, examples = 5): string[] {
  const out = ['## Name quality (docs/naming.md)', ''];
  out.push(`- HTTP-verb names (\`post_\`, \`put_\`, \`head_\`…): ${q.httpVerbNames.length} of ${q.tools} (${pct(q.httpVerbNames.length, q.tools)})${q.httpVerbNames.length ? `: ${q.httpVerbNames.slice(0, examples).join(', ')}` : ''}`);
  const by = (p: TitleProblem) => q.badTitles.filter((b) => b.problem === p).length;
  out.push(
    `- titles that are not titles: ${q.badTitles.length} of ${q.tools} (${pct(q.badTitles.length, q.tools)}): over ${TITLE_MAX_WORDS} words ${by('long')}, cut ${by('cut')}, a sentence ${by('sentence')}, a path echo ${by('echo')}, raw ${by('raw')}`,
  );
  for (const b of q.badTitles.slice(0, examples)) out.push(`  - ${b.name} (${b.problem}): "${b.title}"`);
  out.push(`- titles over 8 words: ${q.overEight} of ${q.tools} (${pct(q.overEight, q.tools)})`);
  out.push(`- acronym splits: ${q.acronymSplits.length}${q.acronymSplits.length ? `: ${q.acronymSplits.slice(0, examples).map((s) => `${s.name} (${s.split.join(', ')})`).join(', ')}` : ''}`);
  out.push(`- longest names: ${q.longest.map((n) => `${n} (${n.length})`).join(', ')}`);
  const sm = q.smells;
  out.push(`- name smells: ${sm.smelly} of ${q.tools} tools (${pct(sm.smelly, q.tools)}): ${NAME_SMELLS.map((s) => `${s.label} ${sm.by[s.smell]}`).join(', ')}`);
  for (const e of sm.examples.slice(0, examples)) out.push(`  - ${e.name} (${e.smells.join(', ')}): "${e.title}"`);
  return out;
}

/** The report's target lines for the name-quality measures. */
export function nameQualityChecks(q: NameQuality): Array<{ target: string; ok: boolean; measured: string }> {
  const share = (n: number) => n / Math.max(1, q.tools);
  return [
    { target: `HTTP-verb names ≤ ${NAME_TARGETS.httpVerbNames * 100}%`, ok: share(q.httpVerbNames.length) <= NAME_TARGETS.httpVerbNames, measured: `${q.httpVerbNames.length} of ${q.tools}` },
    { target: `titles that are not titles ≤ ${NAME_TARGETS.badTitles * 100}%`, ok: share(q.badTitles.length) <= NAME_TARGETS.badTitles, measured: `${q.badTitles.length} of ${q.tools}` },
    { target: 'no acronym split in a name', ok: q.acronymSplits.length === 0, measured: `${q.acronymSplits.length}` },
    { target: `tools with a name smell ≤ ${NAME_TARGETS.smells * 100}%`, ok: share(q.smells.smelly) <= NAME_TARGETS.smells, measured: `${q.smells.smelly} of ${q.tools}` },
  ];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** "METHOD path" -> operationId of a loaded spec (local path items only: enough to find acronym splits). */
export function specOperationIds(doc: { paths?: Record<string, unknown> }): Map<string, string> {
  const out = new Map<string, string>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const m of METHODS) {
      const id = (item as Record<string, { operationId?: unknown } | undefined>)?.[m]?.operationId;
      if (typeof id === 'string') out.set(`${m.toUpperCase()} ${path}`, id);
    }
  }
  return out;
}
