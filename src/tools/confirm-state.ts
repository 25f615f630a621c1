// The requestState of a confirmation (docs/confirmation.md): sealed with AES-256-GCM under a key derived from the
// deployment's SESSION_SECRET, so the client holds an opaque string it can neither read nor forge. The call it
// confirms (tool, arguments as validated, who calls, and the upstream) is the additional authenticated data: a state
// opens only for the same call by the same key or grant to the same API, so it needs no copy of them. Inside: a
// nonce (each state answers one call: src/tools/confirm-ledger.ts) and the expiry.
//
//   c1.<base64url(iv(12) || ciphertext || tag(16))>      plaintext: {"n": <nonce>, "e": <expiry, ms>}
//
// WebCrypto, not the SDK's createRequestStateCodec: that one signs (HMAC) a readable payload, and a state that binds
// arguments should not hand them back readable to whoever holds it.
import { canonicalJson } from '../spec-drift/spec-document.ts';
import { base64ToBytes, bytesToBase64Url, sha256Hex } from '../lib/bytes.ts';

const PREFIX = 'c1.';
const IV_BYTES = 12;
/** How long a confirmation stays good: long enough for a person to read and answer, short enough to not linger. */
export const CONFIRM_TTL_MS = 10 * 60 * 1000;
/** States longer than this are refused unread (a real one is about 90 characters). */
const MAX_STATE_CHARS = 512;

export interface OpenedState {
  nonce: string;
  expiresAt: number;
}

/** Why a state did not open; each is answered differently (src/tools/confirm.ts). */
export class ConfirmStateError extends Error {
  readonly reason: 'invalid' | 'expired' | 'used';
  constructor(reason: 'invalid' | 'expired' | 'used', message: string) {
    super(message);
    this.reason = reason;
  }
}

const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();
/** Without SESSION_SECRET: a key of this isolate's own, so no state can be forged (a retry that reaches another isolate is refused). */
let isolateSecret: string | undefined;

function keyFor(secret: string | undefined): Promise<CryptoKey> {
  const material = secret ?? (isolateSecret ??= bytesToBase64Url(crypto.getRandomValues(new Uint8Array(32))));
  let key = keys.get(material);
  if (!key) {
    key = crypto.subtle
      .importKey('raw', encoder.encode(material), 'HKDF', false, ['deriveKey'])
      .then((ikm) =>
        crypto.subtle.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt: encoder.encode('mcp-catalogue'), info: encoder.encode('confirm-state c1 aes-256-gcm') }, ikm, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']),
      );
    // One or two secrets per deployment; a rotated one leaves its key behind until the isolate ends.
    if (keys.size >= 4) keys.clear();
    keys.set(material, key);
  }
  return key;
}

/**
 * What a state is bound to: the tool, its arguments as validated, who calls (the caller's binding), and the API the
 * call goes to (the upstream URL), so a deployment sharing SESSION_SECRET and keys (staging beside production) cannot
 * hand its confirmations to another.
 */
export async function boundCall(toolName: string, args: Record<string, unknown>, callerBinding: string, upstreamUrl: string): Promise<string> {
  return `c1\u0000${toolName}\u0000${await sha256Hex(canonicalJson(args))}\u0000${callerBinding}\u0000${upstreamUrl}`;
}

export async function sealState(secret: string | undefined, bound: string, now = Date.now()): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const plain: OpenedState = { nonce: bytesToBase64Url(crypto.getRandomValues(new Uint8Array(16))), expiresAt: now + CONFIRM_TTL_MS };
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(bound) }, await keyFor(secret), encoder.encode(JSON.stringify({ n: plain.nonce, e: plain.expiresAt })));
  const out = new Uint8Array(IV_BYTES + sealed.byteLength);
  out.set(iv);
  out.set(new Uint8Array(sealed), IV_BYTES);
  return PREFIX + bytesToBase64Url(out);
}

/** Opens a state for the call `bound` names; throws ConfirmStateError when it was altered, made for another call or expired. */
export async function openState(secret: string | undefined, bound: string, state: string, now = Date.now()): Promise<OpenedState> {
  const invalid = () => new ConfirmStateError('invalid', 'Invalid requestState: it is not one this server issued for this tool, these arguments and this key. Call the tool again without requestState to be asked again.');
  if (state.length > MAX_STATE_CHARS || !state.startsWith(PREFIX)) throw invalid();
  let plain: ArrayBuffer;
  try {
    const bytes = base64ToBytes(state.slice(PREFIX.length));
    if (bytes.length < IV_BYTES + 16) throw invalid();
    plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: bytes.subarray(0, IV_BYTES), additionalData: encoder.encode(bound) }, await keyFor(secret), bytes.subarray(IV_BYTES));
  } catch {
    throw invalid();
  }
  const { n, e } = JSON.parse(new TextDecoder().decode(plain)) as { n: string; e: number };
  if (!(e > now)) throw new ConfirmStateError('expired', `Expired requestState: a confirmation holds for ${CONFIRM_TTL_MS / 60_000} minutes. Call the tool again without requestState to be asked again.`);
  return { nonce: n, expiresAt: e };
}
