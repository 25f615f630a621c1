// Code mode's sandbox in workerd: programs run in a Dynamic Worker and call back into this Worker's CodeModeApi
// entrypoint over real RPC. The escape attempts and limits are in codemode-escape.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { executeResult } from '../../src/codemode/execute-result.ts';
import { callInRun, closeRun, openRun, openRunCount } from '../../src/codemode/runs.ts';
import { DEFAULT_CODE_LIMITS } from '../../src/limit-defaults.ts';
import { apiEntrypoint, COMMENTS, fakeGitHub, ISSUES, NOT_FOUND, runCode, warmUp } from './fixtures/codemode.ts';

const MULTI_STEP = `// Open bugs and how many comments each has.
const issues: Array<{ number: number; title: string }> = await api.issues_list_for_repo({ owner: 'octo', repo: 'hello', labels: 'bug', state: 'open' });
const counts: Record<number, number> = {};
for (const issue of issues) {
  const comments = await api.issues_list_comments({ owner: 'octo', repo: 'hello', issue_number: issue.number });
  counts[issue.number] = comments.length;
}
console.log(\`checked \${issues.length} issues\`);
return counts;`;

describe('code mode sandbox', () => {
  beforeAll(warmUp, 60_000);

  it('runs a multi-step TypeScript program: several api calls over RPC, console output, the return value', async () => {
    const { call, calls } = fakeGitHub();
    const out = await runCode(MULTI_STEP, { call });
    const bugs = ISSUES.filter((i) => i.state === 'open' && i.labels.includes('bug'));
    const expected = Object.fromEntries(bugs.map((i) => [i.number, COMMENTS[i.number]!.length]));
    expect(out.ok).toBe(true);
    expect(JSON.parse(out.json!)).toEqual(expected);
    expect(out.logs).toBe(`checked ${bugs.length} issues`);
    expect(out.calls).toBe(1 + bugs.length);
    expect(calls).toEqual([
      { name: 'issues_list_for_repo', args: { owner: 'octo', repo: 'hello', labels: 'bug', state: 'open' } },
      ...bugs.map((i) => ({ name: 'issues_list_comments', args: { owner: 'octo', repo: 'hello', issue_number: i.number } })),
    ]);
    expect(executeResult(out, MULTI_STEP)).toEqual({
      content: [
        { type: 'text', text: JSON.stringify(expected) },
        { type: 'text', text: `Console output:\nchecked ${bugs.length} issues` },
      ],
    });
    expect(openRunCount()).toBe(0);
  });

  it('runs api calls concurrently with Promise.all', async () => {
    const { call, calls } = fakeGitHub();
    const out = await runCode('const r = await Promise.all([1, 2, 3].map((n) => api.issues_list_comments({ owner: "o", repo: "r", issue_number: n })));\nreturn r.map((c) => c.length);', { call });
    expect(out.json).toBe('[3,1,0]');
    expect(calls.map((c) => c.args.issue_number).sort()).toEqual([1, 2, 3]);
  });

  it('throws a failed call inside the program with the exact tools/call text, so the program can catch it', async () => {
    const out = await runCode('try {\n  await api.issues_list_comments({ owner: "o", repo: "r", issue_number: 99 });\n} catch (e) {\n  return { name: e.name, tool: e.tool, message: e.message, isError: e instanceof Error };\n}');
    expect(JSON.parse(out.json!)).toEqual({ name: 'ApiError', tool: 'issues_list_comments', message: NOT_FOUND, isError: true });
  });

  it('reports an uncaught failed call as isError with the tool, the line and the tools/call text', async () => {
    const code = 'const a = 1;\nconst c = await api.issues_list_comments({ owner: "o", repo: "r", issue_number: 99 });\nreturn c;';
    const out = await runCode(code);
    expect(out.error).toMatchObject({ kind: 'api', tool: 'issues_list_comments', line: 2, message: NOT_FOUND });
    const result = executeResult(out, code);
    expect(result.isError).toBe(true);
    expect(result.content[0]).toEqual({
      type: 'text',
      text: `api.issues_list_comments failed at line 2 and the program did not catch the error:\n${NOT_FOUND}\n  2 | const c = await api.issues_list_comments({ owner: "o", repo: "r", issue_number: 99 });`,
    });
  });

  it('reports a thrown error with its class, message and line, and keeps the console output before it', async () => {
    const code = 'console.log("before");\nconst issues = await api.issues_list_for_repo({ owner: "o", repo: "r", labels: "nope" });\nreturn issues[0].title;';
    const out = await runCode(code);
    expect(out.error).toMatchObject({ kind: 'error', name: 'TypeError', line: 3 });
    const result = executeResult(out, code);
    expect(result.content).toEqual([
      { type: 'text', text: `TypeError: ${out.error!.message} (line 3)\n  3 | return issues[0].title;` },
      { type: 'text', text: 'Console output before the error:\nbefore' },
    ]);
    const thrown = await runCode('\n\nthrow new RangeError("custom failure");');
    expect(thrown.error).toMatchObject({ kind: 'error', name: 'RangeError', message: 'custom failure', line: 3 });
    const raw = await runCode('throw { code: 7 };');
    expect(raw.error).toMatchObject({ kind: 'error', message: 'Uncaught {"code":7}' });
  });

  it('reports syntax errors with the line, in TypeScript and JavaScript', async () => {
    const code = 'const a: number = 1;\nconst b = (a + ;\nreturn b;';
    const out = await runCode(code);
    expect(out.error).toMatchObject({ kind: 'syntax', line: 2 });
    expect(executeResult(out, code).content[0]).toEqual({ type: 'text', text: `${out.error!.message} (line 2)\n  2 | const b = (a + ;` });
    expect(out.calls).toBe(0);
  });

  it('refuses arguments that are not one object, and names that are not tool names, as catchable errors', async () => {
    const out = await runCode('const errors = [];\nfor (const a of [[1], "x", null, 5]) { try { await api.echo(a); } catch (e) { errors.push(e.message); } }\ntry { await api["bad name!"]({}); } catch (e) { errors.push(e.message); }\nreturn errors;');
    const errors = JSON.parse(out.json!) as string[];
    expect(errors.slice(0, 4)).toEqual(Array(4).fill('The arguments of api.echo must be one object, e.g. api.echo({ ... }).'));
    expect(errors[4]).toBe('api.bad name! is not a tool name. Use search to find tool names.');
    const missing = await runCode('return await api.echo();');
    expect(missing.json).toBe('{}');
    // RPC would carry a function as a stub back into the sandbox; the host accepts JSON data only.
    const fn = await runCode('await api.echo({ list: [1, { f: () => 1 }] });');
    expect(fn.error).toMatchObject({ kind: 'api', tool: 'echo', line: 1 });
    expect(fn.error!.message).toBe('The arguments of api.echo must be JSON data (objects, arrays, strings, numbers, booleans, null): $.list[1].f is a function.');
    const date = await runCode('try { await api.echo({ when: new Date(0), n: 1 }); } catch (e) { return e.message; }');
    expect(JSON.parse(date.json!)).toMatch(/: \$\.when is a Date\.$/);
  });

  it('returns nothing, a note, when the program returns undefined; non-JSON values are errors', async () => {
    const none = await runCode('const x = 1;');
    expect(none).toMatchObject({ ok: true });
    expect(executeResult(none, '').content).toEqual([{ type: 'text', text: 'The program returned nothing (undefined). Return the value you need.' }]);
    const circular = await runCode('const a: any = {};\na.self = a;\nreturn a;');
    expect(circular.error).toMatchObject({ kind: 'error', name: 'TypeError' });
    expect(circular.error!.message).toMatch(/^The return value cannot be sent as JSON: /);
  });

  it('closes the execution: a call through its stub after the end is refused, and nothing leaks', async () => {
    const run = openRun(fakeGitHub().call, { ...DEFAULT_CODE_LIMITS, maxCalls: 5 });
    const stub = apiEntrypoint({ props: { run } }) as unknown as { call(name: string, args: unknown): Promise<unknown> };
    expect(await stub.call('echo', { a: 1 })).toEqual({ ok: true, value: { a: 1 }, size: 7 });
    closeRun(run);
    expect(await stub.call('echo', { a: 1 })).toEqual({ ok: false, error: 'This execute has ended; its api calls are refused.' });
    expect(await callInRun('not-a-run', 'echo', {})).toMatchObject({ ok: false });
    expect(openRunCount()).toBe(0);
  });

  it('counts calls on the host as well: the call after the limit is refused and marks the execution failed', async () => {
    const run = openRun(fakeGitHub().call, { ...DEFAULT_CODE_LIMITS, maxCalls: 1 });
    expect(await callInRun(run, 'echo', {})).toMatchObject({ ok: true });
    expect(await callInRun(run, 'echo', {})).toEqual({ ok: false, limit: true, error: 'Call limit: more than 1 api calls in one execute.' });
    expect(closeRun(run)).toEqual({ calls: 1, limitHit: 'Call limit: more than 1 api calls in one execute.' });
  });

  it('turns a tool caller that throws into a short internal error, not a crash', async () => {
    const out = await runCode('try { await api.echo({}); } catch (e) { return e.message; }', { call: async () => Promise.reject(new Error('secret detail')) });
    expect(out.json).toBe(JSON.stringify('Internal error while calling echo. Try again later.'));
  });
});
