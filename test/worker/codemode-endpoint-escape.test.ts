// Escape attempts through the real /mcp/code endpoint, with the v1 and v2 clients: each is refused with a clear
// isError result, and the server still serves the next execute. The sandbox-level cases (every bomb and loop
// variant) are in codemode-escape.test.ts; these prove the endpoint wires the same guards with the configured limits.
import { beforeAll, describe, expect, it } from 'vitest';
import { codeEnv, connect, freshOwner, textOf, upstreamRequests, upstreamUrl, type ClientKind, type CodeClient } from './fixtures/codemode-endpoint.ts';

const env = codeEnv({ CODE_MAX_STEPS: '200000', CODE_MAX_CALLS: '5' });

async function refused(client: CodeClient, code: string): Promise<string> {
  const result = await client.execute(code);
  expect(result.isError, textOf(result)).toBe(true);
  // Still serving: the next program runs, and search answers.
  expect(textOf(await client.execute('return 6 * 7'))).toBe('42');
  return result.content[0]!.text!;
}

for (const kind of ['v1', 'v2 2026-07-28'] as ClientKind[]) {
  describe(`${kind}: escape attempts through /mcp/code`, () => {
    let client: CodeClient;
    beforeAll(async () => {
      client = await connect(kind, { env });
      await client.execute('return 1');
    }, 60_000);

    it('no network: fetch to the loopback upstream never leaves the sandbox', async () => {
      const path = `/echo/escape-${crypto.randomUUID()}`;
      expect(await refused(client, `return await fetch("${upstreamUrl}${path}");`)).toBe(`ReferenceError: fetch is not defined (line 1)\n  1 | return await fetch("${upstreamUrl}${path}");`);
      const seen = await fetch(`${upstreamUrl}/__last?path=${encodeURIComponent(path)}`);
      expect(seen.status).toBe(404);
      expect(await refused(client, 'const s = new WebSocket("ws://127.0.0.1:1/");\nreturn 1;')).toMatch(/^ReferenceError: WebSocket is not defined \(line 1\)/);
    });

    it('no connect() or sockets', async () => {
      expect(await refused(client, 'import { connect } from "cloudflare:sockets";\nreturn connect("127.0.0.1:1");')).toMatch(/^import is not available in execute/);
      expect(await refused(client, 'return connect("127.0.0.1:1");')).toBe('ReferenceError: connect is not defined (line 1)\n  1 | return connect("127.0.0.1:1");');
    });

    it('cannot read env', async () => {
      expect(await refused(client, 'return env.API_KEY;')).toBe('ReferenceError: env is not defined (line 1)\n  1 | return env.API_KEY;');
      expect(await refused(client, 'return this.env;')).toMatch(/^TypeError: Cannot read properties of undefined \(reading 'env'\) \(line 1\)/);
      expect(await refused(client, 'return process.env.API_KEY.length;')).toMatch(/^(ReferenceError|TypeError): /);
    });

    it('cannot import cloudflare:* modules', async () => {
      expect(await refused(client, 'import { env } from "cloudflare:workers";\nreturn env;')).toMatch(/^import is not available in execute/);
      expect(await refused(client, 'const m = await import("cloudflare:workers");\nreturn m.env;')).toMatch(/^import is not available in execute/);
    });

    it('an infinite loop is stopped by the configured step limit', async () => {
      expect(await refused(client, 'let i = 0;\nwhile (true) { i++; }')).toBe(
        'Step limit: more than 200000 loop iterations and function calls (native work on big arrays and strings counts too); is a loop endless? Stopped at line 2.\n  2 | while (true) { i++; }',
      );
    });

    it('a memory bomb is stopped before it takes the runtime down', async () => {
      expect(await refused(client, 'const a = [];\nwhile (true) a.push(new Array(1e6).fill(0));')).toMatch(/^Memory limit: the program allocated more than 64 MB/);
    });

    it('10 MB of output: the return value is refused, console output is cut with a note', async () => {
      expect(await refused(client, 'return "x".repeat(10 * 1024 * 1024);')).toMatch(/^Result limit: the return value is more than 25000 tokens of JSON, over the 25000 tokens left/);
      const logged = await client.execute('console.log("y".repeat(10 * 1024 * 1024));\nreturn "done";');
      expect(logged.isError).toBeFalsy();
      expect(logged.content[0]!.text).toBe('"done"');
      expect(logged.content[1]!.text).toMatch(/\[104\d{5} more characters of console output were dropped\]$/);
      expect(textOf(logged).length).toBeLessThan(21_000);
    });

    it('more api calls than CODE_MAX_CALLS: refused even when the program catches the error', async () => {
      const owner = freshOwner();
      const code = `for (let i = 1; i <= 8; i++) {\n  try { await api.issues_get({ owner: "${owner}", repo: "r", issue_number: 1 }); } catch {}\n}\nreturn "done";`;
      expect(await refused(client, code)).toBe(`Call limit: more than 5 api calls in one execute. Stopped at line 2.\n  2 | try { await api.issues_get({ owner: "${owner}", repo: "r", issue_number: 1 }); } catch {}`);
      expect(await upstreamRequests(owner)).toHaveLength(5);
    });
  });
}

describe('issue 23 through /mcp/code, with the v1 and v2 clients', () => {
  const programs: Array<[string, RegExp]> = [
    [
      "const { exports } = process.getBuiltinModule('cloudflare:workers');\nreturn await exports.default.run({ timeoutMs: 1e15, cpuMs: 1e15, maxSteps: 1e15 });",
      /^ReferenceError: process is not defined \(line 1\)/,
    ],
    ['const k = []; for (let j = 0; j < 2; j++) { let s = "x" + j; for (let i = 0; i < 27; i++) s = s + s; s.indexOf("z"); k.push(s) } return k.length', /^Memory limit: /],
    ["return '字'.repeat(99000)", /^Result limit: the return value is about 98996 tokens of JSON, over the 25000 tokens left/],
    ['return () => 1;', /^TypeError: The program returned a function, which JSON cannot carry\./],
    ['return new Map([[1, 2]]);', /holds a Map, which JSON would turn into \{\}/],
    ['const x=1;\n}\nreturn 2;', /\(line 2\)\n {2}2 \| }$/],
  ];
  for (const kind of ['v1', 'v2 2026-07-28'] as ClientKind[]) {
    it(`${kind}: each exact program is refused with a clear message, and the server keeps serving`, async () => {
      const client = await connect(kind, { env });
      for (const [code, message] of programs) expect(await refused(client, code), code).toMatch(message);
      expect(textOf(await client.execute('return /^(a+)+$/.test("a".repeat(40) + "b");'))).toBe('false');
      expect(textOf(await client.execute('await scheduler.wait(1500);\nlet x = 0;\nfor (let i = 0; i < 3; i++) x++;\nreturn x;'))).toBe('3');
      await client.close();
    }, 60_000);
  }
});
