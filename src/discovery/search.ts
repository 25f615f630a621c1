// Tool search for discovery mode: BM25 over a tool's name, title, one-line summary, HTTP path and toolsets,
// with light stemming and a small synonym table. One index per slice, built lazily and kept as a part of the slice.
import type { LoadedCatalogue, ToolHead } from '../catalogue/loaded-catalogue.ts';
import { slicePart, type Slice } from '../catalogue/slices.ts';
import { roughBytes } from '../lib/lru.ts';
import { compactDescription } from '../profiles/compact.ts';
import { queryClauses, titlePhrase, type Clause, type Phrase } from './head-nouns.ts';

interface SearchHit {
  name: string;
  title: string;
  summary: string;
  score: number;
}

interface Doc {
  /** The tool without its schemas: search never materialises a schema. */
  tool: ToolHead;
  summary: string;
  /** term -> weighted frequency (fields weighted: name 3, title 2.5, summary 1, path 1, toolsets 1). */
  tf: Map<string, number>;
  len: number;
  /** Distinct title terms: a query that covers the whole title names this tool. */
  titleTerms: Set<string>;
  /** What the operation does and acts on, stemmed: "List labels for an issue" -> list, label (plural). */
  phrase: Phrase & { plural: boolean };
}

interface Index {
  docs: Doc[];
  df: Map<string, number>;
  avgLen: number;
  /** Words titles start with (their verbs), plus everyday query verbs. */
  verbs: Set<string>;
}

const STOP = new Set(['a', 'an', 'the', 'of', 'for', 'to', 'in', 'on', 'by', 'with', 'and', 'or', 'my', 'me', 'i', 'is', 'are', 'be', 'this', 'that', 'from', 'at', 'as', 'it', 'its', 'into', 'how', 'do', 'can', 'what', 'which', 'some', 'all', 'any', 'via', 'using', 'new']);

// Query-side synonyms: each query term also matches these (weighted lower than the term itself).
const SYNONYMS: Record<string, string[]> = {
  pr: ['pull'],
  prs: ['pull'],
  repo: ['repository', 'repos'],
  repos: ['repository'],
  repository: ['repos'],
  add: ['create'],
  make: ['create'],
  open: ['create'],
  post: ['create'],
  write: ['create', 'update'],
  remove: ['delete'],
  close: ['update'],
  reopen: ['update'],
  lock: ['lock'],
  branch: ['ref'],
  branches: ['ref'],
  fork: ['fork'],
  rerun: ['re', 'run'],
  diff: ['file', 'compare'],
  erase: ['delete'],
  fetch: ['get'],
  show: ['get', 'list'],
  read: ['get'],
  view: ['get'],
  retrieve: ['get'],
  find: ['search', 'list'],
  lookup: ['search', 'get'],
  edit: ['update'],
  change: ['update'],
  modify: ['update'],
  rename: ['update'],
  workflow: ['action'],
  ci: ['action', 'workflow', 'check'],
  job: ['action', 'workflow'],
  org: ['organization', 'orgs'],
  organization: ['orgs'],
  file: ['content'],
  files: ['content'],
  contents: ['content'],
  user: ['users'],
  me: ['authenticated'],
  my: ['authenticated'],
  mine: ['authenticated'],
  approve: ['review'],
  reject: ['review'],
  comment: ['comment'],
  star: ['starred', 'activity'],
  notification: ['activity'],
  tag: ['tags'],
  member: ['members', 'membership'],
  secret: ['secrets'],
  key: ['keys'],
  webhook: ['hook', 'webhooks'],
  hook: ['webhook'],
  label: ['labels'],
};

export function stem(word: string): string {
  let w = word.toLowerCase();
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && /(ches|shes|sses|xes)$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us')) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed') && !w.endsWith('eed')) w = w.slice(0, -2);
  return w;
}

function terms(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w && !STOP.has(w))
    .map(stem);
}

/** Kept while the slice stays cached, its bytes counted against the slice's bounded cache entry. */
function indexOf(loaded: LoadedCatalogue, slice: Slice): Index {
  return slicePart(slice, 'search', () => buildIndex(loaded, slice), (index) => roughBytes(index));
}

function buildIndex(loaded: LoadedCatalogue, slice: Slice): Index {
  let index: Index;
  const docs: Doc[] = [];
  const df = new Map<string, number>();
  let total = 0;
  const verbs = titleVerbs(slice.tools.map((i) => loaded.title(i)));
  for (const i of slice.tools) {
    const tool = loaded.peek(i);
    const summary = compactDescription(tool.description, tool.title, 160);
    const tf = new Map<string, number>();
    const add = (text: string, weight: number) => {
      for (const t of terms(text)) tf.set(t, (tf.get(t) ?? 0) + weight);
    };
    add(tool.name.replace(/_[0-9a-f]{6}$/, ''), 3);
    add(tool.title, 2.5);
    add(summary, 1);
    add(tool.http.path.replace(/\{[^}]*\}/g, ' '), 1);
    add(tool.toolsets.join(' '), 1);
    // Filters: "issues with a label" names the query parameter `labels` of the operation listing issues.
    add(filterNames(tool), FILTER_WEIGHT);
    let len = 0;
    for (const [t, f] of tf) {
      len += f;
      df.set(t, (df.get(t) ?? 0) + 1);
    }
    total += len;
    docs.push({ tool, summary, tf, len, titleTerms: new Set(terms(tool.title)), phrase: stemmed(titlePhrase(tool.title, verbs)) });
  }
  index = { docs, df, avgLen: docs.length ? total / docs.length : 1, verbs };
  return index;
}

/** Query parameters that page or order results say nothing about what an operation can filter by. */
const NOT_FILTERS = new Set(['page', 'per_page', 'sort', 'direction', 'order', 'cursor', 'before', 'after', 'limit', 'offset']);
const FILTER_WEIGHT = 0.5;

function filterNames(tool: ToolHead): string {
  return tool.http.params.filter((p) => p.in === 'query' && !NOT_FILTERS.has(p.name)).map((p) => p.name).join(' ');
}

/** Verbs of everyday queries that titles rarely start with. */
const QUERY_VERBS = ['show', 'find', 'fetch', 'read', 'view', 'retrieve', 'lookup', 'make', 'open', 'edit', 'change', 'modify', 'rename', 'erase', 'count', 'return', 'give', 'see', 'trigger', 'rerun'];

/** Words that start at least two titles: the catalogue's verbs ("list", "get", "create", …). */
function titleVerbs(titles: string[]): Set<string> {
  const counts = new Map<string, number>();
  for (const title of titles) {
    const first = title.toLowerCase().split(/[^a-z0-9]+/).find(Boolean);
    if (first) counts.set(first, (counts.get(first) ?? 0) + 1);
  }
  const verbs = new Set(QUERY_VERBS);
  for (const [word, n] of counts) if (n >= 2) verbs.add(word);
  return verbs;
}

const K1 = 1.2;
/** A tool acting on what the query asks for (a head noun of one of its clauses) wins over one merely mentioning it. */
const HEAD_BOOST = 2;
const CORE_BOOST = 1.3;
const B = 0.6;

/** A query clause with its verb and head stemmed. */
type RankedClause = Clause & { plural: boolean };

/** The phrase stemmed; `plural`: its head was a plural ("repositories"). */
function stemmed(p: Phrase): Phrase & { plural: boolean } {
  const out: Phrase & { plural: boolean } = { plural: false };
  if (p.verb) out.verb = stem(p.verb);
  if (p.head) {
    out.head = stem(p.head);
    out.plural = out.head !== p.head;
  }
  return out;
}

/** The doc acts on what the clause asks for, with the clause's verb or one it stands for ("show" -> get, list). */
function actsOn(doc: Doc, clause: RankedClause): boolean {
  const { verb, head } = doc.phrase;
  if (!head || head !== clause.head) return false;
  if (!clause.verb || !verb) return true;
  // "get their repositories" asks for a list, not for one repository.
  if (asksForList(clause)) return verb === 'list' || (verb === clause.verb && doc.phrase.plural);
  return clause.verb === verb || (SYNONYMS[clause.verb] ?? []).some((s) => stem(s) === verb);
}

/** "get their repositories", "show the issues": a verb that gets, with a plural. */
function asksForList(clause: RankedClause): boolean {
  return clause.plural && clause.verb !== undefined && (clause.verb === 'get' || (SYNONYMS[clause.verb] ?? []).includes('get'));
}

/**
 * Ranked matches for a free-text query within the slice (optionally one toolset). A query asking for several
 * things ("list issues with a label and their comments") is ranked clause by clause and the rankings take turns.
 * A sharded catalogue must have loaded the slice.
 */
export function searchTools(loaded: LoadedCatalogue, slice: Slice, query: string, options: { toolset?: string; limit?: number } = {}): SearchHit[] {
  const index = indexOf(loaded, slice);
  const limit = options.limit ?? 8;
  const clauses = queryClauses(query, index.verbs).map((c) => ({ ...c, ...stemmed(c) }));
  const rankings = clauses.map((c) => rank(index, c, options.toolset));
  if (rankings.length === 1) return rankings[0]!.slice(0, limit);
  const out: SearchHit[] = [];
  const seen = new Set<string>();
  for (let i = 0; out.length < limit && rankings.some((r) => i < r.length); i++) {
    for (const r of rankings) {
      const hit = r[i];
      if (hit && !seen.has(hit.name) && out.length < limit) {
        seen.add(hit.name);
        out.push(hit);
      }
    }
  }
  return out;
}

function rank(index: Index, clause: RankedClause, toolset: string | undefined): SearchHit[] {
  // Query terms with weights: the word itself 1, its synonyms 0.5 (never above an existing weight).
  const weights = new Map<string, number>();
  const raw = clause.text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
  const words = raw.filter((w) => !STOP.has(w));
  for (const w of raw) {
    const s = stem(w);
    // Stop words ("my", "me") count only through their synonyms.
    if (!STOP.has(w)) weights.set(s, Math.max(weights.get(s) ?? 0, 1));
    for (const syn of SYNONYMS[w] ?? SYNONYMS[s] ?? []) {
      const ss = stem(syn);
      if (!weights.has(ss)) weights.set(ss, 0.5);
    }
  }
  if (asksForList(clause) && !weights.has('list')) weights.set('list', 0.5);
  const context = clause.context && stem(clause.context);
  if (context && !weights.has(context)) weights.set(context, 0.5);
  const n = index.docs.length;
  const hits: SearchHit[] = [];
  for (const doc of index.docs) {
    if (toolset && !doc.tool.toolsets.includes(toolset)) continue;
    let score = 0;
    let matched = 0;
    for (const [t, qw] of weights) {
      const f = doc.tf.get(t);
      if (!f) continue;
      matched += qw;
      const dfi = index.df.get(t) ?? 0;
      const idf = Math.log(1 + (n - dfi + 0.5) / (dfi + 0.5));
      score += qw * idf * ((f * (K1 + 1)) / (f + K1 * (1 - B + (B * doc.len) / index.avgLen)));
    }
    if (score <= 0) continue;
    // Coverage: prefer tools that match more of the query's words, and whose title the query covers.
    score *= 0.5 + 0.5 * Math.min(1, matched / Math.max(1, words.length));
    let covered = 0;
    for (const t of doc.titleTerms) if (weights.has(t)) covered += weights.get(t)!;
    score *= 1 + covered / Math.max(1, doc.titleTerms.size);
    // Everyday operations (curated *_core toolsets) win close calls.
    if (doc.tool.toolsets.some((t) => t.endsWith('_core'))) score *= CORE_BOOST;
    if (actsOn(doc, clause)) score *= HEAD_BOOST;
    hits.push({ name: doc.tool.name, title: doc.tool.title, summary: doc.summary, score });
  }
  hits.sort((a, b) => b.score - a.score || a.name.length - b.name.length || (a.name < b.name ? -1 : 1));
  return hits;
}
