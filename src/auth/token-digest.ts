// The SHA-256 of a presented bearer, remembered per isolate: a client sends the same key with every request, and
// hashing it is a measurable share of a tools/call's CPU (docs/benchmarks.md). Keyed by the token itself: a Map finds
// a string by its whole value, so a lookup reveals nothing about a near miss, and what it remembers is only what the
// caller sent. Bounded (oldest out first); never enumerated, logged or returned: only the digest leaves.
import { sha256 } from '../lib/bytes.ts';

const digests = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();
const MAX_TOKENS = 256;

export function tokenDigest(token: string): Promise<Uint8Array<ArrayBuffer>> {
  let digest = digests.get(token);
  if (!digest) {
    if (digests.size >= MAX_TOKENS) digests.delete(digests.keys().next().value!);
    digest = sha256(token);
    digests.set(token, digest);
  }
  return digest;
}
