// Code mode's pure parts: the two tool definitions (and their token cost), the limits read from vars, how a
// tools/call result becomes an api reply inside the sandbox, and the execute result texts.
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { replyFromResult } from '../../src/codemode/api-reply.ts';
import { errorText, executeResult } from '../../src/codemode/execute-result.ts';
import { DEFAULT_CODE_LIMITS, readCodeLimits } from '../../src/limit-defaults.ts';
import { codeModeTools } from '../../src/codemode/tools.ts';

describe('code mode tool definitions', () => {
  const tools = codeModeTools(DEFAULT_CODE_LIMITS);

  it('are search and execute, at most 1,000 tokens together as tools/list serves them', () => {
    expect(tools.map((t) => t.name)).toEqual(['search', 'execute']);
    const tokens = encode(JSON.stringify({ tools })).length;
    console.log(`code mode tool definitions: ${tokens} tokens`);
    expect(tokens).toBeLessThanOrEqual(1_000);
  });

  it('state the configured limits and carry one example', () => {
    const execute = codeModeTools(readCodeLimits({ CODE_MAX_CALLS: '7', CODE_TIMEOUT_MS: '12000', MAX_RESULT_TOKENS: '2000' }))[1]!;
    expect(execute.description).toContain('at most 7 api calls and 12 s per run');
    expect(execute.description).toContain('at most 2000 tokens');
    expect(execute.description.match(/await api\./g)?.length).toBeGreaterThanOrEqual(2);
    expect(execute.inputSchema).toEqual({ type: 'object', properties: { code: { type: 'string', description: 'The function body.' } }, required: ['code'] });
  });
});

describe('code mode limits', () => {
  it('have defaults and read every var; bad values fall back', () => {
    const hostBudgets = { maxArgBytes: 1 << 20, maxInflightArgBytes: 4 << 20, maxParallelCalls: 6, maxExecutesPerKey: 2, maxExecutes: 8 };
    expect(DEFAULT_CODE_LIMITS).toEqual({ timeoutMs: 30_000, cpuMs: 1_000, maxCalls: 50, maxSteps: 5_000_000, memoryBytes: 64 << 20, resultChars: 100_000, logChars: 20_000, maxCodeChars: 100_000, ...hostBudgets });
    const limits = readCodeLimits({ CODE_TIMEOUT_MS: '5000', CODE_CPU_MS: '50', CODE_MAX_CALLS: '3', CODE_MAX_STEPS: '1000', CODE_MEMORY_MB: '8', CODE_MAX_LOG_TOKENS: '100', CODE_MAX_CODE_CHARS: '500', MAX_RESULT_TOKENS: '1000' });
    expect(limits).toEqual({ timeoutMs: 5000, cpuMs: 50, maxCalls: 3, maxSteps: 1000, memoryBytes: 8 << 20, resultChars: 4000, logChars: 400, maxCodeChars: 500, ...hostBudgets });
    const host = readCodeLimits({ CODE_MAX_ARG_BYTES: '2000', CODE_MAX_INFLIGHT_ARG_BYTES: '5000', CODE_MAX_PARALLEL_CALLS: '2', CODE_MAX_EXECUTES_PER_KEY: '1', CODE_MAX_EXECUTES: '3' });
    expect(host).toMatchObject({ maxArgBytes: 2000, maxInflightArgBytes: 5000, maxParallelCalls: 2, maxExecutesPerKey: 1, maxExecutes: 3 });
    // One call always fits in flight.
    expect(readCodeLimits({ CODE_MAX_ARG_BYTES: '9000', CODE_MAX_INFLIGHT_ARG_BYTES: '5000' }).maxInflightArgBytes).toBe(9000);
    expect(readCodeLimits({ CODE_MAX_CALLS: '-1', CODE_TIMEOUT_MS: 'soon', CODE_CPU_MS: '1.5', CODE_MEMORY_MB: '' })).toEqual(DEFAULT_CODE_LIMITS);
    // Console output never takes more than half of the result budget.
    expect(readCodeLimits({ CODE_MAX_LOG_TOKENS: '1000000' }).logChars).toBe(50_000);
  });
});

describe('code mode api replies', () => {
  it('give the structured result, unwrapped when the catalogue wrapped it', () => {
    const structured = { result: [{ id: 1 }] };
    const text = JSON.stringify(structured);
    expect(replyFromResult({ content: [{ type: 'text', text }], structuredContent: structured }, true)).toEqual({ ok: true, value: [{ id: 1 }], size: text.length });
    expect(replyFromResult({ content: [{ type: 'text', text }], structuredContent: structured }, false)).toEqual({ ok: true, value: structured, size: text.length });
  });

  it('give the exact tools/call text of a failed call, so the sandbox throws it', () => {
    const result = { isError: true, content: [{ type: 'text' as const, text: 'Upstream error: HTTP 404 Not Found for GET /x.' }, { type: 'text' as const, text: 'Upstream response body: {}' }] };
    expect(replyFromResult(result, false)).toEqual({ ok: false, error: 'Upstream error: HTTP 404 Not Found for GET /x.\nUpstream response body: {}' });
  });

  it('parse JSON text of tools without an outputSchema, keep other text, and pass binary blocks through', () => {
    expect(replyFromResult({ content: [{ type: 'text', text: '[1,2]' }] }, false)).toEqual({ ok: true, value: [1, 2], size: 5 });
    expect(replyFromResult({ content: [{ type: 'text', text: 'a,b\n1,2' }] }, false)).toEqual({ ok: true, value: 'a,b\n1,2', size: 7 });
    const image = { content: [{ type: 'image' as const, data: 'iVBORw0K', mimeType: 'image/png' }, { type: 'text' as const, text: 'Image: image/png, 6 bytes from GET /i.' }] };
    expect(replyFromResult(image, false)).toMatchObject({ ok: true, value: { content: image.content } });
  });
});

describe('code mode result texts', () => {
  const code = 'const a = 1;\nconst b = a.nope.x;\nreturn b;';

  it('show the class, message, line and that line for a thrown error, then the console output', () => {
    const result = executeResult({ ok: false, error: { kind: 'error', name: 'TypeError', message: "Cannot read properties of undefined (reading 'x')", line: 2 }, logs: 'hi', droppedLogChars: 3, calls: 0, ms: 1 }, code);
    expect(result).toEqual({
      isError: true,
      content: [
        { type: 'text', text: "TypeError: Cannot read properties of undefined (reading 'x') (line 2)\n  2 | const b = a.nope.x;" },
        { type: 'text', text: 'Console output before the error:\nhi\n[3 more characters of console output were dropped]' },
      ],
    });
  });

  it('say where a limit stopped the program', () => {
    expect(errorText({ kind: 'limit', message: 'Step limit: more than 10 loop iterations and function calls; is a loop endless?', line: 3 }, code)).toBe(
      'Step limit: more than 10 loop iterations and function calls; is a loop endless? Stopped at line 3.\n  3 | return b;',
    );
    expect(errorText({ kind: 'syntax', message: 'SyntaxError: Unexpected token', line: 9 }, code)).toBe('SyntaxError: Unexpected token (line 9)');
  });

  it('return the value as JSON text, and say so when there is none', () => {
    expect(executeResult({ ok: true, json: '{"a":1}', logs: '', droppedLogChars: 0, calls: 2, ms: 5 }, code)).toEqual({ content: [{ type: 'text', text: '{"a":1}' }] });
  });
});
