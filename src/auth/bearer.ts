// Bearer authentication for /mcp. For now one operator key (API_KEY); the KV key system replaces it.
import type { SliceSpec } from '../catalogue/slices.ts';
import type { Config } from '../config.ts';

export interface Caller {
  /** Stable, non-secret id for logs ("key:<first 8 hex of sha256>" or "passthrough"). */
  id: string;
  /** What this key may use; intersected with the slice the URL asks for. Empty spec = everything. */
  scope: SliceSpec;
  /** Headers to send upstream on the caller's behalf (passthrough mode only). */
  upstreamHeaders: Record<string, string>;
}

export type AuthOutcome = { ok: true; caller: Caller } | { ok: false; response: Response };

const BEARER = /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i;

export async function authenticate(request: Request, config: Config): Promise<AuthOutcome> {
  const header = request.headers.get('authorization');
  if (!header) return refuse(request, 'missing_token', 'Send your API key as "Authorization: Bearer <key>".');
  const match = BEARER.exec(header);
  const token = match?.[1];
  if (!token) return refuse(request, 'invalid_request', 'The Authorization header must be "Bearer <key>".');

  if (config.credentialMode === 'passthrough') {
    // The upstream is the authority: it sees the caller's own token and answers 401 itself if it is wrong.
    return { ok: true, caller: { id: 'passthrough', scope: {}, upstreamHeaders: { authorization: `Bearer ${token}` } } };
  }
  if (!config.apiKey) return refuse(request, 'invalid_token', 'This server has no API key configured.');
  const [given, expected] = await Promise.all([sha256(token), sha256(config.apiKey)]);
  // Compare digests in constant time so response timing says nothing about how much of a key matched.
  if (!crypto.subtle.timingSafeEqual(given, expected)) {
    return refuse(request, 'invalid_token', 'The API key is not valid.');
  }
  return { ok: true, caller: { id: `key:${hex(given).slice(0, 8)}`, scope: {}, upstreamHeaders: {} } };
}

export function resourceMetadataUrl(request: Request): string {
  return `${new URL(request.url).origin}/.well-known/oauth-protected-resource`;
}

function refuse(request: Request, error: string, description: string): AuthOutcome {
  const challenge = `Bearer realm="mcp", error="${error}", error_description="${description.replace(/"/g, "'")}", resource_metadata="${resourceMetadataUrl(request)}"`;
  return {
    ok: false,
    response: new Response(JSON.stringify({ error, error_description: description }), {
      status: 401,
      headers: { 'content-type': 'application/json', 'www-authenticate': challenge, 'cache-control': 'no-store' },
    }),
  };
}

async function sha256(text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
}

function hex(buf: ArrayBuffer): string {
  return [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
