// The one reader of `Authorization: Bearer <token>` (RFC 6750 §2.1), for /mcp, the consent page's key probe and
// /admin. A token is any run of visible ASCII: the operator's API_KEY may have any format, issued keys are
// mcp_live_/mcp_test_ plus letters and digits, and the OAuth library's access tokens are <userId>:<grantId>:<secret>.

export type BearerHeader = { kind: 'missing' } | { kind: 'malformed' } | { kind: 'token'; token: string };

const BEARER = /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i;

export function parseBearer(header: string | null | undefined): BearerHeader {
  if (header === null || header === undefined || header === '') return { kind: 'missing' };
  const token = BEARER.exec(header)?.[1];
  return token ? { kind: 'token', token } : { kind: 'malformed' };
}

/**
 * Whether a bearer token has the OAuth library's token shape, `<userId>:<grantId>:<secret>`, each part non-empty and
 * short enough to key the library's KV lookup (a KV key is at most 512 bytes: a 600-character part made /mcp answer
 * 500 before authentication). A longer token is then refused as a malformed key.
 */
export function hasOAuthTokenShape(token: string): boolean {
  const parts = token.split(':');
  return parts.length === 3 && parts.every((p) => p.length > 0 && p.length <= MAX_TOKEN_PART_CHARS);
}

const MAX_TOKEN_PART_CHARS = 150;
