// DNS-rebinding protection: a browser page on an attacker's domain must not reach a local server.
// Loopback names and the operator's ALLOWED_HOSTS pass; *.workers.dev passes because Cloudflare only
// routes a worker's own workers.dev hostname to it. A browser origin the operator listed in ALLOWED_ORIGINS
// (src/pipeline/cors.ts) passes the Origin check too; its Host must still be one of ours.
import { localhostAllowedHostnames, localhostAllowedOrigins, originValidationResponse, validateHostHeader } from '@modelcontextprotocol/server';
import { isAllowedOrigin } from './cors.ts';

/**
 * Host headers that passed, per ALLOWED_HOSTS list, for requests without an Origin (servers and CLIs): the same few
 * hosts arrive on every request, and checking one parses two URLs. Only passing hosts are kept; bounded.
 */
const passed = { allowed: undefined as readonly string[] | undefined, hosts: new Set<string>() };
const PASSED_MAX = 64;

export function guardHostAndOrigin(request: Request, allowedHosts: string[], allowedOrigins: readonly string[] = []): Response | undefined {
  // Requests built in-process (service bindings, tests) may carry no Host header; their URL holds the host.
  const hostHeader = request.headers.get('host') ?? new URL(request.url).host;
  const origin = request.headers.get('origin');
  if (passed.allowed !== allowedHosts) [passed.allowed, passed.hosts] = [allowedHosts, new Set()];
  if (origin === null && passed.hosts.has(hostHeader)) return undefined;
  const rejected = check(request, hostHeader, allowedHosts, allowedOrigins);
  if (!rejected && origin === null && passed.hosts.size < PASSED_MAX) passed.hosts.add(hostHeader);
  return rejected;
}

function check(request: Request, hostHeader: string, allowedHosts: string[], allowedOrigins: readonly string[]): Response | undefined {
  const host = hostnameOf(hostHeader);
  const extra = [...allowedHosts];
  if (host && host.endsWith('.workers.dev')) extra.push(host);
  const hostCheck = validateHostHeader(hostHeader, [...localhostAllowedHostnames(), ...extra]);
  if (!hostCheck.ok) return forbidden(`Host not allowed: ${host ?? 'invalid'}. Add it to ALLOWED_HOSTS.`);
  if (isAllowedOrigin(request.headers.get('origin'), allowedOrigins)) return undefined;
  return originValidationResponse(request, [...localhostAllowedOrigins(), ...extra]);
}

function forbidden(message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }), {
    status: 403,
    headers: { 'content-type': 'application/json' },
  });
}

function hostnameOf(hostHeader: string): string | undefined {
  try {
    return new URL(`http://${hostHeader}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}
