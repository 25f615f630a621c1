// Who a request runs as, and what authentication answers: shared by the static-key check (bearer.ts), the OAuth
// resource check (src/oauth/resource-auth.ts) and the consent page's key probe.
import type { SliceSpec } from '../catalogue/slices.ts';
import type { Env } from '../config.ts';
import type { KeyRecord, Rate } from './keys-core.ts';
import type { CallerCredentials } from './upstream-security.ts';

export interface Caller {
  /** Stable, non-secret id for logs: "key:<public id>" for customer keys, "key:<8 hex>" for API_KEY, or "passthrough". */
  id: string;
  /** Customer the key belongs to (customer keys only). */
  customerId?: string;
  /** What this key may use; intersected with the slice the URL asks for. Empty spec = everything. */
  scope: SliceSpec;
  /** What the caller brings for the upstream (per CREDENTIAL_MODE); each call places it as its tool's security says. */
  upstream: CallerCredentials;
  /** The presented key and upstream credentials: redacted from tool results (src/auth/redact.ts). Never log. */
  secrets?: string[];
  /** The key's rate limit, for counting more than the HTTP request (each api call of a code-mode execute). */
  rate?: { key: string; rate: Rate };
}

/** The API key a caller authenticated with: a KEYS record, or the operator key API_KEY. Never the key itself. */
export interface KeyRef {
  kind: 'record' | 'operator';
  /** SHA-256 hex of the key (the record's `hash`, or of API_KEY). */
  hash: string;
  /** Public id: the record id, or the first 8 hex of the operator key's hash (as in logs). */
  id: string;
}

/**
 * A refusal, or the caller; `key` names the API key behind it (absent in passthrough mode), with its record.
 * `rateLimitedKey` is the caller id of a known key its rate limit refused (the pipeline meters it).
 */
export type AuthOutcome =
  | { ok: true; caller: Caller; key?: { ref: KeyRef; record?: KeyRecord } }
  | { ok: false; response: Response; rateLimitedKey?: string };

export interface AuthContext {
  /** Worker bindings and secrets (KEYS, KEY_RATE_LIMITER, UPSTREAM_TOKEN, CREDENTIAL_ENCRYPTION_KEY). */
  env?: Env;
  /** ctx.waitUntil when available; background work (last-used day) must not delay the response. */
  waitUntil?: (p: Promise<unknown>) => void;
}
