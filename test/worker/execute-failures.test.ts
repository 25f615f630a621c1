// executeTool against a real loopback upstream, inside workerd: upstream errors, network failures, timeouts,
// redirects, size limits and cancellation, each an isError result a model can act on.
import { describe, expect, it } from 'vitest';
import { base, tool, records, lastRecord, text, call, petSchema } from './fixtures/execute-harness.ts';

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
    expect(lastRecord()).toMatchObject({ status: 404, outcome: 'upstream_4xx' });
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
    const r = await call(tool('unauth', { path: '/status/401' }), {}, { credentials: { headers: { authorization: 'Bearer SECRET-TOKEN' } } });
    expect(text(r)).toContain('HTTP 401');
    expect(JSON.stringify(r)).not.toContain('SECRET-TOKEN');
    expect(JSON.stringify(records)).not.toContain('SECRET-TOKEN');
  });

  it('connection reset -> isError network failure', async () => {
    const r = await call(tool('reset', { path: '/reset' }, { outputSchema: { type: 'object' } }));
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^Could not reach the upstream for GET \/reset/);
    // The runtime's own message ends with a period ("Network connection lost."): one full stop, not two.
    expect(text(r)).not.toMatch(/\.\./);
    expect(lastRecord()).toMatchObject({ outcome: 'network_error' });
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
    expect(text(r)).not.toMatch(/\.\./);
  });

  it('slow headers past the timeout -> isError timeout, no hang', async () => {
    const started = Date.now();
    const r = await call(tool('slow', { path: '/slow-headers' }), {}, { timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/did not answer GET \/slow-headers within 300 ms/);
    expect(lastRecord()).toMatchObject({ outcome: 'timeout' });
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
    expect(lastRecord()).toMatchObject({ outcome: 'too_large', status: 200 });
  });

  it('50 MB body with Content-Length is refused before reading', async () => {
    const r = await call(tool('huge_cl', { path: '/big' }), {}, { maxResponseBytes: 1024 * 1024, upstreamUrl: base });
    expect(r.isError).toBe(true);
    const r2 = await call(tool('huge_cl2', { path: '/big', params: [{ arg: 'length', name: 'length', in: 'query', style: 'form', explode: true, required: true }] }), { length: '1' });
    expect(r2.isError).toBe(true);
    expect(text(r2)).toContain('(Content-Length: 52428800 bytes)');
  });

  it('a compressed body whose declared length fits but whose decoded size does not is stopped at the limit', async () => {
    const r = await call(tool('gzip_bomb', { path: '/gzip-bomb' }, { outputSchema: { type: 'object' } }), {}, { maxResponseBytes: 1024 * 1024 });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('larger than the 1048576-byte limit');
    expect(lastRecord()).toMatchObject({ outcome: 'too_large', status: 200 });
  });

  it('50 MB body under the default 10 MiB limit is refused too', async () => {
    const r = await call(tool('huge_default', { path: '/big' }));
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('larger than the 10485760-byte limit');
  });
});

describe('redirects', () => {
  it('same-origin redirect is followed with credentials', async () => {
    const r = await call(tool('redir', { path: '/redirect/same' }), {}, { credentials: { headers: { 'x-api-key': 'k1' } } });
    const echo = JSON.parse(text(r)) as { url: string; headers: Record<string, string> };
    expect(echo.url).toBe('/echo/redirected');
    expect(echo.headers['x-api-key']).toBe('k1');
  });

  it('cross-origin redirect drops credential headers', async () => {
    const r = await call(tool('redir_x', { path: '/redirect/cross' }), {}, { credentials: { headers: { 'x-api-key': 'k1', authorization: 'Bearer z' } } });
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

  it('the call record carries the path template, never header values or argument values', async () => {
    await call(tool('recorded', { path: '/echo/{q}', params: [{ arg: 'q', name: 'q', in: 'path', style: 'simple', explode: false, required: true }] }), { q: 'private-arg' }, {
      credentials: { headers: { 'x-api-key': 'sk_live_secret' } },
    });
    const r = lastRecord();
    expect(r).toMatchObject({ method: 'GET', path: '/echo/{q}', status: 200, validation: 'none', outcome: 'ok' });
    expect(JSON.stringify(r)).not.toContain('sk_live_secret');
    expect(JSON.stringify(r)).not.toContain('private-arg');
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
