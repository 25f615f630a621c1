// What a key may do through code mode, with the v1 and v2 clients: its scope and read-only flag hold for every api
// call, each api call counts against its rate limit, and neither the key nor the upstream credential ever enters
// the sandbox (the test records everything the sandbox is given and everything it can reach, and greps it). Its api
// calls are metered like tool calls, a refused one as rate_limited.
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { env as bindings } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { readUsage } from '../../src/usage/read.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';
import { CLIENTS, codeEnv, connect, fetcherFor, freshOwner, github, makeKey, ORIGIN, textOf, upstreamRequests, upstreamUrl } from './fixtures/codemode-endpoint.ts';
import { freshUsageDb } from './fixtures/usage-db.ts';

describe('code mode: the key decides what api calls may do', () => {
  for (const kind of CLIENTS) {
    it(`${kind}: a tool outside the key's scope is refused inside the program`, async () => {
      const owner = freshOwner();
      const key = await makeKey({ toolsets: ['issues'] });
      const client = await connect(kind, { key });
      const outside = await client.execute(`return await api.repos_get({ owner: "${owner}", repo: "hello" });`);
      expect(outside.isError).toBe(true);
      expect(textOf(outside)).toBe(
        'api.repos_get failed at line 1 and the program did not catch the error:\n' +
          "api.repos_get is not available with this key: its scope is toolsets issues. Use search to find the operations you can call. A wider scope needs another key from the API's operator." +
          `\n  1 | return await api.repos_get({ owner: "${owner}", repo: "hello" });`,
      );
      const unknown = await client.execute('try { await api.no_such_tool({}); } catch (e) { return e.message; }');
      expect(JSON.parse(textOf(unknown))).toBe('Unknown tool: no_such_tool. Use search to find the operations you can call.');
      // In scope: served.
      const inside = await client.execute(`return (await api.issues_get({ owner: "${owner}", repo: "hello", issue_number: 2 })).title;`);
      expect(textOf(inside)).toBe('"Add dark mode"');
      expect((await upstreamRequests(owner)).map((r) => r.path)).toEqual([`/repos/${owner}/hello/issues/2`]);
      await client.close();
    });

    it(`${kind}: a write through a read-only key is refused before it reaches the upstream`, async () => {
      const owner = freshOwner();
      const key = await makeKey({ readOnly: true });
      const client = await connect(kind, { key });
      const write = await client.execute(`const created = await api.issues_create({ owner: "${owner}", repo: "hello", title: "x" });\nreturn created.number;`);
      expect(write.isError).toBe(true);
      expect(textOf(write)).toMatch(/^api\.issues_create failed at line 1 and the program did not catch the error:\napi\.issues_create changes data, and this key is read-only \(its scope: every tool, read-only\)/);
      const read = await client.execute(`return (await api.issues_list_for_repo({ owner: "${owner}", repo: "hello" })).length;`);
      expect(textOf(read)).toBe('5');
      expect((await upstreamRequests(owner)).map((r) => `${r.method} ${r.path}`)).toEqual([`GET /repos/${owner}/hello/issues`]);
      await client.close();
      // ?readonly=1 on the URL does the same for a full key.
      const url = await connect(kind, { url: `${ORIGIN}/mcp/code?readonly=1` });
      expect(textOf(await url.execute(`try { await api.issues_create({ owner: "${owner}", repo: "hello", title: "x" }); } catch (e) { return e.message; }`))).toMatch(/changes data, and this endpoint is read-only/);
      await url.close();
    });
  }

  it('each api call counts against the key rate limit; the execute that goes over fails, then HTTP answers 429', async () => {
    const owner = freshOwner();
    const key = await makeKey({ rate: { limit: 6, period: 'minute' } });
    const post = (body: unknown) =>
      fetcherFor(codeEnv())(`${ORIGIN}/mcp/code`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify(body),
      });
    const execute = (code: string) => post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'execute', arguments: { code } } });
    const resultOf = async (res: Response) => {
      const text = await res.text();
      return (JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text) as { result: { isError?: boolean; content: Array<{ text: string }> } }).result;
    };
    const call = (n: number | string) => `api.issues_get({ owner: "${owner}", repo: "hello", issue_number: ${n} })`;
    // Request 1 plus 2 calls: 3 of 6.
    const first = await resultOf(await execute(`await ${call(1)};\nreturn (await ${call(2)}).number;`));
    expect(first.isError).toBeFalsy();
    // Request 4 plus calls 5 and 6 pass; the third call is the 7th request: refused, and the whole execute fails.
    const over = await resultOf(await execute(`const got = [];\nfor (const n of [1, 2, 3, 5]) {\n  try { got.push((await ${call('n')}).number); } catch {}\n}\nreturn got;`));
    expect(over.isError).toBe(true);
    expect(over.content[0]!.text).toMatch(/^Rate limit: this key allows 6 requests per minute, and each api call counts as one\. Retry after \d+ s\. Stopped at line 3\./);
    expect(await upstreamRequests(owner)).toHaveLength(4);
    const refused = await execute('return 1');
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: 'rate_limited' });
  });
});

describe('code mode: arguments are the catalogue\'s own, whatever the client profile', () => {
  it('under the openai profile a null in a program is a value (it clears a field), not the strict form\'s "absent"', async () => {
    const owner = freshOwner();
    const client = await connect('v2 2026-07-28', { url: `${ORIGIN}/mcp/code?client=openai` });
    await client.execute(`try { await api.issues_update({ owner: "${owner}", repo: "hello", issue_number: 1, milestone: null, title: "t" }); } catch {}\nreturn 1;`);
    await client.close();
    const seen = (await (await fetch(`${upstreamUrl}/__last?path=${encodeURIComponent(`/repos/${owner}/hello/issues/1`)}`)).json()) as { method: string; body: string };
    expect(seen.method).toBe('PATCH');
    expect(JSON.parse(seen.body)).toEqual({ milestone: null, title: 't' });
  });
});

describe('code mode: usage metering', () => {
  it('meters each api call as a tool call, and one the rate limit refuses as rate_limited for its tool', async () => {
    const db = await freshUsageDb();
    const owner = freshOwner();
    const key = await makeKey({ rate: { limit: 2, period: 'minute' } });
    const ctx = createExecutionContext();
    const code = [1, 2].map((n) => `await api.issues_get({ owner: "${owner}", repo: "hello", issue_number: ${n} });`).join('\n');
    const res = await github.fetch(
      new Request(`${ORIGIN}/mcp/code`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'execute', arguments: { code } } }),
      }),
      codeEnv({ USAGE: db, USAGE_FLUSH_MS: '0' }),
      ctx,
    );
    // The HTTP request and the first api call use the key's 2 requests; the second api call is refused.
    expect(await res.text()).toMatch(/Rate limit: this key allows 2 requests per minute/);
    await waitOnExecutionContext(ctx);
    const rows = (await readUsage(db, { since: '1h' })).rows.filter((l) => l.tool === 'issues_get');
    expect(rows).toEqual([expect.objectContaining({ calls: 1, ok: 1, rateLimited: 1 })]);
  });
});

describe('code mode: secrets never enter the sandbox', () => {
  it('gateway mode: the upstream gets the credential, the sandbox sees neither it nor the key', async () => {
    const SERVICE_TOKEN = `svc-${crypto.randomUUID()}`;
    const key = await makeKey();
    const keyHash = [...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(key)))].map((b) => b.toString(16).padStart(2, '0')).join('');
    // Everything handed to the sandbox: the worker definition (modules, env, limits) and the run() arguments.
    const given: string[] = [];
    const real = bindings.LOADER;
    const recording = {
      load(config: WorkerLoaderWorkerCode) {
        given.push(JSON.stringify(config, (k, v) => (k === 'env' ? { keys: Object.keys(v as object), values: Object.values(v as object).map((x) => String(x)) } : v)));
        const worker = real.load(config);
        return {
          getEntrypoint(name?: string) {
            const entry = worker.getEntrypoint(name) as unknown as { run(limits: unknown): Promise<unknown> };
            return { run: (limits: unknown) => (given.push(JSON.stringify(limits)), entry.run(limits)) };
          },
        };
      },
      get: real.get.bind(real),
    } as unknown as WorkerLoader;
    const env = codeEnv({ CREDENTIAL_MODE: 'gateway', UPSTREAM_TOKEN: SERVICE_TOKEN, LOADER: recording });
    const app = createApp(loadCatalogue(await encodeCatalogue(fixtureCatalogue())));
    const logs: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void logs.push(args.map(String).join(' ')));
    try {
      const client = await connect('v2 2026-07-28', { key, env, app });
      // The upstream echoes the request it received, credential included; the program also dumps what it can reach.
      const id = `sec-${crypto.randomUUID().slice(0, 8)}`;
      const result = await client.execute(
        `const echoed = await api.echo_get({ id: "${id}" });\n` +
          'const seen = {};\n' +
          'for (const k of Object.getOwnPropertyNames(globalThis)) { try { const v = globalThis[k]; seen[k] = typeof v === "function" ? String(v).slice(0, 200) : JSON.stringify(v)?.slice(0, 2000) ?? String(v); } catch (e) { seen[k] = "!" + e.message; } }\n' +
          'let failure = "";\ntry { await api.echo_get({ limit: 1 }); } catch (e) { failure = e.message; }\n' +
          'console.log(JSON.stringify(echoed));\nreturn { echoed, seen, failure, api: Object.getOwnPropertyNames(api) };',
      );
      expect(result.isError, textOf(result)).toBeFalsy();
      const upstream = (await (await fetch(`${upstreamUrl}/__last?path=${encodeURIComponent(`/echo/${id}`)}`)).json()) as { headers: Record<string, string> };
      expect(upstream.headers.authorization).toBe(`Bearer ${SERVICE_TOKEN}`);
      const out = JSON.parse(result.content[0]!.text!) as { echoed: { headers: Record<string, string> }; seen: Record<string, string> };
      expect(out.echoed.headers.authorization).toBe('Bearer [redacted]');
      expect(Object.keys(out.seen).length).toBeGreaterThan(30);
      const visible = [...given, textOf(result)].join('\n');
      expect(given.length).toBe(2);
      expect(given[0]).toContain('"keys":["API"]');
      for (const secret of [SERVICE_TOKEN, key, keyHash, 'mcp_test_codemodeoperator']) expect(visible).not.toContain(secret);
      for (const secret of [SERVICE_TOKEN, key]) expect(logs.join('\n')).not.toContain(secret);
      await client.close();
    } finally {
      spy.mockRestore();
    }
  });
});
