// A small, fixed GitHub for the benchmarks' tasks and the code-mode tests: issues with labels and comments, pull
// requests with reviews, a user and their repositories, for any owner and repository name. Every body is built
// from the spec's own documented examples (components.examples), so each is valid against the tool's outputSchema
// and as large as the real API's. Only GETs are answered; anything else is a 404 problem+json.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FAKE_ISSUES, FAKE_PULLS, FAKE_REPOS } from './github-fake-data.ts';
import { GITHUB_SPEC } from './prism.ts';
import { repoRoot } from './proc.ts';

type Json = Record<string, unknown>;

interface Examples {
  issue: Json;
  comment: Json;
  pull: Json;
  review: Json;
  user: Json;
  repo: Json;
}

let examples: Examples | undefined;
function examplesOf(): Examples {
  if (examples) return examples;
  const ex = (JSON.parse(readFileSync(join(repoRoot, GITHUB_SPEC), 'utf8')) as { components: { examples: Record<string, { value: unknown }> } }).components.examples;
  const first = (name: string) => (ex[name]!.value as Json[])[0]!;
  examples = {
    issue: first('issue-items'),
    comment: first('issue-comment-items'),
    pull: first('pull-request-simple-items'),
    review: first('pull-request-review-items'),
    user: ex['public-user-default-response']!.value as Json,
    repo: first('minimal-repository-items'),
  };
  return examples;
}

function issue(owner: string, repo: string, [number, title, labels, state, comments]: (typeof FAKE_ISSUES)[number]): Json {
  const base = examplesOf().issue;
  const label = (base.labels as Json[])[0]!;
  const url = `https://api.github.com/repos/${owner}/${repo}/issues/${number}`;
  return {
    ...base,
    id: 1000 + number,
    number,
    title,
    state,
    comments,
    url,
    html_url: `https://github.com/${owner}/${repo}/issues/${number}`,
    labels: labels.map((name, i) => ({ ...label, id: 200 + i, name })),
    closed_at: state === 'closed' ? base.updated_at : null,
  };
}

function comments(owner: string, repo: string, number: number, count: number): Json[] {
  const base = examplesOf().comment;
  return Array.from({ length: count }, (_, i) => ({
    ...base,
    id: number * 100 + i,
    body: `Comment ${i + 1} on #${number}`,
    issue_url: `https://api.github.com/repos/${owner}/${repo}/issues/${number}`,
  }));
}

/** The answer for one GET, or undefined when this fake has no such route. */
export function fakeGitHubAnswer(method: string, path: string, query: URLSearchParams): { status: number; body: unknown } | undefined {
  if (method !== 'GET') return undefined;
  const ex = examplesOf();
  let m = /^\/repos\/([^/]+)\/([^/]+)\/issues$/.exec(path);
  if (m) {
    const [owner, repo] = [m[1]!, m[2]!];
    const state = query.get('state') ?? 'open';
    const wanted = (query.get('labels') ?? '').split(',').map((l) => l.trim()).filter(Boolean);
    const page = Number(query.get('page') ?? 1);
    const list = page > 1 ? [] : FAKE_ISSUES.filter(([, , labels, s]) => (state === 'all' || s === state) && wanted.every((l) => labels.includes(l)));
    return { status: 200, body: list.map((i) => issue(owner, repo, i)) };
  }
  m = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)(\/comments)?$/.exec(path);
  if (m) {
    const found = FAKE_ISSUES.find(([n]) => n === Number(m![3]));
    if (!found) return notFound();
    if (!m[4]) return { status: 200, body: issue(m[1]!, m[2]!, found) };
    return { status: 200, body: Number(query.get('page') ?? 1) > 1 ? [] : comments(m[1]!, m[2]!, found[0], found[4]) };
  }
  m = /^\/repos\/([^/]+)\/([^/]+)\/pulls$/.exec(path);
  if (m) {
    const open = (query.get('state') ?? 'open') !== 'closed';
    return { status: 200, body: open ? FAKE_PULLS.map(([number, title]) => ({ ...ex.pull, id: 5000 + number, number, title, state: 'open' })) : [] };
  }
  m = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/reviews$/.exec(path);
  if (m) {
    const found = FAKE_PULLS.find(([n]) => n === Number(m![3]));
    if (!found) return notFound();
    return { status: 200, body: found[2].map((state, i) => ({ ...ex.review, id: found[0] * 100 + i, state })) };
  }
  m = /^\/users\/([^/]+)\/repos$/.exec(path);
  if (m) {
    const owner = m[1]!;
    return {
      status: 200,
      body: FAKE_REPOS.map(([name, stars, language], i) => ({ ...ex.repo, id: 9000 + i, name, full_name: `${owner}/${name}`, stargazers_count: stars, watchers_count: stars, language })),
    };
  }
  if (/^\/users\/[^/]+$/.test(path)) return { status: 200, body: ex.user };
  return undefined;
}

function notFound(): { status: number; body: unknown } {
  return { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' } };
}
