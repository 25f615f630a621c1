// executeTool against a real loopback upstream, inside workerd: responses -> exact content blocks.
import { describe, expect, inject, it } from 'vitest';
import type { CatalogueTool, HttpBinding, JsonSchema } from '../../src/catalogue/types.ts';
import { validate } from '../../src/catalogue/validator.ts';
import { executeTool, schemaMismatchCounts, type ExecuteOptions } from '../../src/upstream/execute.ts';

// test/support/global-upstream.ts declares this for the node tsconfig; the worker tsconfig needs it too.
declare module 'vitest' {
  export interface ProvidedContext {
    upstreamUrl: string;
  }
}

const base = inject('upstreamUrl');
const TINY_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

function tool(name: string, http: Partial<HttpBinding> & { path: string }, extra: Partial<CatalogueTool> = {}): CatalogueTool {
  return {
    name,
    title: name,
    description: name,
    inputSchema: { type: 'object', properties: {} },
    annotations: { title: name, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    toolsets: ['test'],
    ...extra,
    http: { method: 'GET', params: [], accept: ['application/json'], ...http },
  };
}

type Result = Awaited<ReturnType<typeof executeTool>>;
const lines: Array<Record<string, unknown>> = [];
const opts = (o: Partial<ExecuteOptions> = {}): ExecuteOptions => ({ upstreamUrl: base, log: (l) => lines.push(l), ...o });
const run = (t: CatalogueTool, args: Record<string, unknown> = {}, o: Partial<ExecuteOptions> = {}) => executeTool(t, args, opts(o));
const lastLine = () => lines[lines.length - 1] ?? {};

function text(r: Result, i = 0): string {
  const b = r.content[i];
  if (!b || b.type !== 'text') throw new Error(`block ${i} is not text: ${JSON.stringify(b)?.slice(0, 200)}`);
  return b.text;
}

/** Invariants every result must satisfy, whatever the case. */
function checkInvariants(t: CatalogueTool, r: Result): void {
  if (r.isError) expect(r.structuredContent).toBeUndefined();
  if (r.structuredContent !== undefined) {
    expect(t.outputSchema).toBeDefined();
    expect(Array.isArray(r.structuredContent)).toBe(false);
    expect(validate(t.outputSchema!, r.structuredContent).valid).toBe(true);
    // For JSON results, the text block carries the same data.
    if (text(r).startsWith('{')) expect(JSON.parse(text(r))).toEqual(r.structuredContent);
  }
  if (t.outputSchema && !r.isError) expect(r.structuredContent).toBeDefined();
  for (const b of r.content) {
    if (b.type === 'image' || b.type === 'audio') expect(() => atob(b.data)).not.toThrow();
    if (b.type === 'resource') {
      const res = b.resource;
      if ('blob' in res) expect(() => atob(res.blob)).not.toThrow();
    }
  }
}

async function call(t: CatalogueTool, args: Record<string, unknown> = {}, o: Partial<ExecuteOptions> = {}): Promise<Result> {
  const r = await run(t, args, o);
  checkInvariants(t, r);
  return r;
}

const petSchema: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'integer' }, name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } }, owner: { type: ['string', 'null'] } },
  required: ['id', 'name'],
};

describe('JSON responses', () => {
  it('object root: structuredContent is the object, one compact text block with the same JSON', async () => {
    const t = tool('get_pet', { path: '/json/object' }, { outputSchema: petSchema });
    const r = await call(t);
    expect(r).toEqual({
      content: [{ type: 'text', text: '{"id":7,"name":"Rex","tags":["good","dog"],"owner":null}' }],
      structuredContent: { id: 7, name: 'Rex', tags: ['good', 'dog'], owner: null },
    });
    expect(lastLine()).toMatchObject({ tool: 'get_pet', status: 200, validation: 'valid', outcome: 'ok', isError: false });
    expect(typeof lastLine().latencyMs).toBe('number');
    expect(lastLine().resultBytes).toBe(JSON.stringify(r).length);
  });

  it('array root with outputWrapped: structuredContent is {result: [...]}', async () => {
    const t = tool('list_pets', { path: '/json/array' }, {
      outputWrapped: true,
      outputSchema: { type: 'object', properties: { result: { type: 'array', items: { type: 'object' } } }, required: ['result'] },
    });
    const r = await call(t);
    expect(r).toEqual({ content: [{ type: 'text', text: '{"result":[{"id":1},{"id":2}]}' }], structuredContent: { result: [{ id: 1 }, { id: 2 }] } });
  });

  it('array root without the wrapped flag is still wrapped when there is an outputSchema', async () => {
    const t = tool('list_pets2', { path: '/json/array' }, { outputSchema: { type: 'object' } });
    const r = await call(t);
    expect(r.structuredContent).toEqual({ result: [{ id: 1 }, { id: 2 }] });
  });

  it('scalar root is wrapped', async () => {
    const t = tool('count', { path: '/json/scalar' }, { outputWrapped: true, outputSchema: { type: 'object', properties: { result: { type: 'integer' } } } });
    expect((await call(t)).structuredContent).toEqual({ result: 42 });
  });

  it('no outputSchema: text only, no structuredContent', async () => {
    const t = tool('list_raw', { path: '/json/array' });
    expect(await call(t)).toEqual({ content: [{ type: 'text', text: '[{"id":1},{"id":2}]' }] });
  });

  it.each([
    ['vendor +json', '/json/vendor', { id: 1, kind: 'vendor' }],
    ['*/* content-type', '/json/star', { id: 2, kind: 'star' }],
    ['missing content-type', '/json/none', { id: 3, kind: 'none' }],
  ])('%s is parsed as JSON', async (_n, path, expected) => {
    const t = tool('vendor', { path }, { outputSchema: { type: 'object', properties: { id: { type: 'integer' } } } });
    const r = await call(t);
    expect(r).toEqual({ content: [{ type: 'text', text: JSON.stringify(expected) }], structuredContent: expected });
  });

  it('schema mismatch: isError, data as text, no structuredContent, counted and logged', async () => {
    const t = tool('mismatch_tool', { path: '/json/mismatch' }, { outputSchema: petSchema });
    const before = schemaMismatchCounts.get('mismatch_tool') ?? 0;
    const r = await call(t);
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect(text(r, 0)).toContain('upstream response did not match the declared output schema');
    expect(text(r, 0)).toMatch(/\/id/);
    expect(JSON.parse(text(r, 1))).toEqual({ id: 'not-a-number', name: 5 });
    expect(schemaMismatchCounts.get('mismatch_tool')).toBe(before + 1);
    expect(lastLine()).toMatchObject({ tool: 'mismatch_tool', validation: 'mismatch', outcome: 'schema_mismatch', schemaMismatches: before + 1 });
  });

  it('invalid JSON under application/json: isError with the parse problem and the raw text', async () => {
    const t = tool('bad_json', { path: '/json/invalid' }, { outputSchema: { type: 'object' } });
    const r = await call(t);
    expect(r.isError).toBe(true);
    expect(r.content).toHaveLength(1);
    expect(text(r)).toContain('not valid JSON');
    expect(text(r)).toContain('{"id": 1, "name": "trunc');
  });
});

describe('media responses', () => {
  it('image -> image block with valid base64 + a text line', async () => {
    const t = tool('get_png', { path: '/image.png', accept: ['image/png'] });
    const r = await call(t);
    const bytes = Uint8Array.from(atob(TINY_PNG_BASE64), (c) => c.charCodeAt(0)).length;
    expect(r).toEqual({
      content: [
        { type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' },
        { type: 'text', text: `Image: image/png, ${bytes} bytes from GET /image.png.` },
      ],
    });
  });

  it('audio -> audio block + a text line', async () => {
    const t = tool('get_wav', { path: '/audio.wav', accept: ['audio/wav'] });
    const r = await call(t);
    expect(r.content).toHaveLength(2);
    const a = r.content[0]!;
    expect(a.type).toBe('audio');
    if (a.type !== 'audio') return;
    expect(a.mimeType).toBe('audio/wav');
    expect(atob(a.data).slice(0, 4)).toBe('RIFF');
    expect(atob(a.data).length).toBe(124);
    expect(text(r, 1)).toBe('Audio: audio/wav, 124 bytes from GET /audio.wav.');
  });

  it('PDF -> embedded resource with blob, uri and mimeType + a text line', async () => {
    const t = tool('get_pdf', { path: '/doc.pdf', accept: ['application/pdf'] });
    const r = await call(t);
    const b = r.content[0]!;
    expect(b.type).toBe('resource');
    if (b.type !== 'resource') return;
    expect(b.resource.uri).toBe('upstream://get_pdf/doc.pdf');
    expect(b.resource.mimeType).toBe('application/pdf');
    expect('blob' in b.resource && atob(b.resource.blob).startsWith('%PDF-1.4')).toBe(true);
    expect(text(r, 1)).toMatch(/^File: application\/pdf, \d+ bytes from GET \/doc\.pdf\.$/);
  });

  it('octet-stream -> resource with exact bytes', async () => {
    const t = tool('get_bytes', { path: '/bytes', accept: ['application/octet-stream'] });
    const r = await call(t);
    const b = r.content[0]!;
    if (b.type !== 'resource') throw new Error('expected resource');
    expect('blob' in b.resource ? b.resource.blob : undefined).toBe(btoa(String.fromCharCode(0, 1, 2, 3, 254, 255)));
  });

  it.each([
    ['/data.csv', 'text/csv', 'id,name\n1,Rex\n2,"Fido, Jr."\n'],
    ['/readme.md', 'text/markdown', '# Title\n\nSome *markdown*.\n'],
    ['/feed.xml', 'application/xml', '<?xml version="1.0"?><feed><id>1</id></feed>'],
  ])('%s -> one text block', async (path, accept, body) => {
    const t = tool('get_text', { path, accept: [accept] });
    expect(await call(t)).toEqual({ content: [{ type: 'text', text: body }] });
  });

  it('204 without outputSchema -> short text, no structuredContent', async () => {
    const t = tool('delete_pet', { path: '/no-content', method: 'DELETE', accept: [] });
    const r = await call(t);
    expect(r).toEqual({ content: [{ type: 'text', text: 'HTTP 204 No Content: the upstream accepted DELETE /no-content and returned no content.' }] });
  });

  it('204 with an open outputSchema -> structuredContent {}', async () => {
    const t = tool('delete_pet2', { path: '/no-content', method: 'DELETE' }, { outputSchema: { type: 'object', properties: { id: { type: 'integer' } } } });
    const r = await call(t);
    expect(r.structuredContent).toEqual({});
    expect(r.isError).toBeUndefined();
  });

  it('204 with a schema that needs fields -> isError that says not to retry, no structuredContent', async () => {
    const t = tool('delete_pet3', { path: '/no-content', method: 'DELETE' }, { outputSchema: petSchema });
    const r = await call(t);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('do not retry');
  });

  it('empty 200 body -> short text', async () => {
    const t = tool('empty', { path: '/empty' });
    expect(text(await call(t))).toMatch(/^HTTP 200 OK: the upstream accepted GET \/empty and returned no content\.$/);
  });

  it('non-JSON success for a tool with an open outputSchema -> descriptor structuredContent that validates', async () => {
    const t = tool('csv_with_schema', { path: '/data.csv' }, { outputSchema: { type: 'object' } });
    const r = await call(t);
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent).toMatchObject({ content_type: 'text/csv', text: 'id,name\n1,Rex\n2,"Fido, Jr."\n' });
  });
});

describe('upstream errors', () => {
  it('404 with a problem body', async () => {
    const t = tool('get_missing', { path: '/status/404' }, { outputSchema: petSchema });
    const r = await call(t);
    expect(r).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text:
            'Upstream error: HTTP 404 Not Found for GET /status/404.\n' +
            'Not Found: the resource does not exist or is not visible with these credentials; check the identifiers you passed.\n' +
            'Upstream response body: {"type":"about:blank","title":"Not Found","status":404,"detail":"Pet 99 does not exist"}',
        },
      ],
    });
    expect(lastLine()).toMatchObject({ status: 404, outcome: 'upstream_error', isError: true });
  });

  it('429 with Retry-After seconds', async () => {
    const r = await call(tool('limited', { path: '/status/429' }, { outputSchema: { type: 'object' } }));
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('HTTP 429 Too Many Requests');
    expect(text(r)).toContain('Retry after 7 seconds (Retry-After: 7)');
    expect(text(r)).toContain('API rate limit exceeded');
  });

  it('503 with an HTTP-date Retry-After', async () => {
    const r = await call(tool('down', { path: '/status/503' }));
    expect(text(r)).toMatch(/HTTP 503 Service Unavailable/);
    expect(text(r)).toMatch(/Retry after (11\d|120) seconds/);
    expect(text(r)).toContain('down for maintenance');
  });

  it('500 with an HTML body: reduced to text and trimmed', async () => {
    const r = await call(tool('boom', { path: '/status/500' }, { outputSchema: { type: 'object' } }));
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('HTTP 500 Internal Server Error');
    expect(text(r)).toContain('Oops Internal error trace');
    expect(text(r)).not.toContain('<h1>');
    expect(text(r).length).toBeLessThan(2600);
  });

  it('401 does not echo credentials', async () => {
    const r = await call(tool('unauth', { path: '/status/401' }), {}, { headers: { authorization: 'Bearer SECRET-TOKEN' } });
    expect(text(r)).toContain('HTTP 401');
    expect(JSON.stringify(r)).not.toContain('SECRET-TOKEN');
    expect(JSON.stringify(lines)).not.toContain('SECRET-TOKEN');
  });

  it('connection reset -> isError network failure', async () => {
    const r = await call(tool('reset', { path: '/reset' }, { outputSchema: { type: 'object' } }));
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^Could not reach the upstream for GET \/reset/);
    expect(lastLine()).toMatchObject({ outcome: 'network_error' });
  });

  it('connection reset mid-body -> isError', async () => {
    const r = await call(tool('reset_mid', { path: '/reset-mid' }, { outputSchema: { type: 'object' } }));
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/failed while reading|Could not reach/);
  });

  it('unreachable port -> isError', async () => {
    const r = await call(tool('closed', { path: '/x' }), {}, { upstreamUrl: 'http://127.0.0.1:1' });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^Could not reach the upstream/);
  });

  it('slow headers past the timeout -> isError timeout, no hang', async () => {
    const started = Date.now();
    const r = await call(tool('slow', { path: '/slow-headers' }), {}, { timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/did not answer GET \/slow-headers within 300 ms/);
    expect(lastLine()).toMatchObject({ outcome: 'timeout' });
  });

  it('slow body past the timeout -> isError timeout, no hang', async () => {
    const started = Date.now();
    const r = await call(tool('slow_body', { path: '/slow-body' }, { outputSchema: { type: 'object' } }), {}, { timeoutMs: 400 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('within 400 ms');
  });

  it('50 MB streamed body (no Content-Length) stops at the size limit', async () => {
    const started = Date.now();
    const r = await call(tool('huge', { path: '/big' }), {}, { maxResponseBytes: 1024 * 1024 });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('larger than the 1048576-byte limit');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(lastLine()).toMatchObject({ outcome: 'too_large', status: 200 });
  });

  it('50 MB body with Content-Length is refused before reading', async () => {
    const r = await call(tool('huge_cl', { path: '/big' }), {}, { maxResponseBytes: 1024 * 1024, upstreamUrl: base });
    expect(r.isError).toBe(true);
    const r2 = await call(tool('huge_cl2', { path: '/big', params: [{ arg: 'length', name: 'length', in: 'query', style: 'form', explode: true, required: true }] }), { length: '1' });
    expect(r2.isError).toBe(true);
    expect(text(r2)).toContain('(Content-Length: 52428800 bytes)');
  });

  it('50 MB body under the default 10 MiB limit is refused too', async () => {
    const r = await call(tool('huge_default', { path: '/big' }));
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('larger than the 10485760-byte limit');
  });
});

describe('large results', () => {
  const listSchema: JsonSchema = {
    type: 'object',
    properties: { total_count: { type: 'integer' }, items: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } } } } },
  };
  const paged = { type: 'object', properties: { per_page: { type: 'integer' }, page: { type: 'integer' } } };

  it('cuts arrays to the budget, keeps valid JSON and schema, and says how to get the rest', async () => {
    const t = tool('list_big', { path: '/json/big' }, { outputSchema: listSchema, inputSchema: paged });
    const r = await call(t, {}, { maxResultTokens: 5000 });
    expect(r.isError).toBeUndefined();
    const s = r.structuredContent as { items: unknown[]; total_count: number; truncated: string };
    expect(text(r).length).toBeLessThanOrEqual(5000 * 4);
    expect(s.items.length).toBeGreaterThan(10);
    expect(s.items.length).toBeLessThan(5000);
    expect(s.total_count).toBe(5000);
    expect(s.truncated).toMatch(/\$\.items: kept \d+ of 5000 items/);
    expect(s.truncated).toContain('per_page, page');
    expect(lastLine()).toMatchObject({ truncated: true, outcome: 'ok' });
  });

  it('root arrays without schema: valid JSON text plus a note block', async () => {
    const t = tool('list_big_raw', { path: '/json/big', params: [{ arg: 'root', name: 'root', in: 'query', style: 'form', explode: true, required: false }] });
    const r = await call(t, { root: 'array' }, { maxResultTokens: 2000 });
    const arr = JSON.parse(text(r, 0)) as unknown[];
    expect(arr.length).toBeLessThan(5000);
    expect(text(r, 0).length).toBeLessThanOrEqual(8000);
    expect(text(r, 1)).toMatch(/kept \d+ of 5000 items/);
  });

  it('never breaks base64 strings: they are omitted whole', async () => {
    const t = tool('big_strings', { path: '/json/bigstring' }, { outputSchema: { type: 'object' } });
    const r = await call(t, {}, { maxResultTokens: 20000 });
    const s = r.structuredContent as { blob: string; text: string };
    expect(s.blob === 'QUJD'.repeat(50_000) || /^\[\d+ characters omitted/.test(s.blob)).toBe(true);
    expect(text(r).length).toBeLessThanOrEqual(80_000);
  });
});

describe('redirects', () => {
  it('same-origin redirect is followed with credentials', async () => {
    const r = await call(tool('redir', { path: '/redirect/same' }), {}, { headers: { 'x-api-key': 'k1' } });
    const echo = JSON.parse(text(r)) as { url: string; headers: Record<string, string> };
    expect(echo.url).toBe('/echo/redirected');
    expect(echo.headers['x-api-key']).toBe('k1');
  });

  it('cross-origin redirect drops credential headers', async () => {
    const r = await call(tool('redir_x', { path: '/redirect/cross' }), {}, { headers: { 'x-api-key': 'k1', authorization: 'Bearer z' } });
    const echo = JSON.parse(text(r)) as { url: string; headers: Record<string, string> };
    expect(echo.url).toBe('/echo/cross');
    expect(echo.headers['x-api-key']).toBeUndefined();
    expect(echo.headers.authorization).toBeUndefined();
  });

  it('303 after POST becomes GET without a body', async () => {
    const t = tool('post_redir', { path: '/redirect/see-other', method: 'POST', body: { mediaType: 'application/json', required: true, mode: 'merged', props: { a: 'a' } } });
    const echo = JSON.parse(text(await call(t, { a: 1 }))) as { method: string; body: string };
    expect(echo.method).toBe('GET');
    expect(echo.body).toBe('');
  });

  it('redirect loops end with isError', async () => {
    const r = await call(tool('loop', { path: '/redirect/loop' }));
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('more than 5 times');
  });
});

describe('bounded resources', () => {
  it('a cancelled 50 MB stream stops the upstream from sending the rest', async () => {
    const r = await call(tool('huge_stream', { path: '/big', params: [{ arg: 'mb', name: 'mb', in: 'query', style: 'form', explode: true, required: true }] }), { mb: 50 }, { maxResponseBytes: 256 * 1024 });
    expect(r.isError).toBe(true);
    let sent = 0;
    for (let i = 0; i < 50 && !sent; i++) {
      await new Promise((res) => setTimeout(res, 100));
      const stats = (await (await fetch(`${base}/big-stats`)).json()) as { lastSent: number };
      sent = stats.lastSent;
    }
    // The upstream saw the connection close long before 50 MB went out.
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(50 * 1024 * 1024);
  });

  it('binary bodies over maxBinaryBytes become a text line, never partial base64', async () => {
    const t = tool('big_pdf', { path: '/doc.pdf', accept: ['application/pdf'] });
    const r = await call(t, {}, { maxBinaryBytes: 16 });
    expect(r.content).toHaveLength(1);
    expect(text(r)).toMatch(/^File: application\/pdf, \d+ bytes from GET \/doc\.pdf; too large to include \(limit 16 bytes\)\.$/);
  });

  it('GET with a body past the timeout (raw socket path) -> isError timeout', async () => {
    const t = tool('slow_get_body', { path: '/slow-headers', body: { mediaType: 'application/json', required: true, mode: 'merged', props: { q: 'q' } } });
    const started = Date.now();
    const r = await call(t, { q: 1 }, { timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(text(r)).toContain('within 300 ms');
  });

  it('one log line per call with no header values or argument values', async () => {
    const before = lines.length;
    await call(tool('logged', { path: '/echo/logged', params: [{ arg: 'q', name: 'q', in: 'query', style: 'form', explode: true, required: true }] }), { q: 'private-arg' }, {
      headers: { 'x-api-key': 'sk_live_secret' },
      keyId: 'key-7',
    });
    expect(lines.length).toBe(before + 1);
    const l = lastLine();
    expect(l).toMatchObject({ event: 'tool_call', tool: 'logged', keyId: 'key-7', status: 200, validation: 'none', outcome: 'ok', path: '/echo/logged' });
    expect(JSON.stringify(l)).not.toContain('sk_live_secret');
    expect(JSON.stringify(l)).not.toContain('private-arg');
  });
});

describe('cancellation', () => {
  it('an external AbortSignal cancels the upstream call', async () => {
    const ctrl = new AbortController();
    setTimeout(() => ctrl.abort(), 150);
    const started = Date.now();
    const r = await call(tool('cancelled', { path: '/slow-headers' }), {}, { signal: ctrl.signal });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(text(r)).toBe('The call to GET /slow-headers was cancelled.');
  });
});
