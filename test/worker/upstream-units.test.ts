// Pure pieces of src/upstream: truncation, base64, Retry-After, classification, error trimming.
import { describe, expect, it } from 'vitest';
import { base64ToBytes, bytesToBase64 } from '../../src/lib/bytes.ts';
import { encodeStrict } from '../../src/upstream/encoding.ts';
import { parseRetryAfter, trimProblemBody, truncateText } from '../../src/upstream/errors.ts';
import { classify } from '../../src/upstream/response.ts';
import { pagingArgs, shrinkJson, truncationNote } from '../../src/upstream/truncate.ts';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('shrinkJson', () => {
  it('returns undefined when the value fits', () => {
    expect(shrinkJson({ a: [1, 2, 3] }, 100)).toBeUndefined();
  });

  it('cuts the dominant array, keeps valid JSON under the budget, records the cut', () => {
    const v = { total: 1000, items: Array.from({ length: 1000 }, (_, i) => ({ id: i, name: `n${i}` })) };
    const out = shrinkJson(v, 2000)!;
    const text = JSON.stringify(out.value);
    expect(text.length).toBeLessThanOrEqual(2000);
    expect(JSON.parse(text)).toMatchObject({ total: 1000 });
    expect(out.arrayCuts).toEqual([{ path: '$.items', kept: (out.value as { items: unknown[] }).items.length, total: 1000 }]);
    expect(v.items).toHaveLength(1000); // input untouched
  });

  it('cuts a nested array that dominates instead of the one-element outer array', () => {
    const v = [{ children: Array.from({ length: 500 }, (_, i) => i * 1000) }];
    const out = shrinkJson(v, 500)!;
    expect((out.value as unknown[]).length).toBe(1);
    expect(out.arrayCuts[0]?.path).toBe('$[0].children');
  });

  it('omits base64-like strings whole and cuts prose at a safe boundary', () => {
    const v = { img: 'QUJD'.repeat(1000), prose: '😀'.repeat(2000) };
    const out = shrinkJson(v, 1500)!;
    const o = out.value as { img: string; prose: string };
    expect(o.img).toMatch(/^\[4000 characters omitted \(binary\/base64 data\)\]$/);
    expect(JSON.stringify(o).length).toBeLessThanOrEqual(1500);
    // No lone surrogate at the cut.
    expect(o.prose).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(out.stringsCut).toBe(2);
  });

  it('notes mention paging arguments when the tool has them', () => {
    const out = shrinkJson({ items: Array.from({ length: 100 }, (_, i) => i) }, 50)!;
    const paging = pagingArgs({ type: 'object', properties: { per_page: {}, page: {}, q: {} } });
    expect(paging).toEqual(['per_page', 'page']);
    expect(truncationNote(out, 25000, paging)).toMatch(/^Result shortened to fit the ~25000-token budget\. \$\.items: kept \d+ of 100 items\. To see the rest, call again with the pagination arguments \(per_page, page\)/);
  });
});

describe('encoding', () => {
  it('strict encoding covers !\'()*', () => {
    expect(encodeStrict("a!'()*b")).toBe('a%21%27%28%29%2Ab');
  });
  it('base64 round trip, url-safe and data: URLs', () => {
    const b = new Uint8Array(Array.from({ length: 256 }, (_, i) => i));
    expect(base64ToBytes(bytesToBase64(b))).toEqual(b);
    expect(base64ToBytes('data:image/png;base64,+/8=')).toEqual(new Uint8Array([251, 255]));
    expect(() => base64ToBytes('abc$')).toThrow();
    expect(() => base64ToBytes('a')).toThrow();
  });
});

describe('errors', () => {
  it('Retry-After seconds and HTTP date', () => {
    expect(parseRetryAfter('120')).toBe(120);
    expect(parseRetryAfter(new Date(1_000_000 + 30_000).toUTCString(), 1_000_000)).toBe(30);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
  it('problem bodies: JSON compacted, HTML reduced, long text trimmed', () => {
    expect(trimProblemBody(bytes('{ "a" : 1 }'), 'application/problem+json')).toBe('{"a":1}');
    expect(trimProblemBody(bytes('<html><body><h1>Bad</h1><script>x()</script></body></html>'), 'text/html')).toBe('Bad');
    expect(truncateText('x'.repeat(10), 4)).toBe('xxxx… [6 more characters cut]');
  });
});

describe('classify', () => {
  it.each([
    ['application/json', '{}', 'json'],
    ['application/vnd.api+json', '{}', 'json'],
    ['application/hal+json; charset=utf-8', '{}', 'json'],
    ['application/x-ndjson', '{}\n{}', 'text'],
    ['text/plain', '{"a":1}', 'json'],
    ['text/plain', 'hello', 'text'],
    [null, '[1]', 'json'],
    [null, 'plain words', 'text'],
    ['*/*', '{"a":1}', 'json'],
    ['image/svg+xml', '<svg/>', 'text'],
    ['image/png', 'x', 'image'],
    ['audio/mpeg', 'x', 'audio'],
    ['application/zip', 'PK', 'binary'],
    ['application/json', '', 'empty'],
  ])('%s %j -> %s', (ct, body, kind) => {
    expect(classify(bytes(body), 200, ct)).toBe(kind);
  });
});
