// The client profile carried between 2025-era requests without server state (docs/slices-profiles-discovery.md,
// "Profiles across requests"). Those clients name themselves only in initialize; the answer to it carries a
// self-contained, signed Mcp-Session-Id that names the profile, and the client echoes it on every later request.
//
//   mcp1.<profile>.<nonce>.<mac>    nonce: 12 random bytes; mac: HMAC-SHA256(SESSION_SECRET, "mcp1.<profile>.<nonce>"),
//                                   first 16 bytes; both base64url. Visible ASCII, as the transport requires.
//
// It names a profile and nothing secret, and grants nothing (?client= selects any profile too). The signature means
// only ids this deployment issued are read: anything else (tampered, foreign, expired secret) is ignored, and the
// profile falls back to inference, so a bad id never breaks a client.
import { base64ToBytes, bytesToBase64Url, timingSafeEqual } from '../lib/bytes.ts';
import { profileById, type Profile } from './profiles.ts';

/**
 * The key when SESSION_SECRET is unset (npm start, tests). Public, so ids it signs prove nothing beyond being
 * well-formed; production sets its own: `openssl rand -base64 32 | npx wrangler secret put SESSION_SECRET`.
 */
export const LOCAL_SESSION_SECRET = 'mcp-catalogue-local-session-secret';
const VERSION = 'mcp1';
const MAC_BYTES = 16;

const keys = new Map<string, Promise<CryptoKey>>();

function keyFor(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    keys.set(secret, key);
  }
  return key;
}

async function mac(secret: string, payload: string): Promise<Uint8Array> {
  const sig = await crypto.subtle.sign('HMAC', await keyFor(secret), new TextEncoder().encode(payload));
  return new Uint8Array(sig).subarray(0, MAC_BYTES);
}

/** A new session id naming `profile`, signed with `secret` (LOCAL_SESSION_SECRET when unset). */
export async function issueSessionId(profile: Profile, secret = LOCAL_SESSION_SECRET): Promise<string> {
  const payload = `${VERSION}.${profile.id}.${bytesToBase64Url(crypto.getRandomValues(new Uint8Array(12)))}`;
  return `${payload}.${bytesToBase64Url(await mac(secret, payload))}`;
}

/**
 * Ids this isolate has verified, for the secret they were verified with: a client sends the same id with every
 * request, and its HMAC is a measurable share of a tools/call's CPU. Only valid ids are kept (an invalid one is
 * checked again each time, so nobody can fill this with junk cheaply); bounded, oldest out first.
 */
const verified = { secret: '', ids: new Map<string, Profile>() };
const VERIFIED_MAX = 1024;

/** The profile a session id this deployment issued names; undefined for anything else. Never throws. */
export async function profileFromSessionId(id: string | null | undefined, secret = LOCAL_SESSION_SECRET): Promise<Profile | undefined> {
  if (!id || id.length > 200) return undefined;
  if (verified.secret !== secret) [verified.secret, verified.ids] = [secret, new Map()];
  const known = verified.ids.get(id);
  if (known) return known;
  const parts = id.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION || !/^[A-Za-z0-9_-]{16}$/.test(parts[2]!) || !/^[A-Za-z0-9_-]{22}$/.test(parts[3]!)) return undefined;
  const profile = profileById(parts[1]!);
  if (!profile || profile.id !== parts[1]) return undefined;
  const expected = await mac(secret, parts.slice(0, 3).join('.'));
  if (!timingSafeEqual(expected, base64ToBytes(parts[3]!))) return undefined;
  if (verified.ids.size >= VERIFIED_MAX) verified.ids.delete(verified.ids.keys().next().value!);
  verified.ids.set(id, profile);
  return profile;
}
