// What the upstream sees on a caller's behalf (CREDENTIAL_MODE, docs/keys.md): nothing (key), the operator secret
// UPSTREAM_TOKEN (gateway), or the credential stored encrypted in the caller's key record (customer).
// Secrets discipline: a credential never goes into a log line, an error text or a response.
import type { Config, Env } from '../config.ts';
import { log } from '../lib/log.ts';
import { authJson } from './challenge.ts';
import { decryptSecret, importEncryptionKey, type KeyRecord } from './keys-core.ts';

export type UpstreamOutcome = { ok: true; headers: Record<string, string>; secrets: string[] } | { ok: false; response: Response };

const NO_CREDENTIAL: UpstreamOutcome = { ok: true, headers: {}, secrets: [] };

/** The operator key: gateway (and customer, when set) send UPSTREAM_TOKEN; key mode sends nothing. */
export function operatorUpstream(config: Config, env: Env): UpstreamOutcome {
  if (config.credentialMode === 'gateway') return gatewayUpstream(config, env);
  if (config.credentialMode === 'customer' && env.UPSTREAM_TOKEN) return withCredential(config, env.UPSTREAM_TOKEN);
  return NO_CREDENTIAL;
}

export async function customerUpstream(config: Config, env: Env, record: KeyRecord): Promise<UpstreamOutcome> {
  if (config.credentialMode === 'gateway') return gatewayUpstream(config, env);
  if (config.credentialMode !== 'customer') return NO_CREDENTIAL;
  if (!record.upstreamCredential) {
    log('auth_refused', { key: record.id, reason: 'no_upstream_credential' });
    return {
      ok: false,
      response: authJson(403, { error: 'no_upstream_credential', error_description: 'This key has no upstream credential stored. Ask the operator to re-issue it with one.' }),
    };
  }
  if (!env.CREDENTIAL_ENCRYPTION_KEY) {
    log('config_error', { error: 'CREDENTIAL_MODE=customer needs the secret CREDENTIAL_ENCRYPTION_KEY' });
    return { ok: false, response: serverError() };
  }
  try {
    const key = await encryptionKey(env.CREDENTIAL_ENCRYPTION_KEY);
    return withCredential(config, await decryptSecret(key, record.upstreamCredential, record.hash));
  } catch {
    // Wrong CREDENTIAL_ENCRYPTION_KEY or a tampered record. The error object may quote key material; log only the fact.
    log('config_error', { key: record.id, error: 'upstream credential could not be decrypted' });
    return { ok: false, response: serverError() };
  }
}

function gatewayUpstream(config: Config, env: Env): UpstreamOutcome {
  if (!env.UPSTREAM_TOKEN) {
    log('config_error', { error: 'CREDENTIAL_MODE=gateway needs the secret UPSTREAM_TOKEN' });
    return { ok: false, response: serverError() };
  }
  return withCredential(config, env.UPSTREAM_TOKEN);
}

function withCredential(config: Config, credential: string): UpstreamOutcome {
  const headers = { [config.upstreamAuthHeader]: config.upstreamAuthHeader === 'authorization' ? `Bearer ${credential}` : credential };
  return { ok: true, headers, secrets: [credential] };
}

// Per-isolate cache of the imported AES key (never logged).
let aes: { secret: string; key: Promise<CryptoKey> } | undefined;
function encryptionKey(secret: string): Promise<CryptoKey> {
  if (aes?.secret !== secret) {
    const key = importEncryptionKey(secret);
    aes = { secret, key };
    key.catch(() => (aes = undefined));
  }
  return aes.key;
}

function serverError(): Response {
  return authJson(500, { error: 'server_misconfigured', error_description: 'The server cannot reach its upstream credentials. The operator has been told in the logs.' });
}
