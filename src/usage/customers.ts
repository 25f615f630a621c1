// Who a usage row's key belongs to. Usage rows keep only the caller's public id; the customer's name comes from the
// key records' metadata when a report is read (revoked and expired keys keep their records, so their names stay).

/** A key record as KV lists it: `key:<hash>` with metadata { id, customer, … } (src/auth/keys-core.ts writes it). */
export interface KeyListing {
  name: string;
  metadata?: unknown;
}

/** Caller id (`key:<public id>`) → customer name, from listed key records. */
export function customerNames(listings: Iterable<KeyListing>): Map<string, string> {
  const names = new Map<string, string>();
  for (const l of listings) {
    const md = l.metadata as { id?: unknown; customer?: unknown } | null | undefined;
    if (typeof md?.id === 'string' && typeof md.customer === 'string') names.set(`key:${md.id}`, md.customer);
  }
  return names;
}

/**
 * The name a report shows for a caller id: the customer's, or what the id is when it is no customer key (the
 * deployment's own API_KEY has an 8-hex id; passthrough callers bring their own upstream tokens).
 */
export function customerOf(keyId: string, names: ReadonlyMap<string, string>): string {
  const name = names.get(keyId);
  if (name !== undefined) return name;
  if (keyId === 'passthrough') return '(callers’ own upstream tokens)';
  if (/^key:[0-9a-f]{8}$/.test(keyId)) return '(API_KEY, the deployment’s own key)';
  return '(unknown key: no record)';
}
