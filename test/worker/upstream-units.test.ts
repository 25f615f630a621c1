// Pure pieces of src/upstream: base64, Retry-After, classification, error trimming (shrinkJson: test/node/result-budget.test.ts).
import { describe, expect, it } from 'vitest';
import { base64ToBytes, bytesToBase64 } from '../../src/lib/bytes.ts';
import { encodeStrict } from '../../src/upstream/encoding.ts';
import { parseRetryAfter, trimProblemBody, truncateText } from '../../src/upstream/errors.ts';
import { classify } from '../../src/upstream/response.ts';

const bytes = (s: string) => new TextEncoder().encode(s);

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
