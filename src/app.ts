// HTTP routes: /mcp (MCP over Streamable HTTP, both protocol eras) behind the request pipeline (src/pipeline),
// the catalogue page, /healthz, RFC 9728 metadata and the operator's /admin routes.
import { Hono } from 'hono';
import { registerAdmin } from './admin/routes.ts';
import type { LoadedCatalogue } from './catalogue/loaded-catalogue.ts';
import { log } from './lib/log.ts';
import { pageHandlers } from './page/route.ts';
import { configure, hostGuard, mcpPipeline, splitList } from './pipeline/steps.ts';
import type { PipelineEnv } from './pipeline/vars.ts';
import { VERSION } from './version.ts';

export function createApp(loaded: LoadedCatalogue): Hono<PipelineEnv> {
  const app = new Hono<PipelineEnv>();
  const config = configure(loaded);
  const { source } = loaded.catalogue;

  app.get('/healthz', async (c) => c.json({ status: 'ok', version: VERSION, catalogue: { hash: await loaded.hash(), tools: loaded.count, title: source.title, apiVersion: source.version } }));

  // The public catalogue page (GET /) and per-tool schema JSON.
  const page = pageHandlers(loaded);
  app.get('/', config, hostGuard, page.home);
  app.get('/catalogue/tools/:file', config, hostGuard, page.toolJson);

  const protectedResource = (url: string) => ({ resource: `${new URL(url).origin}/mcp`, bearer_methods_supported: ['header'], resource_name: source.title });
  app.get('/.well-known/oauth-protected-resource', (c) => c.json(protectedResource(c.req.url)));
  app.get('/.well-known/oauth-protected-resource/mcp', (c) => c.json(protectedResource(c.req.url)));

  const mcp = mcpPipeline(loaded, config);
  app.all('/mcp', ...mcp(() => ({})));
  // Typed discovery (search_tools, describe_tool, call_tool) over the whole catalogue; ?mode=discover works on any slice.
  app.all('/mcp/discover', ...mcp(() => ({ toolsets: ['all'], mode: 'discover' })));
  // Toolsets by URL, for clients that cannot send custom headers: /mcp/x/repos+issues
  app.all('/mcp/x/:toolsets', ...mcp((c) => ({ toolsets: splitList(c.req.param('toolsets') ?? '', '+') })));

  registerAdmin(app, loaded);

  app.notFound((c) => c.json({ error: 'not_found', message: `No route for ${c.req.method} ${new URL(c.req.url).pathname}. The MCP endpoint is /mcp.` }, 404));
  app.onError((err, c) => {
    log('http_error', { error: err.message });
    return c.json({ error: 'internal_error', message: 'Internal server error.' }, 500);
  });
  return app;
}
