// The OAuth library (@cloudflare/workers-oauth-provider, about 240 KiB) stays out of the Worker script: wrangler
// uploads it as a module of its own (wrangler.toml: find_additional_modules and the ESModule rule for
// oauth-provider.js, a symlink to the package's single-file build) and this import loads it on the first OAuth
// request, so an isolate serving only static keys never compiles it. At run time a dynamic import is resolved
// against the bundle's root module (index.js), which is why this file sits beside src/index.ts. Everywhere else the
// package may be imported for types only: a value import would bundle a second copy (test/node/worker-bundle.test.ts).
export type OAuthLibrary = typeof import('./oauth-provider.js');

let loading: Promise<OAuthLibrary> | undefined;

export function oauthLibrary(): Promise<OAuthLibrary> {
  loading ??= import('./oauth-provider.js').catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
