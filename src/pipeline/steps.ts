// The MCP request pipeline as Hono middleware. Each step decides one thing, sets it on c.var (src/pipeline/vars.ts)
// or answers the request itself; the last step assembles the RequestScope and hands it to the MCP dispatcher.
// Order: configure, host guard, stateless methods, URL slice, auth, served catalogue, slice, body, profile, serve.
// The body is read only after auth, so an unauthenticated request never makes the Worker read its body.
import { DEFAULT_MAX_REQUEST_BODY_SIZE, isJsonContentType, readRequestBody } from '@modelcontextprotocol/server';
import type { Context, MiddlewareHandler } from 'hono';
import { authenticate } from '../auth/bearer.ts';
import { assetShards } from '../catalogue/asset-shards.ts';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import { withSchemaDrops } from '../catalogue/schema-drops.ts';
import { intersect, sliceOf, UnknownNamesError, validateSliceSpec, type SliceSpec } from '../catalogue/slices.ts';
import { readConfig, type Config, type Env } from '../config.ts';
import { clientNameOf, inferProfile, PROFILE_IDS, profileById } from '../profiles/profiles.ts';
import { serveMcp } from '../protocol/dispatch.ts';
import type { EndpointMode } from '../tools/scope.ts';
import { guardHostAndOrigin } from './host-guard.ts';
import { loadShards } from './shards.ts';
import type { PipelineEnv } from './vars.ts';

type Step = MiddlewareHandler<PipelineEnv>;

/** What an MCP route's URL selects before the query string: toolsets by path, and the endpoint mode. */
interface RouteSelection {
  toolsets?: string[];
  mode?: EndpointMode;
}

/** Sets c.var.config; the Config is derived once per env object (one per isolate in production). */
export function configure(loaded: LoadedCatalogue): Step {
  const configs = new WeakMap<Env, Config>();
  return async (c, next) => {
    const env = c.env ?? {};
    let config = configs.get(env);
    if (!config) {
      configs.set(env, (config = readConfig(env, loaded.catalogue.defaultUpstream, loaded.catalogue.defaultToolsets)));
      if (loaded.sharded && env.ASSETS) loaded.useShards(assetShards(env.ASSETS));
    }
    c.set('config', config);
    await next();
  };
}

/** DNS-rebinding protection (src/pipeline/host-guard.ts): 403 unless Host and Origin are allowed. */
export const hostGuard: Step = async (c, next) => {
  const rejected = guardHostAndOrigin(c.req.raw, c.var.config.allowedHosts);
  if (rejected) return rejected;
  await next();
};

/** A stateless server has no stream to offer on GET and no session to end on DELETE; 405 tells clients not to wait. */
const statelessMethods: Step = async (c, next) => {
  if (c.req.method === 'GET' || c.req.method === 'DELETE') {
    return c.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }, 405, { allow: 'POST' });
  }
  await next();
};

/**
 * The MCP routes' pipeline over one catalogue. The returned function gives one route's steps, in order, ending with
 * the handler that serves the request; `select` reads what the route's path selects.
 */
export function mcpPipeline(loaded: LoadedCatalogue, config: Step): (select: (c: Context<PipelineEnv>) => RouteSelection) => [Step, ...Step[]] {
  /** HTTP 400 listing the valid names when a slice names toolsets or tools the catalogue lacks. */
  const unknownNames = (spec: SliceSpec): Response | undefined => {
    try {
      validateSliceSpec(loaded, spec);
      return undefined;
    } catch (error) {
      if (!(error instanceof UnknownNamesError)) throw error;
      return Response.json({ error: `unknown_${error.kind}`, message: `${error.message}. Valid ${error.kind} names: ${error.valid.join(', ')}`, unknown: error.unknown, valid: error.valid }, { status: 400 });
    }
  };

  /** What the URL asks for: path toolsets, ?tools=, ?readonly=, ?mode=discover. */
  const urlRequest = (select: (c: Context<PipelineEnv>) => RouteSelection): Step => async (c, next) => {
    const selection = select(c);
    const spec: SliceSpec = {};
    if (selection.toolsets?.length) spec.toolsets = selection.toolsets;
    const tools = c.req.query('tools');
    if (tools) spec.tools = splitList(tools, ',');
    const readonly = c.req.query('readonly');
    if (readonly === '1' || readonly === 'true') spec.readOnly = true;
    const unknown = unknownNames(spec);
    if (unknown) return unknown;
    c.set('requested', spec);
    c.set('mode', selection.mode === 'discover' || c.req.query('mode') === 'discover' ? 'discover' : 'tools');
    await next();
  };

  /** Bearer authentication (src/auth/bearer.ts): 401 with WWW-Authenticate, 429, or c.var.caller. */
  const authenticateCaller: Step = async (c, next) => {
    const auth = await authenticate(c.req.raw, c.var.config, { env: c.env, waitUntil: waitUntilOf(c) });
    if (!auth.ok) return auth.response;
    c.set('caller', auth.caller);
    await next();
  };

  /** The catalogue as this isolate serves it: the runtime schema drop list applied. */
  const servedCatalogue: Step = async (c, next) => {
    c.set('catalogue', await withSchemaDrops(loaded, c.env));
    await next();
  };

  /** The slice: what the URL asks for ∩ the key's scope. */
  const sliceForCaller: Step = async (c, next) => {
    let requested = c.var.requested;
    const { scope } = c.var.caller;
    // Bare /mcp serves the default toolsets, unless the key is itself scoped to toolsets or tools: then its scope is
    // the natural default (a key for `gists` pasted as .../mcp should see gists).
    const defaults = c.var.config.defaultToolsets;
    if (!requested.toolsets && !requested.tools && !scope.toolsets?.length && !scope.tools?.length && defaults) {
      requested = { ...requested, toolsets: defaults };
      const misconfigured = unknownNames(requested);
      if (misconfigured) return misconfigured;
    }
    c.set('slice', sliceOf(c.var.catalogue, intersect(requested, scope)));
    await next();
  };

  const serve: Step = (c) => {
    const { catalogue, config, caller, slice, profile, mode, body } = c.var;
    return serveMcp({ catalogue, config, caller, slice, profile, mode }, c.req.raw, body);
  };

  return (select) => [config, hostGuard, statelessMethods, urlRequest(select), authenticateCaller, servedCatalogue, sliceForCaller, readBody, clientProfile, loadShards, serve];
}

/**
 * Reads and parses the JSON-RPC body once; the SDK gets the parsed message. Same bound and answers as the SDK's own
 * read (413 over 4 MiB). A body that is not JSON is kept as text, so the SDK answers it with its own parse error.
 */
const readBody: Step = async (c, next) => {
  const req = c.req.raw;
  if (req.method !== 'POST' || !isJsonContentType(req.headers.get('content-type'))) {
    c.set('body', {});
    return next();
  }
  let read: Awaited<ReturnType<typeof readRequestBody>>;
  try {
    // A declared length within the bound is read in one native call (the SDK's chunk loop costs more CPU than most
    // of a tools/call); without one, the SDK's bounded read.
    const declared = Number(req.headers.get('content-length') ?? NaN);
    read = declared <= DEFAULT_MAX_REQUEST_BODY_SIZE ? { tooLarge: false, text: await req.text() } : await readRequestBody(req, DEFAULT_MAX_REQUEST_BODY_SIZE);
  } catch {
    return jsonRpcError(400, -32700, 'Parse error: the request body could not be read');
  }
  if (read.tooLarge) return jsonRpcError(413, -32000, `Payload Too Large: Request body must not exceed ${DEFAULT_MAX_REQUEST_BODY_SIZE} bytes`);
  try {
    c.set('body', { message: read.text ? JSON.parse(read.text) : undefined, text: read.text });
  } catch {
    c.set('body', { text: read.text });
  }
  await next();
};

/** The client profile: ?client=, else inferred from the client's name in this message (src/profiles). */
const clientProfile: Step = async (c, next) => {
  const param = c.req.query('client');
  const profile = param ? profileById(param) : inferProfile(clientNameOf(c.var.body.message));
  if (!profile) {
    return c.json({ error: 'unknown_client', message: `Unknown client profile: ${param}. Valid client names: ${PROFILE_IDS.join(', ')}`, unknown: [param], valid: PROFILE_IDS }, 400);
  }
  c.set('profile', profile);
  await next();
};

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}

// c.executionCtx throws when the app is called without one (tests call app.fetch(request, env)).
function waitUntilOf(c: Context<PipelineEnv>): ((p: Promise<unknown>) => void) | undefined {
  try {
    const ctx = c.executionCtx;
    return (p) => ctx.waitUntil(p);
  } catch {
    return undefined;
  }
}

export function splitList(raw: string, separator: string): string[] {
  return raw.split(separator).map((s) => s.trim()).filter(Boolean);
}
