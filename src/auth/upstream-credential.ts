// What a caller brings for the upstream (CREDENTIAL_MODE, docs/keys.md, docs/upstream-auth.md): nothing of its own
// (key), the operator secret UPSTREAM_TOKEN (gateway), or what is stored encrypted in the caller's key record
// (customer: one credential, and credentials by scheme name). The operator's UPSTREAM_CREDENTIALS apply in every mode;
// which of them a call sends is decided per tool (src/auth/upstream-security.ts).
// Secrets discipline: a credential never goes into a log line, an error text or a response.
import type { Config, Env } from '../config.ts';
import { log } from '../lib/log.ts';
import { authJson } from './challenge.ts';
import { decryptSecret, importEncryptionKey, NAMED_CREDENTIALS_CONTEXT, type KeyRecord } from './keys-core.ts';
import type { CallerCredentials } from './upstream-security.ts';

export type UpstreamOutcome = { ok: true; upstream: CallerCredentials; secrets: string[] } | { ok: false; response: Response };

const NO_CREDENTIAL: UpstreamOutcome = { ok: true, upstream: {}, secrets: [] };

/** The operator key: gateway (and customer, when set) send UPSTREAM_TOKEN; key mode sends nothing of its own. */
export function operatorUpstream(config: Config, env: Env): UpstreamOutcome {
  if (config.credentialMode === 'gateway') return gatewayUpstream(config, env);
  if (config.credentialMode === 'customer' && env.UPSTREAM_TOKEN) return single(config, env.UPSTREAM_TOKEN);
  return NO_CREDENTIAL;
}

export async function customerUpstream(config: Config, env: Env, record: KeyRecord): Promise<UpstreamOutcome> {
  if (config.credentialMode === 'gateway') return gatewayUpstream(config, env);
  if (config.credentialMode !== 'customer') return NO_CREDENTIAL;
  if (!record.upstreamCredential && !record.upstreamCredentials) {
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
    const upstream: CallerCredentials = {};
    const secrets: string[] = [];
    if (record.upstreamCredential) {
      const one = single(config, await decryptSecret(key, record.upstreamCredential, record.hash));
      Object.assign(upstream, one.upstream);
      secrets.push(...one.secrets);
    }
    if (record.upstreamCredentials) {
      const named = JSON.parse(await decryptSecret(key, record.upstreamCredentials, record.hash, NAMED_CREDENTIALS_CONTEXT)) as Record<string, string>;
      upstream.named = named;
      secrets.push(...Object.values(named));
    }
    return { ok: true, upstream, secrets };
  } catch {
    // Wrong CREDENTIAL_ENCRYPTION_KEY or a tampered record. The error object may quote key material; log only the fact.
    log('config_error', { key: record.id, error: 'upstream credential could not be decrypted' });
    return { ok: false, response: serverError() };
  }
}

/** Passthrough: the caller's own token, placed as each operation's scheme says. */
export function passthroughUpstream(token: string): UpstreamOutcome & { ok: true } {
  return { ok: true, upstream: { single: token }, secrets: [token] };
}

function gatewayUpstream(config: Config, env: Env): UpstreamOutcome {
  if (!env.UPSTREAM_TOKEN) {
    // With credentials by scheme the gateway needs no single token.
    if (Object.keys(config.upstreamCredentials).length) return NO_CREDENTIAL;
    log('config_error', { error: 'CREDENTIAL_MODE=gateway needs the secret UPSTREAM_TOKEN (or UPSTREAM_CREDENTIALS)' });
    return { ok: false, response: serverError() };
  }
  return single(config, env.UPSTREAM_TOKEN);
}

function single(config: Config, credential: string): UpstreamOutcome & { ok: true } {
  const upstream: CallerCredentials = { single: credential };
  if (config.upstreamAuthHeader) upstream.singleHeader = config.upstreamAuthHeader;
  return { ok: true, upstream, secrets: [credential] };
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
