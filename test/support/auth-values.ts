// The credentials test/support/auth-upstream.ts accepts, free of Node imports so workerd tests can read them.

/** The credentials the upstream accepts, per scheme of secured-api.json. */
export const AUTH_VALUES = {
  headerKey: 'hk-7d1c5e2a9b',
  queryKey: 'qk-4f8e1a6c3d',
  cookieKey: 'ck-2b9d7f4e1a',
  basicAuth: 'alice:s3cret-pa55',
  bearerAuth: 'bt-9a8b7c6d5e',
  tokenAuth: 'tt-1f2e3d4c5b',
} as const;

/** A client's secret is `secret-<client id>`: the token endpoints check it. */
export const clientSecretOf = (clientId: string) => `secret-${clientId}`;

/** User tokens the `userCode` scheme accepts (a passthrough caller's own, or one given as "Bearer …"). */
export const USER_TOKEN = 'user-token-5c4b3a2d1e';
