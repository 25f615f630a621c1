// docs/architecture.md's call path is read off a real tools/call, not written from memory: the Worker entry serves
// a plain tools/call (the fast path) and one the SDK answers, and the stack is captured where the upstream is called,
// where the result is validated (by the compiled check or @cfworker) and where the tool_call line is logged. The hop lists in the doc must equal what the
// stacks show, in order, and the result must be validated once (plus the sampled full-schema check).
import { Validator } from '@cfworker/json-schema';
import { createExecutionContext } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import architecture from '../../docs/architecture.md?raw';
import worker from '../../src/index.ts';
import { codeEnv, OPERATOR_KEY } from './fixtures/codemode-endpoint.ts';

/** One hop: a source file and the function in it, as the stack names them. */
type Hop = [file: string, fn: string];

const ORIGIN = 'http://127.0.0.1:8787';
const HEADERS = { authorization: `Bearer ${OPERATOR_KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const call = (id: number, meta?: object) =>
  new Request(`${ORIGIN}/mcp/x/users`, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'users_get_by_username', arguments: { username: `hop${id}` }, ...(meta ? { _meta: meta } : {}) } }),
  });

/** The src/ frames of a stack, caller first, as [file, function] (V8's "Object.call" is the method "call"). */
function hops(stack: string): Hop[] {
  const out: Hop[] = [];
  for (const line of stack.split('\n').reverse()) {
    if (line.includes('/node_modules/')) continue;
    const m = /^\s+at (?:async )?(?:(\S+) \()?\/?[^\s(]*?\/(src\/[\w/.-]+\.ts):\d+:\d+\)?$/.exec(line);
    if (!m) continue;
    const fn = (m[1] ?? '(anonymous)').replace(/^Object\./, '');
    const hop: Hop = [m[2]!, fn];
    if (out.at(-1)?.join() !== hop.join()) out.push(hop);
  }
  return out;
}

/** The numbered hop list between `<!-- hops:<name> -->` and `<!-- /hops -->` in docs/architecture.md. */
function documented(name: string): Hop[] {
  const block = new RegExp(`<!-- hops:${name} -->([\\s\\S]*?)<!-- /hops -->`).exec(architecture)?.[1];
  if (!block) throw new Error(`docs/architecture.md has no <!-- hops:${name} --> block`);
  return [...block.matchAll(/^\d+\. `([^`]+)` `([^`]+)`/gm)].map((m) => [m[1]!, m[2]!]);
}

/** The heading above a block states its size: "N hops", and "in M files" where it says so. */
function headingCounts(name: string): { hops: number; files?: number } {
  const before = architecture.slice(0, architecture.indexOf(`<!-- hops:${name} -->`));
  const heading = before.slice(before.lastIndexOf('\n###'));
  const m = /(\d+) hops?(?: in (\d+) files)?/.exec(heading);
  if (!m) throw new Error(`the heading above <!-- hops:${name} --> does not say how many hops`);
  return { hops: Number(m[1]), ...(m[2] ? { files: Number(m[2]) } : {}) };
}

const listing = (h: Hop[]) => h.map(([file, fn], i) => `${i + 1}. \`${file}\` \`${fn}\``).join('\n');

// The stack where a result is validated: @cfworker's Validator when it is asked, and every check validator.ts
// compiled (src/catalogue/fast-check.ts), which answers first; each records the stack of its caller.
const validations: string[] = [];
vi.mock(import('../../src/catalogue/fast-check.ts'), async (original) => {
  const real = await original();
  return {
    ...real,
    compileCheck: (schema) => {
      const check = real.compileCheck(schema);
      return (
        check &&
        ((value: unknown) => {
          validations.push(new Error('validate').stack ?? '');
          return check(value);
        })
      );
    },
  };
});

afterEach(() => vi.restoreAllMocks());

describe('docs/architecture.md follows a real tools/call', () => {
  it('the way down, the way back and the SDK path are the hops the stacks show; the result is validated once', async () => {
    (Error as unknown as { stackTraceLimit: number }).stackTraceLimit = 200;
    const env = codeEnv();
    const real = globalThis.fetch;
    const down: string[] = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
      if (String(input instanceof Request ? input.url : input).includes('/users/hop')) down.push(new Error('upstream').stack ?? '');
      return real(input as never, init);
    });
    const validate = Validator.prototype.validate;
    vi.spyOn(Validator.prototype, 'validate').mockImplementation(function (this: Validator, value: unknown) {
      validations.push(new Error('validate').stack ?? '');
      return validate.call(this, value);
    });
    const logged: string[] = [];
    const log = console.log;
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
      if (String(line).includes('"event":"tool_call"')) logged.push(new Error('log').stack ?? '');
      log(line);
    });
    const serve = async (request: Request) => (await worker.fetch(request, env, createExecutionContext())).text();

    // The first call of a tool is the SDK's (it proves the fast path's bytes); the next ones are the fast path's.
    for (let i = 1; i <= 3; i++) expect(await serve(call(i))).toContain('"structuredContent"');
    const before = validations.length;
    expect(await serve(call(4))).toContain('"structuredContent"');
    // One call, neither the first of the tool nor a sampled one: its arguments and its result, one validation each.
    expect(validations.length - before).toBe(2);
    // A request with _meta (a progress token) is always the SDK's.
    expect(await serve(call(5, { progressToken: 1 }))).toContain('"structuredContent"');

    const fast = hops(down[3]!);
    const viaSdk = hops(down[4]!);
    const result = hops(validations.at(-1)!);
    const after = hops(logged[3]!);
    const checks: Array<[string, Hop[]]> = [
      ['way-down', fast],
      ['sdk', viaSdk.slice(0, viaSdk.findIndex(([f]) => f === 'src/tools/surface.ts'))],
      ['way-back', [...result.slice(result.findIndex(([, fn]) => fn === 'execute')), ...after.slice(after.findIndex(([, fn]) => fn === 'callTool') + 1)]],
    ];
    for (const [name, found] of checks) {
      expect(documented(name), `docs/architecture.md <!-- hops:${name} --> should be:\n${listing(found)}\n`).toEqual(found);
      const counts = headingCounts(name);
      expect(counts.hops, `the heading above <!-- hops:${name} -->`).toBe(found.length);
      if (counts.files !== undefined) expect(counts.files, `the heading above <!-- hops:${name} -->`).toBe(new Set(found.map(([file]) => file)).size);
    }
  });
});
