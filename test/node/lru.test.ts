// The bounded cache every client-keyed per-isolate cache uses (src/lib/lru.ts).
import { describe, expect, it } from 'vitest';
import { Lru, roughBytes } from '../../src/lib/lru.ts';

describe('Lru', () => {
  it('evicts the least recently used entry when over its count', () => {
    const c = new Lru<string, number>('t', 3, 1e9);
    c.set('a', 1, 1);
    c.set('b', 2, 1);
    c.set('c', 3, 1);
    expect(c.get('a')).toBe(1); // a is now the most recent
    c.set('d', 4, 1);
    expect(c.has('b')).toBe(false);
    expect([c.has('a'), c.has('c'), c.has('d')]).toEqual([true, true, true]);
    expect(c.size).toBe(3);
    expect(c.stats().evictions).toBe(1);
  });

  it('evicts by bytes, and never keeps an entry bigger than the whole budget', () => {
    const c = new Lru<string, string>('t', 100, 10);
    c.set('a', 'x', 4);
    c.set('b', 'y', 4);
    c.set('c', 'z', 4);
    expect(c.has('a')).toBe(false);
    expect(c.bytes).toBe(8);
    c.set('huge', 'h', 11);
    expect(c.has('huge')).toBe(false);
    expect(c.bytes).toBe(8);
  });

  it('peek does not refresh an entry; replacing one re-counts its bytes', () => {
    const c = new Lru<string, number>('t', 2, 100);
    c.set('a', 1, 10);
    c.set('b', 2, 10);
    expect(c.peek('a')).toBe(1);
    c.set('c', 3, 10);
    expect(c.has('a')).toBe(false);
    c.set('b', 5, 30);
    expect(c.bytes).toBe(40);
    expect(c.bytesOf('b')).toBe(30);
  });

  it('grow charges an entry that grew: others make room, and one that outgrows the budget is dropped', () => {
    const c = new Lru<string, number>('t', 10, 100);
    c.set('a', 1, 30);
    c.set('b', 2, 30);
    c.set('c', 3, 30);
    c.grow('c', 30);
    expect(c.has('a')).toBe(false);
    expect(c.has('c')).toBe(true);
    expect(c.bytes).toBe(90);
    c.grow('c', 50);
    expect(c.has('c')).toBe(false);
    expect(c.bytes).toBe(30);
    c.grow('missing', 5);
    expect(c.bytes).toBe(30);
  });
});

describe('roughBytes', () => {
  it('grows with what a value holds and counts a shared object once', () => {
    const small = roughBytes({ a: 'x' });
    const big = roughBytes({ a: 'x'.repeat(10_000) });
    expect(big - small).toBeGreaterThanOrEqual(9_999);
    const shared = { s: 'y'.repeat(1000) };
    expect(roughBytes([shared, shared])).toBeLessThan(roughBytes([shared, { s: 'y'.repeat(1000) }]));
    expect(roughBytes(new Map([['k', new Uint8Array(5000)]]))).toBeGreaterThan(5000);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(roughBytes(cyclic)).toBeGreaterThan(0);
  });

  it('leaves out what it is told lives elsewhere', () => {
    const elsewhere = { big: 'z'.repeat(50_000) };
    expect(roughBytes({ ref: elsewhere }, (o) => o !== elsewhere)).toBeLessThan(1000);
  });
});
