// Every tool description begins with a plain sentence of what the tool does: its title (the action and the resource,
// docs/naming.md), and, when neither the title nor the description's first line names it, what the resource belongs
// to ("Get role mappings for a group." on `/{realm}/groups/{id}/role-mappings`). Clients' own tool search (BM25 or
// regex over names and descriptions, deferred loading) and models reading a long list see the action first, in the
// words of the title, not a spec's caveats ("Any user with pull access …") or its bare `PUT /path`. Compact listings
// serve this lead joined to the first paragraph after it (src/profiles/listing-compaction.ts).
import { ABBREVIATIONS } from './name-words.ts';
import { singular } from './ts-type.ts';

/** Path segments that only version or prefix an API (as src/discovery/search-shape.ts reads them). */
const PREFIX = /^(v\d+([a-z]+\d*)?|\d[\d.-]*|api|rest)$/i;
const LONG = new Map(Object.entries(ABBREVIATIONS).map(([long, short]) => [short, long]));
const DEPRECATED = '[Deprecated] ';
const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '');

function wordsOf(segment: string): string[] {
  return segment
    .replace(/\.[a-z]+$/i, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/**
 * What the operation's resource belongs to: the nearest literal segment that a parameter follows and another literal
 * comes after (`issues` in `/repos/{owner}/{repo}/issues/{issue_number}/comments`), in the singular and in full
 * ("repos" -> "repository"). Undefined for a top-level resource.
 */
export function ownerOf(path: string): string | undefined {
  const segs = path.split('#')[0]!.split('/').filter((s) => s && !PREFIX.test(s));
  let owner: string | undefined;
  for (let i = 0; i < segs.length - 2; i++) {
    const literal = !segs[i]!.includes('{');
    if (literal && segs[i + 1]!.startsWith('{') && segs.slice(i + 2).some((s) => !s.includes('{'))) owner = segs[i];
  }
  return owner && nounOf(owner);
}

function article(noun: string): string {
  return /^(?:[aeio]|u(?!s|n[iy]|ti|r|ni))/.test(noun) ? 'an' : 'a';
}

/** Whether `text` names `noun` (its last word, singular or plural, or its short form). */
function names(text: string, noun: string): boolean {
  const last = noun.split(' ').pop()!;
  const forms = [last, ABBREVIATIONS[last]].filter(Boolean).map((w) => w!.replace(/y$/, '(y|ie)'));
  return new RegExp(`\\b(${forms.join('|')})(e?s)?\\b`, 'i').test(text);
}

/** A path segment's words as a noun phrase, its last word singular and in full ("playlistItems" -> "playlist item"). */
function nounOf(segment: string): string | undefined {
  const words = wordsOf(segment);
  if (!words.length) return undefined;
  const last = singular(words[words.length - 1]!);
  words[words.length - 1] = LONG.get(last)?.replace(/_/g, ' ') ?? last;
  return words.join(' ');
}

/**
 * What the operation acts on, when its title names no noun of its path: the last literal segment ("playlist item" for
 * "Delete a resource" on `/youtube/v3/playlistItems`). Generated specs give every operation one generic title ("Insert
 * a new resource into this collection"); a client's word search and a model reading the list then see no resource.
 */
export function unnamedResource(title: string, path: string): string | undefined {
  const literals = path
    .split('#')[0]!
    .split('/')
    .filter((s) => s && !s.includes('{'))
    .flatMap((s) => s.replace(/\.(json|xml|csv|txt)$/i, '').split(/[.:]/))
    .filter((s) => s && !PREFIX.test(s) && wordsOf(s).some((w) => w.length > 2));
  if (!literals.length) return undefined;
  // Squashed, so "PlacementGroup", "on-call" and "issue type scheme" name `placement_groups`, `oncall`, `issuetypescheme`.
  const squashed = norm(title);
  const named = (w: string) => w.length > 2 && (squashed.includes(w) || squashed.includes(singular(w)));
  if (literals.some((s) => named(norm(s)) || wordsOf(s).some(named))) return undefined;
  return nounOf(literals[literals.length - 1]!);
}

/** The lead sentence of a tool: its title, with what its resource belongs to when the title does not say. */
export function leadSentence(title: string, path: string, firstLine = ''): string {
  const owner = ownerOf(path);
  const context = owner && !names(title, owner) && !names(firstLine, owner) ? ` for ${article(owner)} ${owner}` : '';
  const resource = unnamedResource(title, path);
  const text = `${title.trim().replace(/[.!?]$/, '')}${resource ? ` (${resource})` : ''}${context}`;
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/**
 * The description with its lead sentence first, as a paragraph of its own. A first paragraph that only repeats the
 * title (a spec's summary) gives way to the lead; one that already starts with the title keeps its place; a
 * description that is only the operation's `METHOD /path` (no summary or description in the spec) becomes the lead.
 */
export function withLead(description: string, title: string, method: string, path: string): string {
  const deprecated = description.startsWith(DEPRECATED);
  const body = deprecated ? description.slice(DEPRECATED.length) : description;
  const paragraphs = body.split(/\n[ \t]*\n/);
  const first = paragraphs[0]!.trim();
  if (norm(first) === norm(title) || first === `${method.toUpperCase()} ${path}` || !first) paragraphs.shift();
  const rest = paragraphs.join('\n\n').trim();
  if (rest && norm(rest).startsWith(norm(title))) return description;
  const lead = leadSentence(title, path, rest.split('\n')[0]);
  return `${deprecated ? DEPRECATED : ''}${lead}${rest ? `\n\n${rest}` : ''}`;
}
