// A least-recently-used cache bounded by entry count and by bytes, for every per-isolate cache whose key a client
// can choose (docs/architecture.md, "Per-isolate caches"). Sizes are the owner's estimate of what an entry holds, and
// an entry may grow after it was stored (a profile view builds its listing on first use): `grow` charges it, and the
// least recently used entries make room. An entry bigger than the whole budget is not kept at all.
// Hand-written (a Map keeps insertion order, so this is short): lru-cache would add ~40 KB to a bundle whose
// startup compile is at its target, and has no way to charge an entry that grows after it was stored.

export interface LruStats {
  name: string;
  entries: number;
  bytes: number;
  maxEntries: number;
  maxBytes: number;
  evictions: number;
}

export class Lru<K, V> {
  readonly name: string;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  /** Insertion order is recency order: the first entry is the least recently used. */
  private readonly map = new Map<K, { value: V; bytes: number }>();
  private total = 0;
  private evicted = 0;

  constructor(name: string, maxEntries: number, maxBytes: number) {
    this.name = name;
    this.maxEntries = Math.max(1, maxEntries);
    this.maxBytes = Math.max(1, maxBytes);
  }

  get(key: K): V | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    this.map.delete(key);
    this.map.set(key, e);
    return e.value;
  }

  /** The entry without making it recently used. */
  peek(key: K): V | undefined {
    return this.map.get(key)?.value;
  }

  /** The bytes an entry is charged, or undefined when it is not cached. */
  bytesOf(key: K): number | undefined {
    return this.map.get(key)?.bytes;
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  /** Stores `value` as the most recently used entry, evicting others to stay within both bounds. */
  set(key: K, value: V, bytes: number): void {
    this.delete(key);
    if (bytes > this.maxBytes) return;
    this.map.set(key, { value, bytes });
    this.total += bytes;
    this.trim(key);
  }

  /** Adds `bytes` to an entry that grew; it is dropped (not kept over budget) when it alone exceeds the budget. */
  grow(key: K, bytes: number): void {
    const e = this.map.get(key);
    if (!e || bytes <= 0) return;
    e.bytes += bytes;
    this.total += bytes;
    if (e.bytes > this.maxBytes) {
      this.delete(key);
      this.evicted++;
      return;
    }
    this.trim(key);
  }

  delete(key: K): boolean {
    const e = this.map.get(key);
    if (!e) return false;
    this.map.delete(key);
    this.total -= e.bytes;
    return true;
  }

  clear(): void {
    this.map.clear();
    this.total = 0;
  }

  get size(): number {
    return this.map.size;
  }

  get bytes(): number {
    return this.total;
  }

  stats(): LruStats {
    return { name: this.name, entries: this.map.size, bytes: this.total, maxEntries: this.maxEntries, maxBytes: this.maxBytes, evictions: this.evicted };
  }

  /** Evicts least recently used entries (never `keep`) until both bounds hold. */
  private trim(keep: K): void {
    for (const [k, e] of this.map) {
      if (this.map.size <= this.maxEntries && this.total <= this.maxBytes) return;
      if (k === keep) continue;
      this.map.delete(k);
      this.total -= e.bytes;
      this.evicted++;
    }
  }
}

/**
 * A rough size of a value in the isolate's heap, from one walk over it (an object reached twice is counted once):
 * enough to keep a cache within its budget, not an exact figure. `owned(o)` false: an object that lives elsewhere
 * anyway (a catalogue tool a listing points at), so neither it nor what it holds is counted.
 */
export function roughBytes(value: unknown, owned: (o: object) => boolean = () => true): number {
  const seen = new Set<object>();
  const stack: unknown[] = [value];
  let total = 0;
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') total += 16 + v.length;
    else if (typeof v === 'number') total += 8;
    else if (typeof v === 'function') total += 64;
    else if (v !== null && typeof v === 'object') {
      if (seen.has(v) || !owned(v)) continue;
      seen.add(v);
      if (ArrayBuffer.isView(v)) total += 64 + v.byteLength;
      else if (v instanceof ArrayBuffer) total += 64 + v.byteLength;
      else if (v instanceof Map) {
        total += 48 + 24 * v.size;
        for (const [k, x] of v) stack.push(k, x);
      } else if (v instanceof Set) {
        total += 48 + 16 * v.size;
        for (const x of v) stack.push(x);
      } else if (Array.isArray(v)) {
        total += 16 + 8 * v.length;
        for (const x of v) stack.push(x);
      } else {
        // Property names are interned, so an object costs its header and one slot per property.
        const values = Object.values(v);
        total += 24 + 8 * values.length;
        for (const x of values) stack.push(x);
      }
    }
  }
  return total;
}
