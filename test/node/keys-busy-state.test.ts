// The keys CLI retries a wrangler command when the local state is busy (scripts/keys/kv.ts, BUSY_STATE): these are
// the forms a running `wrangler dev` holding the same SQLite files gives a CLI read, as seen under load.
import { describe, expect, it } from 'vitest';
import { BUSY_STATE } from '../../scripts/keys/kv.ts';

describe('busy local state', () => {
  it('recognises the lock in every form it reaches the CLI', () => {
    for (const seen of [
      'wrangler kv key list failed (1): ERROR] internal error; reference = r7sstb10bu45q9aa4fme7ivf',
      '✘ [ERROR] KV GET failed: 500 Internal Server Error',
      'Error: database is locked: SQLITE_BUSY',
      'Network connection lost.',
    ]) expect(seen, seen).toMatch(BUSY_STATE);
  });

  it('leaves real failures alone: a missing key, a bad argument, a missing table', () => {
    for (const seen of ['Value not found', 'ERROR] Not enough non-option arguments', 'no such table: usage_meta: SQLITE_ERROR', 'KV PUT failed: 413 Payload Too Large']) expect(seen, seen).not.toMatch(BUSY_STATE);
  });
});
