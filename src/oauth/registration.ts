// POST /register (RFC 7591) in front of the library: anyone with the URL may register, and every registration is
// stored, so it is limited per client IP (OAUTH_REGISTER_RATE), bounded in size (client-metadata.ts, checked in the
// library's clientRegistrationCallback) and stored for a day until first used (the `registration` server's
// lifetime; the library renews a client to the full lifetime at its first token answer).
import { readRequestBody } from '@modelcontextprotocol/server';
import type { Env } from '../config.ts';
import { clientIp, countFromIp } from './attempts.ts';
import { CLIENT_REGISTRATION_TTL, type OriginServers } from './authorization-server.ts';
import { MAX_REGISTRATION_BYTES } from './client-metadata.ts';
import { oauthError } from './oauth-error.ts';
import type { OAuthSettings } from './settings.ts';

export async function handleRegister(request: Request, servers: OriginServers, settings: OAuthSettings, env: Env, ctx: ExecutionContext): Promise<Response> {
  if (request.method !== 'POST') return servers.main.fetch(request, env, ctx);
  const counted = await countFromIp(env.KEY_RATE_LIMITER, 'register', clientIp(request, settings.clientAddress), settings.registerRate);
  if (!counted.ok) {
    if ('unavailable' in counted) return oauthError(503, 'temporarily_unavailable', 'Registration is unavailable right now. Try again in a minute.', { 'retry-after': '60' });
    return oauthError(429, 'rate_limited', `Too many client registrations from your network. Try again in ${counted.retryAfter} s.`, { 'retry-after': String(counted.retryAfter) });
  }
  const read = await readRequestBody(request, MAX_REGISTRATION_BYTES).catch(() => undefined);
  if (!read) return oauthError(400, 'invalid_request', 'The registration body could not be read.');
  if (read.tooLarge) return oauthError(413, 'invalid_client_metadata', `A registration may be at most ${MAX_REGISTRATION_BYTES} bytes.`);
  const headers = new Headers(request.headers);
  headers.delete('content-length');
  const answer = await servers.registration.fetch(new Request(request.url, { method: 'POST', headers, body: read.text }), env, ctx);
  return answer.status === 201 ? withUsedLifetime(answer) : answer;
}

/**
 * The registration server stamps a secret's expiry with the unused lifetime; a client that uses its registration
 * keeps it for the full lifetime, and that is what it plans by (public clients get no secret and no stamp).
 */
async function withUsedLifetime(answer: Response): Promise<Response> {
  const body = (await answer.json()) as Record<string, unknown>;
  if (typeof body.client_secret_expires_at === 'number' && body.client_secret_expires_at > 0 && typeof body.client_id_issued_at === 'number') {
    body.client_secret_expires_at = body.client_id_issued_at + CLIENT_REGISTRATION_TTL;
  }
  const headers = new Headers(answer.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(body), { status: answer.status, headers });
}
