// The OAuth front door's HTTP handlers, mounted by src/app.ts behind the config, host-guard and CORS steps:
//   GET  /.well-known/oauth-protected-resource[/mcp…]  RFC 9728, naming this origin as authorization server (OAuth on)
//   GET  /.well-known/oauth-authorization-server        RFC 8414, the library's, advertising what registration takes
//   POST /token                                          the library behind token-endpoint.ts
//   POST /register                                       the library behind registration.ts
//   GET|POST /authorize                                  the consent page (consent-route.ts)
//   GET  /authorize/upstream                             back from the upstream, an account connected (consent-route.ts)
// With OAuth off, or on an origin the library cannot serve (plain http off loopback), the OAuth routes are the app's
// 404 and the resource metadata is exactly what a bearer-only deployment serves. The library itself is loaded by
// the first of these requests that needs it (src/oauth-library.ts); the resource metadata never does.
import type { Context, Handler, MiddlewareHandler } from 'hono';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { PipelineEnv } from '../pipeline/vars.ts';
import { authorizationServers, REGISTER_PATH, RESOURCE_PATH, servable, TOKEN_PATH, type OriginServers } from './authorization-server.ts';
import { handleAuthorize, handleUpstreamCallback, type ConsentDeps } from './consent-route.ts';
import { handleRegister } from './registration.ts';
import { handleToken } from './token-endpoint.ts';
import { withGrantCleanup } from './upstream-store.ts';

export interface OAuthHandlers {
  /** RFC 9728 protected resource metadata for /mcp and every path under it. */
  protectedResource: Handler<PipelineEnv>;
  /** Authorization server metadata, /token and /register, answered by the library. */
  libraryEndpoint: Handler<PipelineEnv>;
  authorize: Handler<PipelineEnv>;
  upstreamCallback: Handler<PipelineEnv>;
}

/** Lets a request through only while OAuth is on; otherwise it is the app's 404, as if the route did not exist. */
export const oauthOn: MiddlewareHandler<PipelineEnv> = async (c, next) => {
  if (!c.var.oauth.enabled) return c.notFound();
  await next();
};

export function oauthHandlers(loaded: LoadedCatalogue): OAuthHandlers {
  const servers = authorizationServers(loaded);
  const serversFor = (c: Context<PipelineEnv>): Promise<OriginServers | undefined> =>
    c.var.oauth.enabled ? servers.for(new URL(c.req.url).origin, c.var.oauth) : Promise.resolve(undefined);
  const consentDeps = async (c: Context<PipelineEnv>): Promise<ConsentDeps | undefined> => {
    const origin = await serversFor(c);
    if (!origin) return undefined;
    // A new grant replaces the client's earlier one: the library revokes it, and its account's tokens go with it.
    const env = withGrantCleanup(c.env ?? {});
    const ctx = executionContextOf(c);
    return { lib: origin.lib, oauth: origin.main.getOAuthApi(env), loaded, config: c.var.config, settings: c.var.oauth, env, waitUntil: (p) => ctx.waitUntil(p) };
  };

  return {
    protectedResource: (c) => {
      const origin = new URL(c.req.url).origin;
      const metadata: Record<string, unknown> = { resource: origin + RESOURCE_PATH, bearer_methods_supported: ['header'], resource_name: loaded.catalogue.source.title };
      if (c.var.oauth.enabled && servable(origin)) metadata.authorization_servers = [origin];
      return c.json(metadata);
    },
    libraryEndpoint: async (c) => {
      const origin = await serversFor(c);
      if (!origin) return c.notFound();
      // Every revocation the library makes also deletes the grant's connected-account tokens.
      const env = withGrantCleanup(c.env ?? {});
      const ctx = executionContextOf(c);
      const path = new URL(c.req.url).pathname;
      if (path === TOKEN_PATH) return handleToken(c.req.raw, { servers: origin, settings: c.var.oauth, env, ctx });
      if (path === REGISTER_PATH) return handleRegister(c.req.raw, origin, c.var.oauth, env, ctx);
      const answer = await origin.main.fetch(c.req.raw, env, ctx);
      return c.req.method === 'GET' && answer.ok ? registrableMetadata(answer) : answer;
    },
    authorize: async (c) => {
      const deps = await consentDeps(c);
      return deps ? handleAuthorize(c.req.raw, deps) : c.notFound();
    },
    upstreamCallback: async (c) => {
      const deps = await consentDeps(c);
      return deps ? handleUpstreamCallback(c.req.raw, deps) : c.notFound();
    },
  };
}

/**
 * The library adds `private_key_jwt` (and its signing algorithms) to the metadata when Client ID Metadata Documents
 * are on, for CIMD clients whose document offers it; registration refuses the method. A client reads the metadata
 * to choose how to register, so it lists what registration accepts (a CIMD client offering `none` as well, as
 * ChatGPT's does, uses that).
 */
async function registrableMetadata(answer: Response): Promise<Response> {
  const metadata = (await answer.json()) as Record<string, unknown>;
  if (Array.isArray(metadata.token_endpoint_auth_methods_supported)) {
    metadata.token_endpoint_auth_methods_supported = metadata.token_endpoint_auth_methods_supported.filter((m) => m !== 'private_key_jwt');
    delete metadata.token_endpoint_auth_signing_alg_values_supported;
  }
  const headers = new Headers(answer.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(metadata), { status: answer.status, headers });
}

// The app may run without an execution context (tests call app.fetch(request, env)); background work then just runs.
function executionContextOf(c: Context<PipelineEnv>): ExecutionContext {
  try {
    return c.executionCtx as ExecutionContext;
  } catch {
    return { waitUntil: (p: Promise<unknown>) => void p.catch(() => undefined), passThroughOnException: () => undefined, props: {} } as unknown as ExecutionContext;
  }
}
