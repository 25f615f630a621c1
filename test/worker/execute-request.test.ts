// executeTool builds one exact HTTP request: asserted on what the real loopback upstream received.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import type { BodyBinding, CatalogueTool, HttpBinding, ParamBinding } from '../../src/catalogue/types.ts';
import { base, executeOn, type CallOptions } from './fixtures/execute-harness.ts';

interface Echo {
  method: string;
  url: string;
  headers: Record<string, string | undefined>;
  body: string;
  bodyBase64: string;
}

function tool(http: Partial<HttpBinding> & { path: string }, extra: Partial<CatalogueTool> = {}): CatalogueTool {
  return {
    name: 'req_tool',
    title: 'req',
    description: 'req',
    inputSchema: { type: 'object', properties: {} },
    annotations: { title: 'req', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    toolsets: ['test'],
    ...extra,
    http: { method: 'GET', params: [], accept: ['application/json'], ...http },
  };
}

const p = (arg: string, where: ParamBinding['in'], more: Partial<ParamBinding> = {}): ParamBinding => ({
  arg,
  name: arg,
  in: where,
  style: where === 'query' || where === 'cookie' ? 'form' : 'simple',
  explode: where === 'query' || where === 'cookie',
  required: where === 'path',
  ...more,
});

async function send(t: CatalogueTool, args: Record<string, unknown>, o: CallOptions = {}): Promise<CallToolResult> {
  return (await executeOn(t, args, o)).result;
}
async function echo(t: CatalogueTool, args: Record<string, unknown>, o: CallOptions = {}): Promise<Echo> {
  const r = await send(t, args, o);
  const b = r.content[0];
  if (r.isError || !b || b.type !== 'text') throw new Error(`unexpected result: ${JSON.stringify(r)}`);
  return JSON.parse(b.text) as Echo;
}
function errorText(r: CallToolResult): string {
  expect(r.isError).toBe(true);
  expect(r.structuredContent).toBeUndefined();
  const b = r.content[0];
  if (!b || b.type !== 'text') throw new Error('expected a text block');
  return b.text;
}
/** Fetches the last request recorded for a path, to prove a rejected call sent nothing. */
async function lastOn(path: string): Promise<Echo | undefined> {
  const res = await fetch(`${base}/__last?path=${encodeURIComponent(path)}`);
  return res.ok ? ((await res.json()) as Echo) : undefined;
}

describe('path parameters stay inside the template', () => {
  const t = tool({ path: '/echo/pets/{id}/photos', params: [p('id', 'path')] });
  it.each([
    ['../admin', '/echo/pets/..%2Fadmin/photos'],
    ['../../etc/passwd', '/echo/pets/..%2F..%2Fetc%2Fpasswd/photos'],
    ['a/b', '/echo/pets/a%2Fb/photos'],
    ['%2F', '/echo/pets/%252F/photos'],
    ['%2e%2e', '/echo/pets/%252e%252e/photos'],
    ['x?admin=1', '/echo/pets/x%3Fadmin%3D1/photos'],
    ['x#frag', '/echo/pets/x%23frag/photos'],
    ['@evil.example', '/echo/pets/%40evil.example/photos'],
    ['//evil.example', '/echo/pets/%2F%2Fevil.example/photos'],
    ['a\r\nX-Injected: 1', '/echo/pets/a%0D%0AX-Injected%3A%201/photos'],
    ['café ☕', '/echo/pets/caf%C3%A9%20%E2%98%95/photos'],
    ["it's (ok)*!", '/echo/pets/it%27s%20%28ok%29%2A%21/photos'],
    ['...', '/echo/pets/.../photos'],
    [42, '/echo/pets/42/photos'],
  ])('%j -> %s', async (id, expected) => {
    const e = await echo(t, { id });
    expect(e.url).toBe(expected);
  });

  it.each(['..', '.'])('%j as a whole segment is refused (WHATWG URL would collapse it, even encoded)', async (id) => {
    const r = await send(tool({ path: '/echo/dots/{id}/x', params: [p('id', 'path')] }), { id });
    expect(errorText(r)).toMatch(/may not be '\.' or '\.\.'/);
    expect(await lastOn('/echo/dots')).toBeUndefined();
  });

  it('empty path value is refused', async () => {
    const r = await send(t, { id: '' });
    expect(errorText(r)).toMatch(/must not be empty/);
  });

  it('missing required path parameter -> isError naming it', async () => {
    expect(errorText(await send(t, {}))).toBe("Invalid arguments for req_tool: missing required path parameter 'id'.");
  });

  it('base URL path prefix is kept', async () => {
    const e = await echo(tool({ path: '/echo/{id}', params: [p('id', 'path')] }), { id: 'a b' }, { upstreamUrl: `${base}/api/v3/` });
    expect(e.url).toBe('/api/v3/echo/a%20b');
  });

  it('label and matrix styles, arrays in simple style', async () => {
    const t2 = tool({
      path: '/echo/styles/{a}/{b}/{c}',
      params: [p('a', 'path', { style: 'label' }), p('b', 'path', { style: 'matrix', explode: true }), p('c', 'path')],
    });
    const e = await echo(t2, { a: ['x', 'y'], b: ['1', '2'], c: ['p q', 'r/s'] });
    expect(e.url).toBe('/echo/styles/.x,y/;b=1;b=2/p%20q,r%2Fs');
  });
});

describe('a path template with a query part', () => {
  it("AWS's fragment (`/{Bucket}#cors`) and a literal `?` are sent as query, before the arguments' query", async () => {
    const cors = await echo(tool({ path: '/echo/{Bucket}#cors', params: [p('Bucket', 'path'), p('max', 'query')] }), { Bucket: 'b1', max: 5 });
    expect(cors.url).toBe('/echo/b1?cors&max=5');
    const rest = await echo(tool({ path: '/echo/rest?method=flickr.photos.get&format=json', params: [p('page', 'query')] }), { page: 2 });
    expect(rest.url).toBe('/echo/rest?method=flickr.photos.get&format=json&page=2');
    // A path parameter may fill the query part.
    const exp = await echo(tool({ path: '/echo/export?filename={filename}', params: [p('filename', 'path')] }), { filename: 'a b.csv' });
    expect(exp.url).toBe('/echo/export?filename=a%20b.csv');
  });

  it('names a declared query or header parameter sends are not repeated from the template', async () => {
    const t = tool({ path: '/echo/{Bucket}/{Key}#uploadId&x-id=Upload', params: [p('Bucket', 'path'), p('Key', 'path'), p('uploadId', 'query', { required: true }), p('X-Id', 'header')] });
    const e = await echo(t, { Bucket: 'b', Key: 'k', uploadId: 'u1', 'X-Id': 'Upload' });
    expect(e.url).toBe('/echo/b/k?uploadId=u1');
    expect(e.headers['x-id']).toBe('Upload');
    const bare = await echo(tool({ path: '/echo/#X-Amz-Target=Svc.List', params: [p('X-Amz-Target', 'header', { required: true })] }), { 'X-Amz-Target': 'Svc.List' });
    expect(bare.url).toBe('/echo/');
  });
});

describe('query styles', () => {
  it('form explode true/false, scalars, booleans, unicode, reserved characters', async () => {
    const t = tool({
      path: '/echo/q',
      params: [
        p('tags', 'query'),
        p('ids', 'query', { explode: false }),
        p('q', 'query'),
        p('flag', 'query'),
        p('unused', 'query'),
        p('obj', 'query', { explode: false }),
      ],
    });
    const e = await echo(t, { tags: ['a b', 'c&d'], ids: [1, 2, 3], q: 'x=1&y=2#z é', flag: false, obj: { k: 'v', n: 1 } });
    expect(e.url).toBe('/echo/q?tags=a%20b&tags=c%26d&ids=1,2,3&q=x%3D1%26y%3D2%23z%20%C3%A9&flag=false&obj=k,v,n,1');
  });

  it('form explode object spreads keys', async () => {
    const e = await echo(tool({ path: '/echo/q2', params: [p('filter', 'query')] }), { filter: { state: 'open', sort: 'asc' } });
    expect(e.url).toBe('/echo/q2?state=open&sort=asc');
  });

  it('deepObject: Stripe expand[] and nested filters', async () => {
    const t = tool({
      path: '/echo/deep',
      params: [p('expand', 'query', { style: 'deepObject' }), p('created', 'query', { style: 'deepObject' }), p('filter', 'query', { style: 'deepObject' })],
    });
    const e = await echo(t, {
      expand: ['data.customer', 'data.invoice'],
      created: { gte: 1700000000, lt: 1800000000 },
      filter: { meta: { 'a b': 'x&y' }, items: [{ price: 'p_1' }] },
    });
    expect(e.url).toBe(
      '/echo/deep?expand[]=data.customer&expand[]=data.invoice&created[gte]=1700000000&created[lt]=1800000000' +
        '&filter[meta][a%20b]=x%26y&filter[items][0][price]=p_1',
    );
  });

  it('spaceDelimited and pipeDelimited', async () => {
    const t = tool({
      path: '/echo/delim',
      params: [p('s', 'query', { style: 'spaceDelimited', explode: false }), p('pp', 'query', { style: 'pipeDelimited', explode: false })],
    });
    const e = await echo(t, { s: ['a', 'b c'], pp: ['x|y', 'z'] });
    expect(e.url).toBe('/echo/delim?s=a%20b%20c&pp=x%7Cy|z');
  });

  it('wire names with brackets and allowReserved', async () => {
    const t = tool({ path: '/echo/names', params: [p('ids', 'query', { name: 'ids[]' }), p('path', 'query', { allowReserved: true })] });
    const e = await echo(t, { ids: [1, 2], path: 'a/b:c@d?e&f=g#h' });
    expect(e.url).toBe('/echo/names?ids[]=1&ids[]=2&path=a/b:c@d?e%26f%3Dg%23h');
  });

  it('missing required query parameter -> isError', async () => {
    const r = await send(tool({ path: '/echo/req', params: [p('q', 'query', { required: true })] }), {});
    expect(errorText(r)).toContain("missing required query parameter 'q'");
  });
});

describe('headers and cookies', () => {
  it('header params, cookies, Accept from the binding, User-Agent, credential headers', async () => {
    const t = tool({
      path: '/echo/h',
      accept: ['application/vnd.github+json', 'application/json'],
      params: [p('xReq', 'header', { name: 'X-Request-Id' }), p('ids', 'header', { name: 'X-Ids' }), p('session', 'cookie'), p('prefs', 'cookie', { explode: false })],
    });
    const e = await echo(t, { xReq: 'r-1', ids: [1, 2], session: 'a b;c', prefs: ['x', 'y'] }, { credentials: { headers: { authorization: 'Bearer T' } } });
    expect(e.headers['x-request-id']).toBe('r-1');
    expect(e.headers['x-ids']).toBe('1,2');
    expect(e.headers.cookie).toBe('session=a%20b%3Bc; prefs=x,y');
    expect(e.headers.accept).toBe('application/vnd.github+json, application/json');
    expect(e.headers['user-agent']).toMatch(/^mcp-catalogue\//);
    expect(e.headers.authorization).toBe('Bearer T');
  });

  it('default Accept and a custom User-Agent', async () => {
    const e = await echo(tool({ path: '/echo/h2', accept: [] }), {}, { userAgent: 'my-agent/1.0' });
    expect(e.headers.accept).toBe('application/json, */*;q=0.8');
    expect(e.headers['user-agent']).toBe('my-agent/1.0');
  });

  it.each(['a\r\nX-Evil: 1', 'a\nb', 'a\rb'])('header value %j with CR/LF -> isError, nothing sent', async (v) => {
    const r = await send(tool({ path: '/echo/hdr-crlf', params: [p('x', 'header', { name: 'X-Thing' })] }), { x: v });
    expect(errorText(r)).toContain("header parameter 'x' must not contain CR, LF or NUL");
    expect(await lastOn('/echo/hdr-crlf')).toBeUndefined();
  });

  it('a header param cannot override the credential header', async () => {
    const t = tool({ path: '/echo/h3', params: [p('auth', 'header', { name: 'Authorization' }), p('host', 'header', { name: 'Host' })] });
    const e = await echo(t, { auth: 'Bearer attacker', host: 'evil.example' }, { credentials: { headers: { authorization: 'Bearer real' } } });
    expect(e.headers.authorization).toBe('Bearer real');
    expect(e.headers.host).toMatch(/^127\.0\.0\.1:\d+$/);
  });
});

describe('credentials in the query', () => {
  it("a query argument cannot send the credential's parameter: the credential replaces it, wherever the argument put it", async () => {
    // A form-exploded object spreads its keys as parameters: the model could name the credential's parameter, and an
    // upstream that reads the first value would take the model's key for the operator's.
    const t = tool({ path: '/echo/qkey', params: [p('filter', 'query'), p('q', 'query')] });
    const e = await echo(t, { filter: { api_key: 'attacker', state: 'open' }, q: 'x' }, { credentials: { query: [['api_key', 'real']] } });
    expect(e.url).toBe('/echo/qkey?state=open&q=x&api_key=real');
  });
});

describe('bodies', () => {
  const post = (body: BodyBinding, more: Partial<HttpBinding> = {}) => tool({ path: '/echo/body', method: 'POST', body, ...more });

  it('JSON merged body maps args to body properties', async () => {
    const t = post({ mediaType: 'application/json', required: true, mode: 'merged', props: { name: 'name', petTag: 'tag', nested: 'nested' } }, {
      params: [p('id', 'query')],
    });
    const e = await echo(t, { id: 5, name: 'Rex', petTag: 'x', nested: { a: [1, null] } });
    expect(e.method).toBe('POST');
    expect(e.url).toBe('/echo/body?id=5');
    expect(e.headers['content-type']).toBe('application/json');
    expect(e.body).toBe('{"name":"Rex","tag":"x","nested":{"a":[1,null]}}');
  });

  it('JSON wrapped body (array root)', async () => {
    const e = await echo(post({ mediaType: 'application/json; charset=utf-8', required: true, mode: 'wrapped', arg: 'body' }), { body: [1, 'two'] });
    expect(e.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(e.body).toBe('[1,"two"]');
  });

  it('optional body omitted -> no body, no content-type', async () => {
    const e = await echo(post({ mediaType: 'application/json', required: false, mode: 'merged', props: { a: 'a' } }), {});
    expect(e.body).toBe('');
    expect(e.headers['content-type']).toBeUndefined();
  });

  it('missing required wrapped body -> isError', async () => {
    const r = await send(post({ mediaType: 'application/json', required: true, mode: 'wrapped', arg: 'payload' }), {});
    expect(errorText(r)).toContain("missing required request body argument 'payload'");
  });

  it('form-urlencoded, Stripe style: metadata[k]=v, items[0][price]=, expand[]', async () => {
    const t = post({
      mediaType: 'application/x-www-form-urlencoded',
      required: true,
      mode: 'merged',
      props: { customer: 'customer', metadata: 'metadata', items: 'items', expand: 'expand', tags: 'tags', note: 'note' },
      encoding: { metadata: { style: 'deepObject', explode: true }, items: { style: 'deepObject', explode: true }, expand: { style: 'deepObject', explode: true } },
    });
    const e = await echo(t, {
      customer: 'cus_1',
      metadata: { order_id: '6735', 'a b': 'c&d' },
      items: [{ price: 'price_1', quantity: 2 }, { price: 'price_2' }],
      expand: ['latest_invoice'],
      tags: ['x', 'y'],
      note: 'héllo wörld',
    });
    expect(e.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(e.body).toBe(
      'customer=cus_1&metadata%5Border_id%5D=6735&metadata%5Ba+b%5D=c%26d&items%5B0%5D%5Bprice%5D=price_1&items%5B0%5D%5Bquantity%5D=2' +
        '&items%5B1%5D%5Bprice%5D=price_2&expand%5B%5D=latest_invoice&tags=x&tags=y&note=h%C3%A9llo+w%C3%B6rld',
    );
    const parsed = [...new URLSearchParams(e.body)];
    expect(parsed).toContainEqual(['items[0][price]', 'price_1']);
    expect(parsed).toContainEqual(['metadata[a b]', 'c&d']);
  });

  it('multipart/form-data with a file field and plain fields', async () => {
    const t = post({ mediaType: 'multipart/form-data', required: true, mode: 'merged', props: { file: 'file', title: 'title', meta: 'meta', tags: 'tags' }, fileFields: ['file'] });
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
    const e = await echo(t, { file: { data: png, filename: 'pixel.png', contentType: 'image/png' }, title: 'A pixel', meta: { a: 1 }, tags: ['x', 'y'] });
    expect(e.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    // Parse what the upstream received with the runtime's own multipart parser.
    const bytes = Uint8Array.from(atob(e.bodyBase64), (c) => c.charCodeAt(0));
    const fd = await new Response(bytes, { headers: { 'content-type': e.headers['content-type']! } }).formData();
    const file = fd.get('file') as unknown as File;
    expect(file.name).toBe('pixel.png');
    expect(file.type).toBe('image/png');
    const got = new Uint8Array(await file.arrayBuffer());
    expect(btoa(String.fromCharCode(...got))).toBe(png);
    expect(fd.get('title')).toBe('A pixel');
    expect(fd.get('meta')).toBe('{"a":1}');
    expect(fd.getAll('tags')).toEqual(['x', 'y']);
  });

  it('multipart file with invalid base64 -> isError naming the field', async () => {
    const t = post({ mediaType: 'multipart/form-data', required: true, mode: 'merged', props: { file: 'file' }, fileFields: ['file'] });
    expect(errorText(await send(t, { file: { data: 'not base64!!' } }))).toContain("argument 'file' is not valid base64");
  });

  it('raw octet-stream from base64 (exact bytes)', async () => {
    const t = tool({ path: '/echo/upload', method: 'PUT', body: { mediaType: 'application/octet-stream', required: true, mode: 'wrapped', arg: 'content', binary: true } });
    const bytes = new Uint8Array([0, 1, 2, 250, 255, 10, 13]);
    const e = await echo(t, { content: btoa(String.fromCharCode(...bytes)) });
    expect(e.method).toBe('PUT');
    expect(e.headers['content-type']).toBe('application/octet-stream');
    expect(e.bodyBase64).toBe(btoa(String.fromCharCode(...bytes)));
    expect(e.headers['content-length']).toBe('7');
  });

  it('URL-safe base64 without padding is accepted', async () => {
    const t = tool({ path: '/echo/upload2', method: 'PUT', body: { mediaType: 'image/*', required: true, mode: 'wrapped', arg: 'content', binary: true } });
    const e = await echo(t, { content: '-_8' }); // 0xfb 0xff
    expect(e.headers['content-type']).toBe('application/octet-stream');
    expect(e.bodyBase64).toBe('+/8=');
  });

  it('text/plain wrapped body is sent as is', async () => {
    const t = tool({ path: '/echo/text', method: 'POST', body: { mediaType: 'text/plain', required: true, mode: 'wrapped', arg: 'body' } });
    const e = await echo(t, { body: 'hello\nworld' });
    expect(e.body).toBe('hello\nworld');
    expect(e.headers['content-type']).toBe('text/plain');
  });

  it('DELETE with a JSON body', async () => {
    const t = tool({ path: '/echo/del', method: 'DELETE', body: { mediaType: 'application/json', required: true, mode: 'merged', props: { ids: 'ids' } } });
    const e = await echo(t, { ids: [1, 2] });
    expect(e.method).toBe('DELETE');
    expect(e.body).toBe('{"ids":[1,2]}');
  });

  it('GET with a JSON body (search endpoints)', async () => {
    const t = tool({ path: '/echo/search', method: 'GET', body: { mediaType: 'application/json', required: true, mode: 'merged', props: { query: 'query' } } });
    const r = await send(t, { query: { match: 'x' } });
    const b = r.content[0];
    if (!b || b.type !== 'text') throw new Error('no text');
    if (r.isError) throw new Error(b.text);
    const e = JSON.parse(b.text) as Echo;
    expect(e.method).toBe('GET');
    expect(e.body).toBe('{"query":{"match":"x"}}');
  });
});
