// The OAuth front door's HTTP handlers, mounted by src/app.ts behind the config, host-guard and CORS steps:
//   GET  /.well-known/oauth-protected-resource[/mcp…]  RFC 9728, naming this origin as authorization server (OAuth on)
//   GET  /.well-known/oauth-authorization-server        RFC 8414  } the library (authorization-server.ts)
//   POST /token, POST /register                          }
//   GET|POST /authorize                                  the consent page (consent-route.ts)
// With OAuth off, or on an origin the library cannot serve (plain http off loopback), the OAuth routes are the app's
// 404 and the resource metadata is exactly what a bearer-only deployment serves.
import type { Context, Handler, MiddlewareHandler } from 'hono';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { PipelineEnv } from '../pipeline/vars.ts';
import { authorizationServers, RESOURCE_PATH } from './authorization-server.ts';
import { handleAuthorize } from './consent-route.ts';

export interface OAuthHandlers {
  /** RFC 9728 protected resource metadata for /mcp and every path under it. */
  protectedResource: Handler<PipelineEnv>;
  /** Authorization server metadata, /token and /register, answered by the library. */
  libraryEndpoint: Handler<PipelineEnv>;
  authorize: Handler<PipelineEnv>;
}

/** Lets a request through only while OAuth is on; otherwise it is the app's 404, as if the route did not exist. */
export const oauthOn: MiddlewareHandler<PipelineEnv> = async (c, next) => {
  if (!c.var.oauth.enabled) return c.notFound();
  await next();
};

export function oauthHandlers(loaded: LoadedCatalogue): OAuthHandlers {
  const servers = authorizationServers(loaded);
  const serverFor = (c: Context<PipelineEnv>) => (c.var.oauth.enabled ? servers.for(new URL(c.req.url).origin, c.var.oauth) : undefined);

  return {
    protectedResource: (c) => {
      const origin = new URL(c.req.url).origin;
      const metadata: Record<string, unknown> = { resource: origin + RESOURCE_PATH, bearer_methods_supported: ['header'], resource_name: loaded.catalogue.source.title };
      if (serverFor(c)) metadata.authorization_servers = [origin];
      return c.json(metadata);
    },
    libraryEndpoint: (c) => {
      const server = serverFor(c);
      if (!server) return c.notFound();
      return server.fetch(c.req.raw, c.env ?? {}, executionContextOf(c));
    },
    authorize: (c) => {
      const server = serverFor(c);
      if (!server) return c.notFound();
      const env = c.env ?? {};
      const ctx = executionContextOf(c);
      return handleAuthorize(c.req.raw, { oauth: server.getOAuthApi(env), loaded, config: c.var.config, settings: c.var.oauth, env, waitUntil: (p) => ctx.waitUntil(p) });
    },
  };
}

// The app may run without an execution context (tests call app.fetch(request, env)); background work then just runs.
function executionContextOf(c: Context<PipelineEnv>): ExecutionContext {
  try {
    return c.executionCtx as ExecutionContext;
  } catch {
    return { waitUntil: (p: Promise<unknown>) => void p.catch(() => undefined), passThroughOnException: () => undefined, props: {} } as unknown as ExecutionContext;
  }
}
