// Code mode through the real endpoint in workerd, with the v1 (strict) and v2 clients: the two tools, search answers
// as declarations, and the multi-step task in one execute against the recording loopback GitHub.
// Escape attempts and limits through the endpoint: codemode-endpoint-escape.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { FAKE_ISSUES } from '../../scripts/lib/github-fake-data.ts';
import { openRunCount } from '../../src/codemode/runs.ts';
import { CLIENTS, codeEnv, COMMENTS_PER_BUG, connect, fetcherFor, freshOwner, ORIGIN, OPERATOR_KEY, textOf, upstreamRequests } from './fixtures/codemode-endpoint.ts';

const post = (url: string, env = codeEnv()) =>
  fetcherFor(env)(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${OPERATOR_KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });

describe('code mode endpoint', () => {
  beforeAll(async () => {
    // The first execute imports the compiler and loads this Worker's entry behind the loopback entrypoint.
    const client = await connect('v1');
    await client.execute('return 1');
    await client.close();
  }, 60_000);

  for (const kind of CLIENTS) {
    it(`${kind}: /mcp/code lists search and execute; ?mode=code works on any slice`, async () => {
      const client = await connect(kind);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['search', 'execute']);
      expect(tools.every((t) => t.outputSchema === undefined)).toBe(true);
      expect(tools[1]!.description).toContain('api.<name>(args)');
      expect(client.instructions()).toMatch(/^Code mode for GitHub.*: 1223 operations of its REST API behind two tools/);
      await client.close();
      const sliced = await connect(kind, { url: `${ORIGIN}/mcp/x/issues?mode=code` });
      expect((await sliced.listTools()).tools.map((t) => t.name)).toEqual(['search', 'execute']);
      expect(sliced.instructions()).toMatch(/: 58 operations/);
      await sliced.close();
    });
  }

  it('search answers with declarations of the top operations, shared types once', async () => {
    const client = await connect('v2 2026-07-28');
    const r = await client.call('search', { query: 'list issues with a label and their comments', limit: 4 });
    expect(r.isError).toBeFalsy();
    const text = textOf(r);
    const fns = [...text.matchAll(/^ {2}function (\w+)\(/gm)].map((m) => m[1]);
    expect(fns.slice(0, 2)).toEqual(['issues_list_for_repo', 'issues_list_comments']);
    expect(fns).toHaveLength(4);
    expect(text).toContain('declare namespace api {');
    expect(text).toMatch(/type IssuesListForRepoArgs = \{[^}]*labels\?: string/);
    const interfaces = [...text.matchAll(/^interface (\w+) /gm)].map((m) => m[1]!);
    expect(interfaces.length).toBeGreaterThan(2);
    expect(new Set(interfaces).size).toBe(interfaces.length);
    // The slice decides what search can find.
    const issuesOnly = await connect('v1', { url: `${ORIGIN}/mcp/x/issues?mode=code` });
    const repos = textOf(await issuesOnly.call('search', { query: 'get a repository', limit: 20 }));
    expect(repos).not.toMatch(/function repos_/);
    await issuesOnly.close();
    // Words the catalogue does not know still get operations to look at, never an empty answer.
    const none = await client.call('search', { query: 'xyzzy plugh' });
    expect(none.isError).toBeFalsy();
    expect(textOf(none)).toMatch(/^ {2}function \w+\(/m);
    const bad = await client.call('search', { query: '  ' });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^"query" must be a non-empty string/);
    await client.close();
  });

  for (const kind of CLIENTS) {
    it(`${kind}: one execute lists the open bugs, fetches each one's comments and returns the count per issue`, async () => {
      const owner = freshOwner();
      const client = await connect(kind);
      const result = await client.execute(COMMENTS_PER_BUG(owner));
      expect(result.isError, textOf(result)).toBeFalsy();
      const bugs = FAKE_ISSUES.filter(([, , labels, state]) => state === 'open' && labels.includes('bug'));
      const expected = Object.fromEntries(bugs.map(([n, , , , comments]) => [n, comments]));
      expect(JSON.parse(result.content[0]!.text!)).toEqual(expected);
      expect(result.content[1]).toEqual({ type: 'text', text: `Console output:\nchecked ${bugs.length} issues` });
      expect(result.structuredContent).toBeUndefined();
      const seen = await upstreamRequests(owner);
      expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual([
        `GET /repos/${owner}/hello/issues`,
        ...bugs.map(([n]) => `GET /repos/${owner}/hello/issues/${n}/comments`),
      ]);
      expect(seen[0]!.query).toEqual({ labels: 'bug', state: 'open' });
      // Key mode: the upstream gets no credential of ours.
      expect(seen.every((r) => r.headers.authorization === undefined)).toBe(true);
      expect(openRunCount()).toBe(0);
      await client.close();
    });
  }

  it('a failed api call throws the tools/call text inside the program; uncaught, it names the tool and the line', async () => {
    const owner = freshOwner();
    const client = await connect('v1');
    const caught = await client.execute(`try {\n  await api.issues_list_comments({ owner: "${owner}", repo: "hello", issue_number: 404 });\n} catch (e) {\n  return e.message;\n}`);
    expect(JSON.parse(textOf(caught))).toMatch(/^Upstream error: HTTP 404/);
    const invalid = await client.execute(`return await api.issues_list_comments({ owner: "${owner}", repo: "hello" });`);
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/^api\.issues_list_comments failed at line 1 and the program did not catch the error:\nInvalid arguments for issues_list_comments:\n- .*issue_number/);
    await client.close();
  });

  it('answers 501 when the Worker has no LOADER binding, and 400 for an unknown mode', async () => {
    const noLoader = await post(`${ORIGIN}/mcp/code`, codeEnv({ LOADER: undefined }));
    expect(noLoader.status).toBe(501);
    expect(await noLoader.json()).toMatchObject({ error: 'code_mode_unavailable' });
    expect((await post(`${ORIGIN}/mcp?mode=code`, codeEnv({ LOADER: undefined }))).status).toBe(501);
    const unknown = await post(`${ORIGIN}/mcp?mode=codes`);
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ error: 'unknown_mode', valid: ['tools', 'discover', 'code'] });
    expect((await post(`${ORIGIN}/mcp?mode=tools`)).status).toBe(200);
  });
});
