// Discovery search on real queries against the GitHub catalogue (the committed one, with its search index): the
// expected tool is in the top 3. The broader measure is npm run eval:search (test/search-eval/).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import { queryClauses, titlePhrase } from '../../src/discovery/head-nouns.ts';
import { searchTools, stem } from '../../src/discovery/search.ts';

const loaded = loadCatalogue(readFileSync(new URL('../../catalog/catalog.txt', import.meta.url), 'utf8'));
const all = sliceOf(loaded, {});

// [query, expected tool (by name, or by title for names that carry a hash suffix)]
const QUERIES: Array<[string, { name?: string; title?: string }]> = [
  ['list open pull requests', { name: 'pulls_list' }],
  ['create an issue comment', { name: 'issues_create_comment' }],
  ['merge a pull request', { name: 'pulls_merge' }],
  ['get the contents of a file', { name: 'repos_get_content' }],
  ['create a new repository', { name: 'repos_create_for_authenticated_user' }],
  ['list workflow runs', { name: 'actions_list_workflow_runs_for_repo' }],
  ['star a repository', { title: 'Star a repository for the authenticated user' }],
  ['search code', { name: 'search_code' }],
  ['list branches', { name: 'repos_list_branches' }],
  ['create a release', { name: 'repos_create_release' }],
  ['add labels to an issue', { name: 'issues_add_labels' }],
  ['request reviewers for a pull request', { name: 'pulls_request_reviewers' }],
  ['get the authenticated user', { name: 'users_get_authenticated' }],
  ['create a gist', { name: 'gists_create' }],
  ['list commits', { name: 'repos_list_commits' }],
  ['fork a repository', { name: 'repos_create_fork' }],
  ['rerun a failed workflow job', { name: 'actions_re_run_job_for_workflow_run' }],
  ['list notifications', { title: 'List notifications for the authenticated user' }],
  ['close an issue', { name: 'issues_update' }],
  ['list repository secrets for actions', { name: 'actions_list_repo_secrets' }],
  ['get the files changed in a pull request', { name: 'pulls_list_files' }],
  ['list members of an organization', { name: 'orgs_list_members' }],
  ['delete a repository', { name: 'repos_delete' }],
  ['update a file in a repository', { name: 'repos_create_or_update_file_contents' }],
  ['list my repositories', { name: 'repos_list_for_authenticated_user' }],
  ['get the latest release', { name: 'repos_get_latest_release' }],
  ['trigger a workflow', { name: 'actions_create_workflow_dispatch' }],
  ['read a file from a repo', { name: 'repos_get_content' }],
  ['get rate limit', { name: 'rate_limit_get' }],
  ['list open issues with a label', { name: 'issues_list_for_repo' }],
  ['who is on this team', { name: 'teams_list_members_in_org' }],
  ['notify my server whenever someone pushes to the repo', { name: 'repos_create_webhook' }],
];

// Queries asking for several things: each thing's operation is among the first five results (clauses take turns;
// five is code mode's default answer).
const COMPOUND: Array<[string, string[]]> = [
  ['list issues with a label and their comments', ['issues_list_for_repo', 'issues_list_comments']],
  ['list open pull requests and their reviews', ['pulls_list', 'pulls_list_reviews']],
  ['get a user and their repositories', ['users_get_by_username', 'repos_list_for_user']],
];

describe('search quality (GitHub catalogue)', () => {
  for (const [query, want] of QUERIES) {
    it(`"${query}" → ${want.name ?? want.title} in the top 3`, () => {
      const byTitle = loaded.names().find((_, i) => loaded.title(i) === want.title);
      const expected = want.name ?? byTitle;
      expect(expected && loaded.byName.has(expected), `expected tool exists: ${JSON.stringify(want)}`).toBe(true);
      const top = searchTools(loaded, all, query, { limit: 3 }).map((h) => h.name);
      expect(top).toContain(expected);
    });
  }

  for (const [query, want] of COMPOUND) {
    it(`"${query}" → ${want.join(' and ')} in the first five`, () => {
      const top = searchTools(loaded, all, query, { limit: 5 }).map((h) => h.name);
      for (const w of want) expect(top).toContain(w);
    });
  }

  it('a toolset filter keeps only that toolset', () => {
    const hits = searchTools(loaded, all, 'list', { toolset: 'gists', limit: 25 });
    expect(hits.length).toBeGreaterThan(3);
    for (const h of hits) expect(loaded.byName.get(h.name)!.toolsets).toContain('gists');
  });

  it('never answers with nothing while the slice has tools', () => {
    // Words the catalogue does not know, a typo, only function words, a question word alone.
    for (const query of ['xyzzy plugh', 'repositries', 'who am I', 'what is this', 'the', 'how many']) {
      expect(searchTools(loaded, all, query).length, query).toBeGreaterThan(0);
    }
    // A typo still finds the operations its word was meant for.
    expect(searchTools(loaded, all, 'list repositries', { limit: 5 }).some((h) => h.name.startsWith('repos_list'))).toBe(true);
    const gists = sliceOf(loaded, { toolsets: ['gists'] });
    for (const h of searchTools(loaded, gists, 'xyzzy plugh', { limit: 25 })) expect(loaded.byName.get(h.name)!.toolsets).toContain('gists');
    expect(searchTools(loaded, gists, 'xyzzy plugh').length).toBeGreaterThan(0);
  });

  it('a verb of no class asks to do something, never to delete', () => {
    expect(searchTools(loaded, all, 'subscribe to a repository')[0]!.name).toBe('activity_set_repo_subscription');
    for (const query of ['share a gist', 'favorite a repo']) {
      const top = searchTools(loaded, all, query, { limit: 2 }).map((h) => loaded.byName.get(h.name)!.http.method);
      expect(top, query).not.toContain('DELETE');
    }
  });

  it("words after 'about' or 'titled' say what the new thing holds, not which tool", () => {
    const top = searchTools(loaded, all, 'open an issue titled workflow runs are slow', { limit: 3 }).map((h) => h.name);
    expect(top[0]).toBe('issues_create');
    for (const name of top) expect(name).toMatch(/^issues_/);
    // Before the thing is named, "about" is no content marker.
    expect(searchTools(loaded, all, 'tell me about this repository').length).toBeGreaterThan(0);
  });

  it("a tool's own name finds it first", () => {
    expect(searchTools(loaded, all, 'issues_list_comments')[0]!.name).toBe('issues_list_comments');
    expect(searchTools(loaded, all, ' pulls_merge ')[0]!.name).toBe('pulls_merge');
  });

  it('hits carry a one-line summary', () => {
    const [hit] = searchTools(loaded, all, 'list open pull requests');
    expect(hit!.summary.length).toBeGreaterThan(10);
    expect(hit!.summary.length).toBeLessThanOrEqual(161);
    expect(hit!.summary).not.toContain('\n');
  });

  it('stems plurals, verb forms and agent nouns alike (Porter)', () => {
    expect(stem('requests')).toBe(stem('request'));
    expect(stem('repositories')).toBe(stem('repository'));
    expect(stem('branches')).toBe(stem('branch'));
    expect(stem('starred')).toBe(stem('star'));
    expect(stem('reviewers')).toBe(stem('review'));
    expect(stem('reminders')).toBe(stem('remind'));
  });

  it('reads what a title acts on and what each clause of a query asks for', () => {
    const verbs = new Set(['list', 'get', 'show', 'create', 'add', 'remove']);
    expect(titlePhrase('List labels for an issue', verbs)).toEqual({ verb: 'list', head: 'labels' });
    expect(titlePhrase('List repository issues', verbs)).toEqual({ verb: 'list', head: 'issues' });
    expect(titlePhrase('List GitHub-hosted runners for an organization', verbs)).toEqual({ verb: 'list', head: 'runners' });
    expect(titlePhrase('Pets', verbs)).toEqual({ head: 'pets' });
    expect(queryClauses('list issues with a label and their comments', verbs)).toEqual([
      { text: 'list issues with a label and their comments'.split(' and ')[0], verb: 'list', head: 'issues' },
      { text: 'list their comments', verb: 'list', head: 'comments', context: 'issues' },
    ]);
    expect(queryClauses('show me the issues labelled bug', verbs)).toEqual([{ text: 'show me the issues labelled bug', verb: 'show', head: 'issues' }]);
    // A clause naming nothing keeps the query whole.
    expect(queryClauses('add and remove labels', verbs)).toEqual([{ text: 'add and remove labels', verb: 'add', also: 'remove', head: 'labels' }]);
    // A request's first word is its verb before a preposition or a count, and when the verb classes know it.
    expect(queryClauses('comment on a pull request', verbs)[0]).toEqual({ text: 'comment on a pull request', verb: 'comment' });
    expect(queryClauses('log two hours of work on an issue', verbs)[0]).toMatchObject({ verb: 'log' });
    expect(queryClauses('book an appointment', verbs)[0]).toMatchObject({ verb: 'book', head: 'appointment' });
    // A question word never makes the next word a verb; auxiliaries and pronouns end the noun phrase.
    expect(queryClauses('what files are in a deployment', verbs)[0]).toEqual({ text: 'what files are in a deployment', head: 'files' });
    expect(queryClauses('release a phone number I no longer need', verbs)[0]).toMatchObject({ verb: 'release', head: 'number' });
    // "like" leads a request only before "to".
    expect(queryClauses('like a video', verbs)[0]).toMatchObject({ verb: 'like', head: 'video' });
    expect(queryClauses('I would like to list my gists', verbs)[0]).toMatchObject({ verb: 'list', head: 'gists' });
  });
});
