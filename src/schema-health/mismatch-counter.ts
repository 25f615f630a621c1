// The fleet-wide count of output-schema mismatches: one Durable Object (named "schema-drops") per deployment.
//
// Why a Durable Object: isolates each see a fraction of the traffic and are recycled, so per-isolate counts may never
// reach a threshold and are lost with the isolate; KV has no atomic increment, is eventually consistent and allows
// about one write per second per key, so concurrent counts would be lost. One object counts exactly, and it is also
// the single writer of automatic drops to the KV list, so two tools dropped at once cannot overwrite each other.
// Cost: one call per mismatch, and mismatches stop once the tool is dropped (the isolate applies the drop at once).
// The window is kept in the object's storage, so an eviction does not reset it.
import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../config.ts';
import type { DropEntry } from './drop-list.ts';
import { autoDropEntry, commitAutoDrop, countMismatch, type AutoDropSettings, type Mismatch } from './mismatch-window.ts';

export interface MismatchReport {
  /** Mismatches of the tool inside the window after this one (0 once dropped). */
  count: number;
  /** Set when this mismatch reached the threshold: the entry now on the drop list. */
  dropped?: DropEntry;
}

export class SchemaMismatchCounter extends DurableObject<Env> {
  async report(tool: string, error: string, settings: AutoDropSettings): Promise<MismatchReport> {
    const key = `window:${tool}`;
    const now = Date.now();
    const { window, reached } = countMismatch((await this.ctx.storage.get<Mismatch[]>(key)) ?? [], { at: now, error }, settings);
    if (!reached) {
      await this.ctx.storage.put(key, window);
      return { count: window.length };
    }
    // Counting starts afresh, so after `npm run schema -- restore` the tool needs a full window again.
    await this.ctx.storage.delete(key);
    const entry = autoDropEntry(window, settings, now);
    // KV calls let other requests in; blocking them keeps the read-add-write of the list whole.
    await this.ctx.blockConcurrencyWhile(() => commitAutoDrop(this.env, tool, entry, 'durable_object'));
    return { count: 0, dropped: entry };
  }
}

/** The one counter of a deployment. */
export function mismatchCounter(ns: DurableObjectNamespace): DurableObjectStub<SchemaMismatchCounter> {
  return ns.get(ns.idFromName('schema-drops')) as DurableObjectStub<SchemaMismatchCounter>;
}
