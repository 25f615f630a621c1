// `keys update`: change a key's rate limit, scope or expiry in place, so a customer keeps the key they deployed.
// The key itself and its hash never change; only the record (and its list metadata) is rewritten.
import { formatRate, isKeyRecord, matchKeys, metadataOf, RECORD_PREFIX, type KeyMetadata, type KeyRecord, type Rate } from '../../src/auth/keys-core.ts';
import type { WranglerKv } from './kv.ts';

/** A mistake in what the operator asked for; the CLI prints it with exit status 2. */
export class KeyCommandError extends Error {}

/** The record a key id, a unique prefix of one, or a key hint names. */
export async function findKey(kv: WranglerKv, idOrPrefix: string): Promise<{ name: string; record: KeyRecord }> {
  if (idOrPrefix.length < 4) throw new KeyCommandError('give at least 4 characters of the key id');
  const entries = await kv.list(RECORD_PREFIX);
  const matches = matchKeys(entries as Array<{ name: string; metadata?: Partial<KeyMetadata> | null }>, idOrPrefix);
  if (matches.length === 0) throw new KeyCommandError(`no key matches "${idOrPrefix}" (npm run keys -- list --all)`);
  if (matches.length > 1) throw new KeyCommandError(`"${idOrPrefix}" matches ${matches.length} keys; give more of the id`);
  const name = matches[0]!;
  const raw = await kv.get(name);
  const record: unknown = raw === null ? null : JSON.parse(raw);
  if (!isKeyRecord(record)) throw new Error(`the record for ${name.slice(0, RECORD_PREFIX.length + 12)} is missing or invalid`);
  return { name, record };
}

/** What `update` changes; `null` removes the setting (no rate limit, all toolsets, all tools, no expiry). */
export interface KeyChanges {
  rate?: Rate | null;
  toolsets?: string[] | null;
  tools?: string[] | null;
  readOnly?: boolean;
  expiresAt?: string | null;
}

/** Applies the changes to a copy of the record; returns it with one line per changed setting ("rate: none → 5/min"). */
export function applyChanges(r: KeyRecord, changes: KeyChanges): { record: KeyRecord; lines: string[] } {
  const next: KeyRecord = { ...r };
  const lines: string[] = [];
  const note = (what: string, before: string, after: string) => {
    if (before !== after) lines.push(`${what}: ${before} → ${after}`);
  };
  const list = (v?: string[]) => (v ? v.join(', ') : 'all');
  if (changes.rate !== undefined) {
    note('rate', r.rate ? formatRate(r.rate) : 'none', changes.rate ? formatRate(changes.rate) : 'none');
    if (changes.rate) next.rate = changes.rate;
    else delete next.rate;
  }
  if (changes.toolsets !== undefined) {
    note('toolsets', list(r.toolsets), list(changes.toolsets ?? undefined));
    if (changes.toolsets) next.toolsets = changes.toolsets;
    else delete next.toolsets;
  }
  if (changes.tools !== undefined) {
    note('tools', list(r.tools), list(changes.tools ?? undefined));
    if (changes.tools) next.tools = changes.tools;
    else delete next.tools;
  }
  if (changes.readOnly !== undefined) {
    note('read-only', r.readOnly ? 'yes' : 'no', changes.readOnly ? 'yes' : 'no');
    next.readOnly = changes.readOnly;
  }
  if (changes.expiresAt !== undefined) {
    note('expires', r.expiresAt ?? 'never', changes.expiresAt ?? 'never');
    if (changes.expiresAt) next.expiresAt = changes.expiresAt;
    else delete next.expiresAt;
  }
  return { record: next, lines };
}

/** Rewrites the key's record; returns what the operator is told. */
export async function updateKey(kv: WranglerKv, idOrPrefix: string, changes: KeyChanges): Promise<string> {
  if (Object.values(changes).every((v) => v === undefined)) {
    throw new KeyCommandError('update needs at least one of --rate, --toolsets, --tools, --readonly/--no-readonly, --expires');
  }
  const { name, record } = await findKey(kv, idOrPrefix);
  if (record.revokedAt) throw new KeyCommandError(`${record.id} (${record.customer.name}) was revoked at ${record.revokedAt}; issue a new key instead`);
  const { record: next, lines } = applyChanges(record, changes);
  if (!lines.length) return `${record.id} (${record.customer.name}): nothing to change`;
  await kv.put(name, JSON.stringify(next), metadataOf(next));
  const delay = kv.target.remote
    ? 'Running isolates apply it within about 90 s (KV propagation plus the per-isolate cache; docs/keys.md).'
    : 'A running wrangler dev applies it within KEY_CACHE_TTL_SECONDS (30 s by default).';
  return `updated ${record.id} (${record.customer.name}); the key itself is unchanged\n${lines.map((l) => `  ${l}`).join('\n')}\n${delay}`;
}
