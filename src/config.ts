// Worker configuration, read from wrangler vars and secrets.

export interface Env {
  UPSTREAM_URL?: string;
  CREDENTIAL_MODE?: string;
  API_KEY?: string;
  ALLOWED_HOSTS?: string;
  DEFAULT_TOOLSETS?: string;
  UPSTREAM_TIMEOUT_MS?: string;
  MAX_RESPONSE_BYTES?: string;
  MAX_RESULT_TOKENS?: string;
}

export type CredentialMode = 'key' | 'passthrough';

export interface Config {
  upstreamUrl: string;
  credentialMode: CredentialMode;
  apiKey: string | undefined;
  allowedHosts: string[];
  /** Toolsets served at bare /mcp; undefined = the whole catalogue. */
  defaultToolsets: string[] | undefined;
  timeoutMs: number;
  maxResponseBytes: number;
  maxResultTokens: number;
}

export function readConfig(env: Env, defaultUpstream: string): Config {
  const mode = (env.CREDENTIAL_MODE ?? 'key').trim() || 'key';
  if (mode !== 'key' && mode !== 'passthrough') {
    throw new Error(`CREDENTIAL_MODE must be "key" or "passthrough", got "${mode}"`);
  }
  return {
    upstreamUrl: (env.UPSTREAM_URL ?? '').trim() || defaultUpstream,
    credentialMode: mode,
    apiKey: env.API_KEY || undefined,
    allowedHosts: list(env.ALLOWED_HOSTS)?.map((h) => h.toLowerCase()) ?? [],
    defaultToolsets: list(env.DEFAULT_TOOLSETS),
    timeoutMs: positiveInt(env.UPSTREAM_TIMEOUT_MS, 30_000),
    maxResponseBytes: positiveInt(env.MAX_RESPONSE_BYTES, 10 * 1024 * 1024),
    maxResultTokens: positiveInt(env.MAX_RESULT_TOKENS, 25_000),
  };
}

function positiveInt(raw: string | undefined, fallback: number): number {
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

function list(raw: string | undefined): string[] | undefined {
  const items = (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return items.length ? items : undefined;
}
