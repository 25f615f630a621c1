// The API key pasted on the consent page: checked by the very bearer check /mcp uses (so "a key the consent page
// accepts" and "a key /mcp accepts" cannot drift apart), summarised for the customer without revealing it, and
// remembered between the two consent steps by reference only, server-side, keyed by the consent handle's hash.
import { authenticate } from '../auth/bearer.ts';
import { formatRate, type KeyRecord } from '../auth/keys-core.ts';
import type { Config, Env } from '../config.ts';
import { sha256Hex } from '../lib/bytes.ts';
import { isKeyRef, type KeyRef } from './grant.ts';
import type { KeySummary } from './consent-view.ts';

export type PastedKey = { ok: true; ref: KeyRef; record?: KeyRecord } | { ok: false; status: number; message: string };

const NOT_ACCEPTED = 'That API key was not accepted. Check that you pasted all of it, and that it has not been revoked or expired.';

export async function checkPastedKey(pasted: string, url: string, config: Config, env: Env, waitUntil?: (p: Promise<unknown>) => void): Promise<PastedKey> {
  const key = pasted.trim();
  if (!key) return { ok: false, status: 400, message: 'Paste your API key to continue.' };
  let probe: Request;
  try {
    probe = new Request(url, { headers: { authorization: `Bearer ${key}` } });
  } catch {
    // Characters no header can carry; the error text would quote the key, so it is dropped.
    return { ok: false, status: 403, message: NOT_ACCEPTED };
  }
  const outcome = await authenticate(probe, config, { env, ...(waitUntil ? { waitUntil } : {}) });
  if (!outcome.ok) {
    const { status } = outcome.response;
    // 429 (the key's own rate), 403 (no upstream credential) and 500 carry texts written for customers, quoting no key.
    const description = status === 401 ? undefined : await descriptionOf(outcome.response);
    return { ok: false, status: status === 401 ? 403 : status, message: description ?? NOT_ACCEPTED };
  }
  // The same check /mcp makes has named the key; only a key is remembered, never passthrough's bare token.
  if (!outcome.key) return { ok: false, status: 403, message: NOT_ACCEPTED };
  return { ok: true, ref: outcome.key.ref, ...(outcome.key.record ? { record: outcome.key.record } : {}) };
}

/** What the review step says about a key: its owner, scope, rate and expiry. Never the key or its hint. */
export function summarise(ref: KeyRef, record: KeyRecord | undefined): KeySummary {
  if (!record) return { owner: 'Operator key', id: ref.id, facts: ['every toolset and tool', 'no rate limit'] };
  const facts = [record.toolsets?.length ? `toolsets ${record.toolsets.join(', ')}` : 'every toolset'];
  if (record.tools?.length) facts.push(`only the tools ${record.tools.length > 12 ? `${record.tools.slice(0, 12).join(', ')} and ${record.tools.length - 12} more` : record.tools.join(', ')}`);
  if (record.readOnly) facts.push('read-only tools only');
  facts.push(record.rate ? `at most ${formatRate(record.rate)}` : 'no rate limit');
  facts.push(record.expiresAt ? `expires ${record.expiresAt.slice(0, 10)}` : 'does not expire');
  return { owner: record.customer.name, id: record.id, facts };
}

const PENDING_PREFIX = 'consent-key:';
/** The library's consent transaction lifetime: a reference never outlives the handle it belongs to. */
const PENDING_TTL_SECONDS = 600;

/** Who a consent authorizes: an API key, or (OAUTH_SIGN_IN=key-or-account) the upstream account it connected. */
export type ConsentWho = KeyRef | 'account';

export async function rememberKey(kv: KVNamespace, handle: string, who: ConsentWho): Promise<void> {
  await kv.put(PENDING_PREFIX + (await sha256Hex(handle)), JSON.stringify(who), { expirationTtl: PENDING_TTL_SECONDS });
}

export async function recallKey(kv: KVNamespace, handle: string): Promise<ConsentWho | undefined> {
  if (!handle) return undefined;
  const value: unknown = await kv.get(PENDING_PREFIX + (await sha256Hex(handle)), { type: 'json' });
  return isKeyRef(value) || value === 'account' ? value : undefined;
}

export async function forgetKey(kv: KVNamespace, handle: string): Promise<void> {
  if (handle) await kv.delete(PENDING_PREFIX + (await sha256Hex(handle)));
}

async function descriptionOf(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.json()) as { error_description?: unknown };
    return typeof body.error_description === 'string' ? body.error_description : undefined;
  } catch {
    return undefined;
  }
}
