// Result shaping on the embedded GitHub catalogue, through the real worker app and both strict clients in both
// protocol eras, against a loopback upstream that answers with GitHub's own example payloads (docs/results.md).
import catalogueText from 'catalog-data';
import { describe, expect, it } from 'vitest';
import { CLIENTS, harness, jsonText, nextArgs, objects, TOTAL, upstreamSaw, type CallResult } from './fixtures/results.ts';

const gh = harness(catalogueText, 'github');
const tight = harness(catalogueText, 'github', { MAX_RESULT_TOKENS: '3000' });
const raw = harness(catalogueText, 'github', { COMPACT_RESULTS: 'off' });
// A budget under GitHub's default page of compacted pull requests, so a page size is chosen for the caller.
const mid = harness(catalogueText, 'github', { MAX_RESULT_TOKENS: '10000' });
const TOOLS = ['pulls_list', 'issues_list_for_repo', 'repos_get', 'search_issues_and_pull_requests', 'users_list'];
const API = 'https://api.github.com';

const data = (r: CallResult) => {
  expect(r.isError, JSON.stringify(r.content).slice(0, 500)).toBeFalsy();
  return jsonText(r) as Record<string, unknown>;
};
const items = (d: Record<string, unknown>) => d.result as Array<Record<string, unknown>>;
const noteOf = (d: Record<string, unknown>) => String(d.truncated ?? d.note ?? '');

function expectCompacted(v: unknown): void {
  for (const [o] of objects(v)) {
    for (const [k, x] of Object.entries(o)) {
      expect(x, k).not.toBeNull();
      expect(x, k).not.toEqual([]);
      expect(k).not.toBe('node_id'); // the GitHub overrides drop it
      if (typeof x === 'string' && /(^|_)url$|href/.test(k)) {
        expect(x.startsWith(API), `${k}: ${x}`).toBe(false);
        expect(/^https?:\/\/\S*\{/.test(x), `${k}: ${x}`).toBe(false);
      }
    }
  }
}

describe.each(CLIENTS)('GitHub results, %s', (kind) => {
  it('compacts by default, keeps links a person opens, and sizes the page to the budget', async () => {
    const c = await mid.connect(kind, TOOLS);
    const d = data(await c.call('pulls_list', { owner: 'octocat', repo: 'compact' }));
    const tool = gh.loaded.byName.get('pulls_list')!;
    const n = Math.floor((10_000 * 0.9) / tool.result!.paging!.itemTokens!);
    expect(n).toBeGreaterThan(1);
    expect(n).toBeLessThan(30);
    expect((await upstreamSaw('/x/github/repos/octocat/compact/pulls'))?.url).toContain(`per_page=${n}`);
    expect(items(d)).toHaveLength(n);
    expectCompacted(items(d));
    expect(items(d)[0]!.html_url).toMatch(/^https:\/\/github\.com\//);
    expect((items(d)[0]!.user as Record<string, unknown>).login).toBeTruthy();
    expect(noteOf(d)).toContain(`per_page=${n} was chosen`);
    expect(nextArgs(noteOf(d))).toEqual({ per_page: n, page: 2 });

    // "*" is the per-call opt-out: nothing removed (so the page is GitHub's default, cut to whole items).
    const full = data(await c.call('pulls_list', { owner: 'octocat', repo: 'full', _fields: '*' }));
    expect((await upstreamSaw('/x/github/repos/octocat/full/pulls'))?.url).not.toContain('per_page');
    const first = items(full)[0]!;
    expect(first.url).toMatch(new RegExp(`^${API}/`));
    expect(first.node_id).toBeTruthy();
    expect(Object.values(first)).toContain(null);
    expect(JSON.stringify(first).length).toBeGreaterThan(2 * JSON.stringify(items(d)[0]).length);
    expect(items(full).length).toBeLessThan(30);
    expect(noteOf(full)).toMatch(/^Showing \d+ of 30 items/);
    await c.close();
  });

  it('projects every item of a list to the fields asked for, through nested objects and arrays', async () => {
    const c = await gh.connect(kind, TOOLS);
    const d = data(await c.call('pulls_list', { owner: 'octocat', repo: 'projected', _fields: 'number,title,user.login,labels.name' }));
    // A projection keeps items small, so no page size is chosen: GitHub's default page of 30 fits.
    expect((await upstreamSaw('/x/github/repos/octocat/projected/pulls'))?.url).not.toContain('per_page');
    expect(items(d)).toHaveLength(30);
    for (const [i, it] of items(d).entries()) {
      expect(Object.keys(it).sort()).toEqual(['labels', 'number', 'title', 'user']);
      expect(it.number).toBe(i + 1);
      expect(Object.keys(it.user as object)).toEqual(['login']);
      for (const l of it.labels as Array<Record<string, unknown>>) expect(Object.keys(l)).toEqual(['name']);
    }
    expect(d.note ?? d.truncated).toBeUndefined();

    const one = data(await c.call('repos_get', { owner: 'octocat', repo: 'one', _fields: 'full_name,owner.login,url' }));
    // A field named explicitly is kept even when compaction would drop it (url links into the API).
    expect(one).toEqual({ full_name: 'octocat/Hello-World', owner: { login: 'octocat' }, url: `${API}/repos/octocat/Hello-World` });

    const search = data(await c.call('search_issues_and_pull_requests', { q: 'is:open', _fields: 'number,title' }));
    expect(search.total_count).toBe(TOTAL);
    expect(search.incomplete_results).toBe(false);
    for (const it of search.items as Array<Record<string, unknown>>) expect(Object.keys(it).sort()).toEqual(['number', 'title']);
    await c.close();
  });

  it('refuses a path the result does not have, listing the valid fields, before calling the API', async () => {
    const c = await gh.connect(kind, TOOLS);
    const r = await c.call('pulls_list', { owner: 'nobody-called', repo: 'r', _fields: 'number,nope,user.nope' });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    const text = r.content[0]!.text!;
    expect(text).toMatch(/^Invalid arguments for pulls_list: _fields names fields the result does not have: nope, user\.nope\./);
    expect(text).toMatch(/Valid top-level fields of each item: .*\bnumber\b.*\btitle\b/);
    expect(await upstreamSaw('/x/github/repos/nobody-called/r/pulls')).toBeUndefined();
    const bad = await c.call('pulls_list', { owner: 'nobody-called', repo: 'r', _fields: 'user..login' });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]!.text).toContain('"user..login" is not a field path');
    await c.close();
  });

  it('returns whole items that fit and the exact call for the rest, which continues after the last item shown', async () => {
    const c = await tight.connect(kind, TOOLS);
    const whole = await gh.connect(kind, TOOLS);
    const args = { owner: 'octocat', repo: 'paged', per_page: 30 };
    const d = data(await c.call('issues_list_for_repo', args));
    const shown = items(d);
    expect(shown.length).toBeGreaterThan(1);
    expect(shown.length).toBeLessThan(30);
    expect(noteOf(d)).toMatch(new RegExp(`^Showing ${shown.length} of 30 items`));
    expect(JSON.stringify(d).length).toBeLessThanOrEqual(3000 * 4);
    // Whole items: each equals the same item from a call with room for the whole page.
    const reference = items(data(await whole.call('issues_list_for_repo', args)));
    expect(shown).toEqual(reference.slice(0, shown.length));
    const next = nextArgs(noteOf(d));
    expect(next).toEqual({ per_page: shown.length, page: 2 });
    const d2 = data(await c.call('issues_list_for_repo', { ...args, ...next }));
    expect(items(d2)[0]!.number).toBe(shown.length + 1);

    // From page 2, the shown items end on a boundary of the new page size, so the next page starts right after them.
    const p2 = data(await c.call('issues_list_for_repo', { ...args, page: 2 }));
    const k = items(p2).length;
    expect(items(p2)[0]!.number).toBe(31);
    expect(30 % k).toBe(0);
    const p3 = data(await c.call('issues_list_for_repo', { ...args, page: 2, ...nextArgs(noteOf(p2)) }));
    expect(items(p3)[0]!.number).toBe(31 + k);

    // An id cursor (users_list: since) continues after the last id shown.
    const u = data(await c.call('users_list', { per_page: 100 }));
    const users = items(u);
    expect(users.length).toBeLessThan(100);
    const un = nextArgs(noteOf(u));
    expect(un).toEqual({ since: users.at(-1)!.id, per_page: users.length });
    expect(items(data(await c.call('users_list', un)))[0]!.id).toBe(Number(users.at(-1)!.id) + 1);
    await c.close();
    await whole.close();
  });

  it('COMPACT_RESULTS=off sends results uncompacted; projection still applies', async () => {
    const c = await raw.connect(kind, TOOLS);
    const repo = data(await c.call('repos_get', { owner: 'octocat', repo: 'raw' }));
    expect(repo.url).toBe(`${API}/repos/octocat/Hello-World`);
    expect(repo.node_id).toBeTruthy();
    expect((repo.owner as Record<string, unknown>).gravatar_id).toBe('');
    expect(repo.events_url).toBe(`${API}/repos/octocat/Hello-World/events`);
    const slim = data(await c.call('repos_get', { owner: 'octocat', repo: 'raw', _fields: 'name' }));
    expect(slim).toEqual({ name: 'Hello-World' });
    await c.close();
  });
});

describe('the catalogue page', () => {
  it("shows each tool's compaction, projection argument and paging", async () => {
    const detail = async (h: typeof gh, name: string) => (await (await h.fetch(`http://127.0.0.1:8787/catalogue/tools/${name}.json`)).json()) as { result: Record<string, unknown> | null };
    const { result } = await detail(gh, 'pulls_list');
    expect(result).toMatchObject({ projection: '_fields', compaction: 'on', list: 'the result is a list' });
    const drops = (result!.drops as string[]).join('; ');
    expect(drops).toMatch(/links into the API itself \(https:\/\/api\.github\.com\b.*\) or URI templates in .*\bcomments_url\b.*\burl\b/);
    expect(drops).not.toMatch(/\b_links\b/); // objects holding links are not link fields themselves
    expect((result!.drops as string[]).join(' ')).toContain('node_id');
    expect(result!.paging).toMatch(/page number page, page size per_page \(chosen to fit/);
    expect(result!.shortens).toEqual(expect.arrayContaining(['head.repo', 'user']));
    expect((await detail(raw, 'pulls_list')).result).toMatchObject({ compaction: 'off', drops: [], shortens: [] });
    expect((await detail(gh, 'repos_delete')).result).toBeNull(); // no JSON result, no projection argument
    const home = await (await gh.fetch('http://127.0.0.1:8787/')).text();
    expect(home).toContain('JSON results are <b>compacted</b>');
    expect(await (await raw.fetch('http://127.0.0.1:8787/')).text()).toContain('<b>not compacted</b> on this deployment');
  });
});
