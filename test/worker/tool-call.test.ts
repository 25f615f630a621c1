// callTool (src/tools/call.ts): the one path behind tools/call and discovery's call_tool, run here from the tools
// surface (which resolves the name into a handle) without the SDK, and its single tool_call log line.
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { Caller } from '../../src/auth/bearer.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { encodeCatalogue } from '../support/encode-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import type { CatalogueTool } from '../../src/catalogue/types.ts';
import { readConfig } from '../../src/config.ts';
import { PROFILES } from '../../src/profiles/profiles.ts';
import { UnknownToolError } from '../../src/tools/handle.ts';
import type { RequestScope } from '../../src/tools/scope.ts';
import { toolsSurface } from '../../src/tools/surface.ts';
import type { UsageEvent } from '../../src/usage/rows.ts';
import { fixtureCatalogue } from './fixtures/catalogue.ts';

const textOf = (r: unknown) => ((r as { content?: Array<{ text?: string }> }).content ?? [])[0]?.text;

const loaded = loadCatalogue(await encodeCatalogue(fixtureCatalogue()));
const SECRET = 'upstream-secret-0123456789';
const caller: Caller = { id: 'key:test', scope: {}, upstream: { single: SECRET }, secrets: [SECRET] };
const scope = (over: Partial<RequestScope> = {}): RequestScope => ({
  catalogue: loaded,
  config: readConfig({ UPSTREAM_URL: inject('upstreamUrl') }, loaded.catalogue.defaultUpstream),
  caller,
  slice: sliceOf(loaded, {}),
  profile: PROFILES.default,
  mode: 'tools',
  ...over,
});

const callTool = (s: RequestScope, name: string, args: Record<string, unknown>) => toolsSurface(s).call(name, args);

const lines: Array<Record<string, unknown>> = [];
beforeAll(() => {
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(JSON.parse(String(line)) as Record<string, unknown>));
});
afterAll(() => vi.restoreAllMocks());

describe('callTool', () => {
  it('runs a tool by name or alias and logs one tool_call line with outcome, latency and bytes', async () => {
    const before = lines.length;
    const { result } = await callTool(scope(), 'echo_old_name', { id: 'private-value' });
    expect(result.structuredContent).toMatchObject({ method: 'GET', url: '/echo/private-value' });
    expect(lines.length).toBe(before + 1);
    const line = lines.at(-1)!;
    expect(line).toMatchObject({ event: 'tool_call', tool: 'echo_get', caller: 'key:test', outcome: 'ok', method: 'GET', path: '/echo/{id}', status: 200, isError: false });
    expect(typeof line.latencyMs).toBe('number');
    expect(line.resultBytes).toBe(new TextEncoder().encode(JSON.stringify(result)).length);
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

  it('an unknown name throws before anything is logged, sent or metered', async () => {
    const before = lines.length;
    const events: UsageEvent[] = [];
    const meter = (e: UsageEvent) => void events.push(e);
    await expect(callTool(scope({ meter }), 'no_such_tool', {})).rejects.toBeInstanceOf(UnknownToolError);
    expect(lines.length).toBe(before);
    expect(events).toEqual([]);
  });

  it('a catalogue tool outside the slice is refused by name: an isError result naming the scope, logged and metered as out_of_scope', async () => {
    const events: UsageEvent[] = [];
    const meter = (e: UsageEvent) => void events.push(e);
    const { result, shape } = await callTool(scope({ meter, slice: sliceOf(loaded, { toolsets: ['echo'] }) }), 'echo_remove', { id: 'x' });
    expect(shape).toBeUndefined();
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('echo_remove is outside this endpoint, which serves the toolsets echo. Use one of the listed tools instead. It belongs to the toolset admin.');
    expect(lines.at(-1)).toMatchObject({ event: 'tool_call', tool: 'echo_remove', caller: 'key:test', outcome: 'out_of_scope', isError: true });
    expect(events).toEqual([{ keyId: 'key:test', tool: 'echo_remove', outcome: 'out_of_scope' }]);
  });

  it('meters each call once with the caller, the catalogue name, the usage outcome, latency and UTF-8 result bytes', async () => {
    const events: UsageEvent[] = [];
    const meter = (e: UsageEvent) => void events.push(e);
    // The upstream echoes the JSON body back, so the result holds the non-ASCII note as UTF-8 text.
    const post: CatalogueTool = {
      ...loaded.byName.get('echo_get')!,
      name: 'echo_post',
      inputSchema: { type: 'object', properties: { id: { type: 'string' }, note: { type: 'string' } }, required: ['id'] },
      http: { method: 'POST', path: '/echo/{id}', params: [{ arg: 'id', name: 'id', in: 'path', style: 'simple', explode: false, required: true }], body: { mediaType: 'application/json', required: true, mode: 'merged', props: { note: 'note' } }, accept: ['application/json'] },
    };
    delete post.outputSchema;
    const c = fixtureCatalogue();
    const withPost = loadCatalogue(await encodeCatalogue({ ...c, tools: [...c.tools, post].sort((a, b) => (a.name < b.name ? -1 : 1)) }));
    const ok = await callTool(scope({ meter, catalogue: withPost, slice: sliceOf(withPost, {}) }), 'echo_post', { id: 'p', note: 'café 日本' });
    expect(ok.result.isError).toBeFalsy();
    await callTool(scope({ meter }), 'echo_get', { limit: 0 });
    expect(events).toHaveLength(2);
    const bytes = new TextEncoder().encode(JSON.stringify(ok.result)).length;
    expect(bytes).toBeGreaterThan(JSON.stringify(ok.result).length); // the result holds non-ASCII text: bytes, not characters
    expect(events[0]).toEqual({ keyId: 'key:test', tool: 'echo_post', outcome: 'ok', latencyMs: lines.at(-2)!.latencyMs, resultBytes: bytes });
    expect(events[1]).toMatchObject({ keyId: 'key:test', tool: 'echo_get', outcome: 'invalid_arguments', resultBytes: lines.at(-1)!.resultBytes });
  });
});
