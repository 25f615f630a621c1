// What an OAuth grant made on the consent page carries. The library encrypts `props` with a key only the token
// holder can unwrap; they name the API key by its record hash and public id, never the key itself, plus the
// narrowing the customer chose, and, when the user connected their upstream account, the key that opens its tokens
// (src/oauth/upstream-store.ts). A customer-mode upstream credential is not copied here: it stays sealed in the
// key record and is decrypted per request, exactly as for the static key.
import type { KeyRef } from '../auth/caller.ts';
import type { SliceSpec } from '../catalogue/slices.ts';

export type { KeyRef };

export interface GrantProps {
  v: 1;
  /** The API key it was made from; absent for a grant a connected upstream account alone made (OAUTH_SIGN_IN=key-or-account). */
  key?: KeyRef;
  /** The customer's narrowing on the consent page; intersected with the key's own scope on every request. */
  scope: SliceSpec;
  /** The connected upstream account: the schemes it holds tokens for, and the grant's own key to them (base64url). */
  upstream?: { schemes: string[]; seal: string };
}

/** The owner of every grant made without a key: a connected account alone. */
export const ACCOUNT_OWNER = 'accounts';

/** Grant owner in the library's storage (`grant:<userId>:<grantId>`): the key's public id, so grants list per key. */
export function grantUserId(key: KeyRef | undefined): string {
  if (!key) return ACCOUNT_OWNER;
  return key.kind === 'operator' ? `operator-${key.id}` : key.id;
}

export function isKeyRef(x: unknown): x is KeyRef {
  const k = x as Partial<KeyRef> | undefined;
  return !!k && typeof k === 'object' && (k.kind === 'record' || k.kind === 'operator') && typeof k.hash === 'string' && /^[0-9a-f]{64}$/.test(k.hash) && typeof k.id === 'string';
}

export function isGrantProps(x: unknown): x is GrantProps {
  if (!x || typeof x !== 'object') return false;
  const p = x as Partial<GrantProps>;
  const s = p.scope as Partial<SliceSpec> | undefined;
  const names = (a: unknown) => a === undefined || (Array.isArray(a) && a.every((v) => typeof v === 'string'));
  const u = p.upstream;
  const upstream = u === undefined || (!!u && typeof u === 'object' && /^[A-Za-z0-9_-]{43}$/.test(u.seal) && Array.isArray(u.schemes) && u.schemes.every((n) => typeof n === 'string'));
  return (
    p.v === 1 &&
    (p.key === undefined ? u !== undefined : isKeyRef(p.key)) &&
    upstream &&
    !!s &&
    typeof s === 'object' &&
    names(s.toolsets) &&
    names(s.tools) &&
    (s.readOnly === undefined || typeof s.readOnly === 'boolean')
  );
}

/**
 * The grant's OAuth scope strings, mirroring the narrowing for clients and `keys list`: `toolset:<name>` per
 * chosen toolset (none = every toolset the key allows) and `read-only`. The props stay authoritative.
 */
export function scopeTokens(spec: SliceSpec): string[] {
  const tokens = (spec.toolsets ?? []).map((t) => `toolset:${t}`);
  if (spec.readOnly) tokens.push('read-only');
  return tokens;
}

/**
 * The narrowing an access token's own scope strings express (the inverse of scopeTokens): a client may ask /token
 * for a token narrower than its grant (RFC 6749 §6), and that token is held to it. Undefined when it names nothing.
 */
export function narrowingOf(scopes: readonly string[]): SliceSpec | undefined {
  const toolsets = scopes.filter((s) => s.startsWith('toolset:')).map((s) => s.slice('toolset:'.length));
  const readOnly = scopes.includes('read-only');
  if (!toolsets.length && !readOnly) return undefined;
  return { ...(toolsets.length ? { toolsets } : {}), ...(readOnly ? { readOnly } : {}) };
}

/** Every scope a grant can carry for a catalogue with these toolsets (the server's `scopes_supported`). */
export function scopesFor(toolsets: string[]): string[] {
  return ['read-only', ...toolsets.map((t) => `toolset:${t}`)];
}
