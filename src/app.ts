// HTTP routes: /mcp (MCP over Streamable HTTP, both protocol eras) behind the request pipeline (src/pipeline),
// the catalogue page, /healthz, RFC 9728 metadata, the OAuth front door (src/oauth) and the operator's /admin routes.
import { Hono, type Handler } from 'hono';
import { grantAdminHandlers } from './admin/grants.ts';
import { registerAdmin } from './admin/routes.ts';
import type { LoadedCatalogue } from './catalogue/loaded-catalogue.ts';
import { log } from './lib/log.ts';
import { oauthHandlers, oauthOn } from './oauth/routes.ts';
import { pageHandlers } from './page/route.ts';
import { searchHandler } from './page/search-route.ts';
import { specDriftHealth } from './spec-drift/drift-status.ts';
import { boundedErrors } from './pipeline/bounded-errors.ts';
import { configure, cors, hostGuard, mcpPipeline, splitList } from './pipeline/steps.ts';
import type { PipelineEnv } from './pipeline/vars.ts';
import { SchemaHealth } from './schema-health/health.ts';
import { VERSION } from './version.ts';

export interface AppOptions {
  /** Code mode's declarations of this catalogue (catalog/declarations.txt); without them search answers untyped. */
  declarations?: string;
}

export function createApp(loaded: LoadedCatalogue, options: AppOptions = {}): Hono<PipelineEnv> {
  const app = new Hono<PipelineEnv>();
  const config = configure(loaded);
  const { source } = loaded.catalogue;
  // Every JSON error answer of every route, bounded (the SDK and the OAuth library quote what a client sent).
  app.use('*', boundedErrors);

  app.get('/healthz', async (c) =>
    c.json({
      status: 'ok',
      version: VERSION,
      catalogue: { hash: await loaded.hash(), tools: loaded.count, title: source.title, apiVersion: source.version },
      // The last scheduled check of the live spec against the one this catalogue was built from (src/spec-drift).
      specDrift: await specDriftHealth(loaded, c.env ?? {}),
    }),
  );

  // The public catalogue page (GET /) and per-tool schema JSON.
  const page = pageHandlers(loaded);
  app.get('/', config, hostGuard, page.home);
  app.get('/catalogue/tools/:file', config, hostGuard, page.toolJson);
  app.get('/catalogue/search', config, hostGuard, searchHandler(loaded));

  // RFC 9728 metadata and, with OAuth on, the authorization server it names (docs/oauth.md). OPTIONS routes exist
  // for CORS preflights only; without an ALLOWED_ORIGINS match they are the 404 they always were.
  const oauth = oauthHandlers(loaded);
  const notFound: Handler<PipelineEnv> = (c) => c.notFound();
  app.get('/.well-known/oauth-protected-resource', config, cors, oauth.protectedResource);
  app.get('/.well-known/oauth-protected-resource/mcp', config, cors, oauth.protectedResource);
  // Path-aware probes for a slice URL (/mcp/x/…, /mcp/discover) get the same document.
  app.get('/.well-known/oauth-protected-resource/mcp/*', config, oauthOn, cors, oauth.protectedResource);
  app.options('/.well-known/oauth-protected-resource/*', config, cors, notFound);
  app.options('/.well-known/oauth-protected-resource', config, cors, notFound);
  app.on(['GET', 'OPTIONS'], '/.well-known/oauth-authorization-server', config, oauthOn, hostGuard, cors, oauth.libraryEndpoint);
  app.on(['POST', 'OPTIONS'], ['/token', '/register'], config, oauthOn, hostGuard, cors, oauth.libraryEndpoint);
  app.on(['GET', 'POST'], '/authorize', config, oauthOn, hostGuard, oauth.authorize);
  // Back from the upstream's sign-in, an account connected on the consent page (docs/oauth.md, per-user OAuth).
  app.get('/authorize/upstream', config, oauthOn, hostGuard, oauth.upstreamCallback);

  // This isolate's schema health of the catalogue: the MCP routes report to it, /admin/schema-health reads it.
  const health = new SchemaHealth(loaded);
  const mcp = mcpPipeline(loaded, config, health, options.declarations);
  app.all('/mcp', ...mcp(() => ({})));
  // Typed discovery (search_tools, describe_tool, call_tool) over the whole catalogue; ?mode=discover works on any slice.
  app.all('/mcp/discover', ...mcp(() => ({ toolsets: ['all'], mode: 'discover' })));
  // Code mode (search, execute) over the whole catalogue; ?mode=code works on any slice.
  app.all('/mcp/code', ...mcp(() => ({ toolsets: ['all'], mode: 'code' })));
  // Toolsets by URL, for clients that cannot send custom headers: /mcp/x/repos+issues
  app.all('/mcp/x/:toolsets', ...mcp((c) => ({ toolsets: splitList(c.req.param('toolsets') ?? '', '+') })));

  // Every /admin route: one gate (src/admin/guard.ts), the Host/Origin guard and ADMIN_TOKEN, before the route.
  registerAdmin(app, loaded, config, health);
  const grants = grantAdminHandlers(loaded);
  app.get('/admin/grants', oauthOn, grants.list);
  app.delete('/admin/grants/:id', oauthOn, grants.revoke);

  app.notFound((c) => c.json({ error: 'not_found', message: `No route for ${c.req.method} ${new URL(c.req.url).pathname}. The MCP endpoint is /mcp.` }, 404));
  app.onError((err, c) => {
    log('http_error', { error: err.message });
    return c.json({ error: 'internal_error', message: 'Internal server error.' }, 500);
  });
  return app;
}
