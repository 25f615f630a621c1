// An OAuth error answer of our own, in the library's shape (RFC 6749 §5.2, RFC 7591 §3.2.2), for the refusals the
// wrappers around /token and /register make before or after the library.
export function oauthError(status: number, error: string, description: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error, error_description: description }, { status, headers: { 'cache-control': 'no-store', pragma: 'no-cache', ...headers } });
}
