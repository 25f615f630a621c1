// No result the server writes is over its token budget, whatever the script: a list, one huge object, a schema-less
// JSON body, text/plain and an error, all in Chinese, Japanese and Korean mixed with Russian, Arabic and emoji
// (test/support/script-routes.ts), through the real app and both strict clients in both protocol eras, plus a
// discovery answer. What each client received is counted with the real o200k tokenizer (the loopback upstream's
// POST /__tokens), not with the estimate that fitted it (src/lib/tokens.ts).
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { Catalogue, CatalogueTool } from '../../src/catalogue/types.ts';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { CLIENTS, harness, KEY, upstreamUrl, type CallResult } from './fixtures/results.ts';

const annotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
const get = (name: string, path: string, extra: Partial<CatalogueTool> = {}): CatalogueTool => ({
  name,
  title: name,
  description: `GET ${path}`,
  inputSchema: { type: 'object', properties: {} },
  annotations: { title: name, ...annotations },
  toolsets: ['scripts'],
  http: { method: 'GET', path, params: [], accept: ['application/json'] },
  ...extra,
});
const object = { type: 'object' as const };
const TOOLS: CatalogueTool[] = [
  get('issues_list', '/scripts/issues', {
    outputWrapped: true,
    outputSchema: { type: 'object', properties: { result: { type: 'array', items: object } }, required: ['result'] },
    result: { fields: '_fields', items: 'result' },
  }),
  get('issue_get', '/scripts/issue', { outputSchema: { type: 'object', properties: { id: { type: 'integer' }, body: { type: 'string' } } }, result: { fields: '_fields' } }),
  get('issue_get_raw', '/scripts/issue'),
  get('notes_get', '/scripts/notes.txt', { http: { method: 'GET', path: '/scripts/notes.txt', params: [], accept: ['text/plain'] } }),
  get('update_fails', '/scripts/error'),
  // A tool whose own description (in the spec's language) is far over the budget: describe_tool must still fit.
  get('huge_doc', '/scripts/issue', { description: (await (await fetch(`${upstreamUrl}/scripts/notes.txt`)).text()).slice(0, 60_000) }),
];
const catalogue: Catalogue = {
  format: 2,
  source: { title: 'Scripts API', version: '1.0.0', spec: 'scripts', openapi: '3.0.3' },
  defaultUpstream: upstreamUrl,
  toolsets: { scripts: { description: 'Results in many scripts' } },
  tools: TOOLS,
};
const text = await encodeCatalogue(catalogue);
const wide = harness(text, 'scripts', { UPSTREAM_URL: upstreamUrl });
const narrow = harness(text, 'scripts', { UPSTREAM_URL: upstreamUrl, MAX_RESULT_TOKENS: '1000' });
const NAMES = TOOLS.filter((t) => t.name !== 'huge_doc').map((t) => t.name);

/** Real o200k tokens, counted by the loopback upstream in Node. */
async function o200k(text: string): Promise<number> {
  const res = await fetch(`${upstreamUrl}/__tokens`, { method: 'POST', body: text });
  return ((await res.json()) as { tokens: number }).tokens;
}

/** What the model may read of `r` (its text blocks, or its structuredContent instead) is within `budget` real tokens; the texts' count. */
async function within(r: CallResult, budget: number): Promise<number> {
  const texts = await o200k(r.content.map((b) => b.text ?? '').join('\n'));
  expect(texts).toBeLessThanOrEqual(budget);
  if (r.structuredContent) expect(await o200k(JSON.stringify(r.structuredContent))).toBeLessThanOrEqual(budget);
  return texts;
}

const textOf = (r: CallResult) => r.content.map((b) => b.text ?? '').join('\n');

describe.each(CLIENTS)('results in CJK and mixed scripts stay within the token budget, %s', (kind) => {
  it('a list: whole items up to the budget, with the note (and again on the fast path)', async () => {
    const c = await wide.connect(kind, NAMES);
    for (let i = 0; i < 2; i++) {
      const r = await c.call('issues_list', {});
      expect(r.isError).toBeFalsy();
      const shown = (r.structuredContent!.result as unknown[]).length;
      expect(shown).toBeGreaterThan(5);
      expect(shown).toBeLessThan(200);
      expect(String(r.structuredContent!.truncated)).toMatch(new RegExp(`^Showing ${shown} of 200 items`));
      // Within the budget, and not needlessly far under it.
      expect(await within(r, 25_000)).toBeGreaterThan(15_000);
    }
    await c.close();
  });

  it('one huge object, with and without an outputSchema, text/plain, and an error', async () => {
    const c = await wide.connect(kind, NAMES);
    const one = await c.call('issue_get', {});
    expect(one.isError).toBeFalsy();
    expect(String(one.structuredContent!.truncated)).toMatch(/^Result shortened to fit the ~25000-token budget/);
    expect(await within(one, 25_000)).toBeGreaterThan(15_000);
    const raw = await c.call('issue_get_raw', {});
    expect(raw.isError).toBeFalsy();
    expect(await within(raw, 25_000)).toBeGreaterThan(15_000);
    const notes = await c.call('notes_get', {});
    expect(notes.isError).toBeFalsy();
    expect(textOf(notes)).toMatch(/Text shortened to fit the ~25000-token budget \(150000 characters in full, text\/plain\)/);
    expect(await within(notes, 25_000)).toBeGreaterThan(15_000);
    const failed = await c.call('update_fails', {});
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toMatch(/HTTP 422/);
    await within(failed, 25_000);
    await c.close();
  });

  it('under MAX_RESULT_TOKENS=1000: the error text is cut to it with a note, and every other result fits too', async () => {
    const c = await narrow.connect(kind, NAMES);
    const failed = await c.call('update_fails', {});
    expect(failed.isError).toBe(true);
    // The upstream's message keeps its first 2,000 characters (src/upstream/errors.ts): in CJK, over 1,000 tokens.
    expect(textOf(failed)).toMatch(/characters cut: the text was over the 1,000-token result budget\)$/);
    await within(failed, 1_000);
    for (const name of ['issues_list', 'issue_get', 'issue_get_raw', 'notes_get']) {
      const r = await c.call(name, {});
      expect(r.isError, name).toBeFalsy();
      await within(r, 1_000);
    }
    await c.close();
  });
});

describe('meta-tool answers stay within the token budget', () => {
  it('describe_tool of a tool whose description alone is over it', async () => {
    const c = new ClientV2({ name: 'tokens-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await c.connect(new TransportV2(new URL('http://127.0.0.1:8787/mcp/discover'), { fetch: wide.fetch, requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }));
    await c.listTools();
    const r = (await c.callTool({ name: 'describe_tool', arguments: { name: 'huge_doc' } })) as CallResult;
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ name: 'huge_doc', inputSchema: { type: 'object' } });
    expect(String(r.structuredContent!.description)).toMatch(/characters cut\]$/);
    expect(textOf(r)).toMatch(/Result shortened to fit the ~25000-token budget/);
    await within(r, 25_000);
    await c.close();
  });
});
