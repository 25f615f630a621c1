// HTTP routing: /mcp (MCP over Streamable HTTP, both protocol eras), /healthz, and RFC 9728 metadata.
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { Hono, type Context } from 'hono';
import { withSchemaDrops, type DropsEnv } from './admin/drops.ts';
import { registerAdmin } from './admin/routes.ts';
import { authenticate, type Caller } from './auth/bearer.ts';
import type { LoadedCatalogue } from './catalogue/load.ts';
import { intersect, sliceOf, UnknownNamesError, validateSliceSpec, type Slice, type SliceSpec } from './catalogue/slices.ts';
import { readConfig, type Config, type Env } from './config.ts';
import { registerPage } from './page/route.ts';
import { guardHostAndOrigin } from './protocol/host-guard.ts';
import { buildServer } from './protocol/mcp-server.ts';
import { clientNameOf, inferProfile, PROFILE_IDS, profileById, type Profile } from './profiles/profiles.ts';
import { viewOf } from './profiles/view.ts';
import { serveToolsList } from './protocol/tools-list.ts';
import { SERVER_NAME, VERSION } from './version.ts';

type AppEnv = { Bindings: Env };

export function createApp(loaded: LoadedCatalogue): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Config is derived once per env object (one per isolate in production).
  const configs = new WeakMap<Env, Config>();
  const configFor = (env: Env | undefined): Config => {
    const key = env ?? {};
    let cfg = configs.get(key);
    if (!cfg) configs.set(key, (cfg = readConfig(key, loaded.catalogue.defaultUpstream, loaded.catalogue.defaultToolsets)));
    return cfg;
  };

  // One handler per isolate; it builds a cheap Server per request from the factory.
  // The request's config and caller travel in authInfo.extra, which the SDK passes through untouched.
  const mcp: McpHttpHandler = createMcpHandler(
    (ctx) => {
      const extra = ctx.authInfo?.extra as { loaded: LoadedCatalogue; caller: Caller; config: Config; slice: Slice; profile: Profile; mode: 'tools' | 'discover' } | undefined;
      if (!extra) throw new Error('mcp: request reached the handler without authentication');
      return buildServer({ loaded: extra.loaded, config: extra.config, caller: extra.caller, slice: extra.slice, profile: extra.profile, mode: extra.mode });
    },
    { onerror: (e) => console.log(JSON.stringify({ event: 'mcp_error', error: e.message })) },
  );

  app.get('/healthz', async (c) =>
    c.json({ status: 'ok', version: VERSION, catalogue: { hash: await loaded.hash(), tools: loaded.catalogue.tools.length, title: loaded.catalogue.source.title, apiVersion: loaded.catalogue.source.version } }),
  );

  // The public catalogue page (GET /) and per-tool schema JSON (src/page).
  registerPage(app, loaded, configFor);

  const protectedResource = (c: { req: { url: string } }) => {
    const origin = new URL(c.req.url).origin;
    return { resource: `${origin}/mcp`, bearer_methods_supported: ['header'], resource_name: loaded.catalogue.source.title };
  };
  app.get('/.well-known/oauth-protected-resource', (c) => c.json(protectedResource(c)));
  app.get('/.well-known/oauth-protected-resource/mcp', (c) => c.json(protectedResource(c)));

  const serveMcp = async (c: Context<AppEnv>, toolsets: string[] | undefined, discover = false): Promise<Response> => {
    const cfg = configFor(c.env);
    const rejected = guardHostAndOrigin(c.req.raw, cfg.allowedHosts);
    if (rejected) return rejected;
    // A stateless server has no stream to offer on GET; 405 tells clients not to wait for one.
    if (c.req.method === 'GET' || c.req.method === 'DELETE') {
      return c.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }, 405, { allow: 'POST' });
    }
    let requested = requestedSlice(c, toolsets);
    const unknown = unknownNames(requested);
    if (unknown) return unknown;
    const auth = await authenticate(c.req.raw, cfg, { env: c.env, waitUntil: waitUntilOf(c) });
    if (!auth.ok) return auth.response;
    // Bare /mcp with no ?tools= serves the default toolsets, unless the key is itself scoped to toolsets or
    // tools: then its scope is the natural default (a key for `gists` pasted as .../mcp should see gists).
    const { scope } = auth.caller;
    if (!requested.toolsets && !requested.tools && !scope.toolsets?.length && !scope.tools?.length && cfg.defaultToolsets) {
      requested = { ...requested, toolsets: cfg.defaultToolsets };
      const misconfigured = unknownNames(requested);
      if (misconfigured) return misconfigured;
    }
    // The catalogue as this isolate serves it: the runtime schema drop list applied (src/admin/drops.ts).
    const served = await withSchemaDrops(loaded, c.env as DropsEnv);
    const slice = sliceOf(served, intersect(requested, auth.caller.scope));
    // Client profile: ?client=, else inferred from the client's name in this message (src/profiles).
    const clientParam = c.req.query('client');
    const message = await peekJson(c.req.raw);
    const profile = clientParam ? profileById(clientParam) : inferProfile(clientNameOf(message));
    if (!profile) return c.json({ error: 'unknown_client', message: `Unknown client profile: ${clientParam}. Valid client names: ${PROFILE_IDS.join(', ')}`, unknown: [clientParam], valid: PROFILE_IDS }, 400);
    const mode = discover || c.req.query('mode') === 'discover' ? 'discover' : 'tools';
    const sdk = () => mcp.fetch(c.req.raw, { authInfo: { token: '', clientId: auth.caller.id, scopes: [], extra: { loaded: served, caller: auth.caller, config: cfg, slice, profile, mode } } });
    // tools/list from ready bytes once proven byte-equal to the SDK's answer (src/protocol/tools-list.ts).
    if (mode === 'tools') return serveToolsList(c.req.raw, message, viewOf(served, slice, profile), { name: SERVER_NAME, version: VERSION, title: served.catalogue.source.title }, sdk);
    return sdk();
  };

  app.all('/mcp', (c) => serveMcp(c, undefined));
  // Typed discovery (search_tools, describe_tool, call_tool) over the whole catalogue; ?mode=discover works on any slice.
  app.all('/mcp/discover', (c) => serveMcp(c, ['all'], true));
  // Toolsets by URL, for clients that cannot send custom headers: /mcp/x/repos+issues
  app.all('/mcp/x/:toolsets', (c) => serveMcp(c, splitList(c.req.param('toolsets'), '+')));

  // HTTP 400 listing the valid names when a slice names toolsets or tools the catalogue lacks.
  function unknownNames(spec: SliceSpec): Response | undefined {
    try {
      validateSliceSpec(loaded, spec);
      return undefined;
    } catch (error) {
      if (!(error instanceof UnknownNamesError)) throw error;
      return Response.json({ error: `unknown_${error.kind}`, message: `${error.message}. Valid ${error.kind} names: ${error.valid.join(', ')}`, unknown: error.unknown, valid: error.valid }, { status: 400 });
    }
  }

  function requestedSlice(c: Context<AppEnv>, toolsets: string[] | undefined): SliceSpec {
    const spec: SliceSpec = {};
    if (toolsets && toolsets.length) spec.toolsets = toolsets;
    const tools = c.req.query('tools');
    if (tools) spec.tools = splitList(tools, ',');
    const readonly = c.req.query('readonly');
    if (readonly === '1' || readonly === 'true') spec.readOnly = true;
    return spec;
  }

  registerAdmin(app, loaded);

  app.notFound((c) => c.json({ error: 'not_found', message: `No route for ${c.req.method} ${new URL(c.req.url).pathname}. The MCP endpoint is /mcp.` }, 404));
  app.onError((err, c) => {
    console.log(JSON.stringify({ event: 'http_error', error: err.message }));
    return c.json({ error: 'internal_error', message: 'Internal server error.' }, 500);
  });
  return app;
}

// c.executionCtx throws when the app is called without one (tests call app.fetch(request, env)).
function waitUntilOf(c: Context<AppEnv>): ((p: Promise<unknown>) => void) | undefined {
  try {
    const ctx = c.executionCtx;
    return (p) => ctx.waitUntil(p);
  } catch {
    return undefined;
  }
}

// The JSON-RPC body, read from a clone so the SDK still gets the stream; undefined when not JSON.
// Large bodies (uploads in tools/call arguments) are not peeked: they carry nothing the profile or fast path needs.
async function peekJson(req: Request): Promise<unknown> {
  if (req.method !== 'POST' || Number(req.headers.get('content-length') ?? 0) > 1_048_576) return undefined;
  try {
    return JSON.parse(await req.clone().text());
  } catch {
    return undefined;
  }
}

function splitList(raw: string, separator: string): string[] {
  return raw.split(separator).map((s) => s.trim()).filter(Boolean);
}
