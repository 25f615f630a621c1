// What tools/list says about upstream credentials: a tool whose security this caller cannot meet stays listed (the
// key's scope decides visibility), with one line saying which credential it needs and that this server lacks it; its
// call is refused the same way (src/auth/upstream-security.ts). A catalogue without security schemes gets no notes,
// and its listings are exactly the same objects as before.
import { availabilityKey, unavailableNote } from '../auth/upstream-security.ts';
import type { Config } from '../config.ts';
import type { ListingNotes } from '../profiles/view.ts';
import type { RequestScope } from './scope.ts';

// One notes object per (deployment, availability): views are cached by its key, so this only saves the closures.
const made = new WeakMap<Config, Map<string, ListingNotes>>();
const MAX_VARIANTS = 64;

/** The listing notes for this request's caller, or undefined when the catalogue declares no security. */
export function listingNotes(scope: RequestScope): ListingNotes | undefined {
  const security = scope.catalogue.catalogue.security;
  const { config, caller } = scope;
  if (!security || config.upstreamSecurity === 'ignore') return undefined;
  const key = availabilityKey(caller.upstream, config);
  let byKey = made.get(config);
  if (!byKey) made.set(config, (byKey = new Map()));
  let notes = byKey.get(key);
  if (!notes) {
    if (byKey.size >= MAX_VARIANTS) byKey.clear();
    const has = caller.upstream;
    notes = { key, note: (tool) => unavailableNote(security, tool, has, config) };
    byKey.set(key, notes);
  }
  return notes;
}
