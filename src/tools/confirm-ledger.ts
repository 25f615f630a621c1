// Each confirmation answers one call: its state's nonce is recorded when the retry is answered, and a state whose
// nonce is recorded already is refused (docs/confirmation.md, "Replays"). The Durable Object ledger
// (confirm-ledger-object.ts, the CONFIRM_LEDGER binding) records them for the whole deployment; without it, this
// isolate's own record refuses a replay that reaches the same isolate, and the 10-minute expiry bounds the rest.
import { Lru } from '../lib/lru.ts';
import type { ConfirmLedger } from './scope.ts';

/** Nonces answered in this isolate: a bounded record (an evicted one could be replayed until its state expires). */
const used = new Lru<string, number>('confirmations answered', 20_000, 4 * 1024 * 1024);

export const isolateLedger: ConfirmLedger = {
  async consume(binding, nonce, expiresAt) {
    const key = `${binding} ${nonce}`;
    const seen = used.get(key);
    if (seen !== undefined && seen > Date.now()) return false;
    used.set(key, expiresAt, 64 + 2 * key.length);
    return true;
  },
};
