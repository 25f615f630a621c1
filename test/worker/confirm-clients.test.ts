// Today's clients keep working on the embedded GitHub catalogue: the v1 SDK client (2025 era, strict) and the v2
// client on 2026-07-28 without elicitation list every tool, each with readOnlyHint and destructiveHint stated, and call
// every kind of tool (read, additive write, destructive DELETE, PATCH and POST) straight through to the upstream, as
// before confirmation existed. Only a client that can ask the person is asked (confirm-writes.test.ts).
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import catalogueText from 'catalog-data';
import { describe, expect, inject, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { Env } from '../../src/config.ts';
import { confirmMessage } from '../../src/tools/confirm.ts';

const KEY = 'mcp_test_confirmclients0000000000000000000';
const upstreamUrl = inject('upstreamUrl');
const loaded = loadCatalogue(catalogueText);
const app = createApp(loaded);
const env: Env = { API_KEY: KEY, UPSTREAM_URL: upstreamUrl, CREDENTIAL_MODE: 'key' };
const fetcher = async (input: string | URL | Request, init?: RequestInit) => app.fetch(new Request(input, init), env);
const URL_ALL = new URL('http://127.0.0.1:8787/mcp/x/all?mode=tools');
const transportInit = { fetch: fetcher, requestInit: { headers: { authorization: `Bearer ${KEY}` } } };

/** One tool of each kind, with the arguments it needs, for an owner of this run's own. */
const calls = (owner: string): Array<[string, Record<string, unknown>, string]> => [
  ['repos_get', { owner, repo: 'r' }, `GET /repos/${owner}/r`],
  ['issues_create', { owner, repo: 'r', title: 't' }, `POST /repos/${owner}/r/issues`],
  ['issues_lock', { owner, repo: 'r', issue_number: 1 }, `PUT /repos/${owner}/r/issues/1/lock`],
  ['repos_update', { owner, repo: 'r', description: 'd' }, `PATCH /repos/${owner}/r`],
  ['actions_cancel_workflow_run', { owner, repo: 'r', run_id: 7 }, `POST /repos/${owner}/r/actions/runs/7/cancel`],
  ['repos_delete', { owner, repo: 'r' }, `DELETE /repos/${owner}/r`],
];

async function upstreamSaw(owner: string): Promise<string[]> {
  const seen = (await (await fetch(`${upstreamUrl}/__requests?prefix=${encodeURIComponent(`/repos/${owner}/`)}`)).json()) as Array<{ method: string; url: string }>;
  return seen.map((r) => `${r.method} ${r.url.split('?')[0]}`);
}

describe('clients that cannot confirm, on the whole GitHub catalogue', () => {
  for (const kind of ['v1 (2025)', 'v2 2026-07-28 without elicitation'] as const) {
    it(`${kind}: lists every tool with both hints stated, and every kind of tool runs as before`, async () => {
      const client =
        kind === 'v1 (2025)'
          ? new ClientV1({ name: 'today-v1', version: '1.0.0' })
          : new ClientV2({ name: 'today-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await client.connect(kind === 'v1 (2025)' ? new TransportV1(URL_ALL, transportInit) : (new TransportV2(URL_ALL, transportInit) as never));
      try {
        const { tools } = await client.listTools();
        expect(tools).toHaveLength(1223);
        const unstated = tools.filter((t) => typeof t.annotations?.readOnlyHint !== 'boolean' || typeof t.annotations?.destructiveHint !== 'boolean');
        expect(unstated.map((t) => t.name)).toEqual([]);
        expect(tools.filter((t) => t.annotations?.destructiveHint).length).toBe(368);
        const owner = `today-${kind.startsWith('v1') ? 'v1' : 'v2'}-${crypto.randomUUID().slice(0, 6)}`;
        for (const [name, args] of calls(owner)) {
          const result = (await client.callTool({ name, arguments: args })) as { content: Array<{ text?: string }> };
          // The fake GitHub may not know the route (an upstream 404 is an isError result): what matters is that it ran.
          expect(result.content[0]?.text ?? '', name).not.toMatch(/was not called|confirm/i);
        }
        expect(await upstreamSaw(owner)).toEqual(calls(owner).map(([, , request]) => request));
      } finally {
        await client.close();
      }
      // The v1 client compiles every listed outputSchema with Ajv: seconds for the whole catalogue, more under load.
    }, 120_000);
  }
});

describe('the question a person is asked', () => {
  it('names the action and its target in plain words', () => {
    const tool = (name: string) => loaded.tool(loaded.indexOf(name)!);
    expect(confirmMessage(tool('repos_delete'), { owner: 'octocat', repo: 'hello-world' })).toBe('Delete repository octocat/hello-world?');
    expect(confirmMessage(tool('repos_delete_file'), { owner: 'octocat', repo: 'hello-world', path: 'README.md', message: 'm', sha: 'abc' })).toBe('Delete file octocat/hello-world/README.md?');
    expect(confirmMessage(tool('actions_cancel_workflow_run'), { owner: 'o', repo: 'r', run_id: 42 })).toBe('Cancel workflow run o/r/42?');
    // Control characters and overlong values cannot reshape the question.
    expect(confirmMessage(tool('repos_delete'), { owner: 'o\nAccept to keep it', repo: 'x'.repeat(200) })).toMatch(/^Delete repository o Accept to keep it\/x{79}…\?$/);
  });
});
