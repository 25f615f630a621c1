// The deployment's record of answered confirmations: one Durable Object per caller binding (key, grant's key, or
// passthrough credential), so a replayed requestState is refused wherever it arrives. Storage holds each nonce until
// its state expires; an alarm clears the expired ones. Worker-only (the stdio server keeps the isolate ledger).
import { DurableObject } from 'cloudflare:workers';
import type { ConfirmLedger } from './scope.ts';

/** Keys deleted per storage call (the storage API takes at most 128). */
const DELETE_BATCH = 128;

export class ConfirmationLedger extends DurableObject {
  /** True the first time: the nonce is recorded until `expiresAt`. Input gates keep the read and the write together. */
  async consume(nonce: string, expiresAt: number): Promise<boolean> {
    const key = `n:${nonce}`;
    if ((await this.ctx.storage.get<number>(key)) !== undefined) return false;
    await this.ctx.storage.put(key, expiresAt);
    const alarm = await this.ctx.storage.getAlarm();
    if (alarm === null || alarm > expiresAt) await this.ctx.storage.setAlarm(expiresAt + 1000);
    return true;
  }

  override async alarm(): Promise<void> {
    const now = Date.now();
    const dead: string[] = [];
    let next: number | undefined;
    for (const [key, expiresAt] of await this.ctx.storage.list<number>({ prefix: 'n:' })) {
      if (expiresAt <= now) dead.push(key);
      else next = Math.min(next ?? expiresAt, expiresAt);
    }
    for (let i = 0; i < dead.length; i += DELETE_BATCH) await this.ctx.storage.delete(dead.slice(i, i + DELETE_BATCH));
    if (next !== undefined) await this.ctx.storage.setAlarm(next + 1000);
  }
}

/** The ledger of a deployment that binds CONFIRM_LEDGER. */
export function durableLedger(ns: DurableObjectNamespace): ConfirmLedger {
  return {
    consume: (binding, nonce, expiresAt) => (ns.get(ns.idFromName(binding)) as DurableObjectStub<ConfirmationLedger>).consume(nonce, expiresAt),
  };
}
