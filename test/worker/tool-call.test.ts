// callTool (src/tools/call.ts): the one path behind tools/call and discovery's call_tool, run here without the SDK,
// and its single tool_call log line.
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { Caller } from '../../src/auth/bearer.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import { readConfig } from '../../src/config.ts';
import { PROFILES } from '../../src/profiles/profiles.ts';
import { callTool, UnknownToolError } from '../../src/tools/call.ts';
import type { RequestScope } from '../../src/tools/scope.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';

const loaded = loadCatalogue(await encodeCatalogue(fixtureCatalogue()));
const SECRET = 'upstream-secret-0123456789';
const caller: Caller = { id: 'key:test', scope: {}, upstreamHeaders: { authorization: `Bearer ${SECRET}` }, secrets: [SECRET] };
const scope = (over: Partial<RequestScope> = {}): RequestScope => ({
  catalogue: loaded,
  config: readConfig({ UPSTREAM_URL: inject('upstreamUrl') }, loaded.catalogue.defaultUpstream),
  caller,
  slice: sliceOf(loaded, {}),
  profile: PROFILES.default,
  mode: 'tools',
  ...over,
});

const lines: Array<Record<string, unknown>> = [];
beforeAll(() => {
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(JSON.parse(String(line)) as Record<string, unknown>));
});
afterAll(() => vi.restoreAllMocks());

describe('callTool', () => {
  it('runs a tool by name or alias and logs one tool_call line with outcome, latency and bytes', async () => {
    const before = lines.length;
    const { tool, result } = await callTool(scope(), 'echo_old_name', { id: 'private-value' });
    expect(tool.name).toBe('echo_get');
    expect(result.structuredContent).toMatchObject({ method: 'GET', url: '/echo/private-value' });
    expect(lines.length).toBe(before + 1);
    const line = lines.at(-1)!;
    expect(line).toMatchObject({ event: 'tool_call', tool: 'echo_get', caller: 'key:test', outcome: 'ok', method: 'GET', path: '/echo/{id}', status: 200, isError: false });
    expect(typeof line.latencyMs).toBe('number');
    expect(line.resultBytes).toBe(JSON.stringify(result).length);
    expect(JSON.stringify(line)).not.toContain('private-value');
    expect(JSON.stringify(line)).not.toContain(SECRET);
  });

  it('redacts the caller secrets an upstream echoes back', async () => {
    const { result } = await callTool(scope(), 'echo_get', { id: 'r' });
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(JSON.stringify(result)).toContain('[redacted]');
  });

  it('answers invalid arguments with an isError result and logs them as invalid_arguments', async () => {
    const { result } = await callTool(scope(), 'echo_get', { limit: 500 });
    expect(result.isError).toBe(true);
    expect(lines.at(-1)).toMatchObject({ event: 'tool_call', tool: 'echo_get', outcome: 'invalid_arguments', argumentErrors: 2, isError: true });
  });

  it('refuses unknown names and tools outside the slice alike, before anything is logged or sent', async () => {
    const before = lines.length;
    await expect(callTool(scope(), 'no_such_tool', {})).rejects.toBeInstanceOf(UnknownToolError);
    await expect(callTool(scope({ slice: sliceOf(loaded, { toolsets: ['echo'] }) }), 'echo_remove', { id: 'x' })).rejects.toThrow('Unknown tool: echo_remove');
    expect(lines.length).toBe(before);
  });
});
