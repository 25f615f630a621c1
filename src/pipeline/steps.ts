// The MCP request pipeline as Hono middleware. Each step decides one thing, sets it on c.var (src/pipeline/vars.ts)
// or answers the request itself; the last step assembles the RequestScope and hands it to the MCP dispatcher.
// Order: configure, host guard, CORS, stateless methods, URL slice, auth, served catalogue, slice, body, profile,
// listing mode, serve.
// The body is read only after auth, so an unauthenticated request never makes the Worker read its body.
import { DEFAULT_MAX_REQUEST_BODY_SIZE, isJsonContentType, readRequestBody } from '@modelcontextprotocol/server';
import type { Context, MiddlewareHandler } from 'hono';
import { assetShards } from '../catalogue/asset-shards.ts';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import { intersect, sliceOf, UnknownNamesError, validateSliceSpec, type SliceSpec } from '../catalogue/slices.ts';
import { codeModeHost } from '../codemode/host.ts';
import { readConfig, type Config, type Env } from '../config.ts';
import { overToolBudget } from '../discovery/hybrid.ts';
import { logOnce } from '../lib/log.ts';
import { authenticateBearerOrToken } from '../oauth/resource-auth.ts';
import { readOAuthSettings, type OAuthSettings } from '../oauth/settings.ts';
import { clientNameOf, inferProfile, PROFILE_IDS, PROFILES, profileById } from '../profiles/profiles.ts';
import { issueSessionId, profileFromSessionId } from '../profiles/session-id.ts';
import { countMessages } from '../auth/rate-limit.ts';
import { operatorCredentialProblems } from '../auth/upstream-schemes.ts';
import type { ChargeMessages } from '../protocol/batch.ts';
import { serveMcp } from '../protocol/dispatch.ts';
import type { SchemaHealth } from '../schema-health/health.ts';
import { callerSlotKey, takeCallSlot } from '../tools/call-slots.ts';
import { durableLedger } from '../tools/confirm-ledger-object.ts';
import { URL_MODES, type EndpointMode, type RequestScope } from '../tools/scope.ts';
import { parseAllowedOrigins, preflightResponse, withCors } from './cors.ts';
import { meterFor } from '../usage/isolate.ts';
import { NO_TOOL } from '../usage/schema.ts';
import { guardHostAndOrigin } from './host-guard.ts';
import { loadShards } from './shards.ts';
import { readMcpParams, type ParamsOutcome } from './url-params.ts';
import type { PipelineEnv } from './vars.ts';

type Step = MiddlewareHandler<PipelineEnv>;

const NO_PARAMS: ParamsOutcome = { ok: true, params: Object.freeze({}) };

/** What an MCP route's URL selects before the query string: toolsets by path, and the endpoint mode. */
interface RouteSelection {
  toolsets?: string[];
  mode?: EndpointMode;
}

/** Sets c.var.config, .oauth and .allowedOrigins, derived once per env object (one per isolate in production). */
export function configure(loaded: LoadedCatalogue): Step {
  const configs = new WeakMap<Env, { config: Config; oauth: OAuthSettings; allowedOrigins: string[] }>();
  return async function configure(c, next) {
    const env = c.env ?? {};
    let entry = configs.get(env);
    if (!entry) {
      const config = readConfig(env, loaded.catalogue.defaultUpstream, loaded.catalogue.defaultToolsets);
      entry = { config, oauth: readOAuthSettings(env, config.credentialMode), allowedOrigins: parseAllowedOrigins(env.ALLOWED_ORIGINS) };
      configs.set(env, entry);
      if (loaded.sharded && env.ASSETS) loaded.useShards(assetShards(env.ASSETS));
      // A credential that cannot work is said once per isolate (by scheme name, never its value), and again by each
      // call that needs it.
      for (const problem of operatorCredentialProblems(loaded.catalogue.security, config)) logOnce(`credentials ${problem}`, 'config_error', { error: problem });
    }
    c.set('config', entry.config);
    c.set('oauth', entry.oauth);
    c.set('allowedOrigins', entry.allowedOrigins);
    await next();
  };
}

/** DNS-rebinding protection (src/pipeline/host-guard.ts): 403 unless Host and Origin are allowed. */
export const hostGuard: Step = async (c, next) => {
  const rejected = guardHostAndOrigin(c.req.raw, c.get('config').allowedHosts, c.get('allowedOrigins'));
  if (rejected) return rejected;
  await next();
};

/**
 * CORS (src/pipeline/cors.ts): answers preflights from ALLOWED_ORIGINS, and gives responses that origin's headers,
 * stripping any a handler set for another. With no origin listed a preflight goes on to the route as before.
 */
export const cors: Step = async (c, next) => {
  const allowed = c.get('allowedOrigins');
  const preflight = allowed.length ? preflightResponse(c.req.raw, allowed) : undefined;
  if (preflight) return preflight;
  await next();
  const res = withCors(c.res, c.req.raw, allowed);
  if (res === c.res) return;
  // Hono merges the old response's headers into a new one; clearing it first keeps the stripped headers out.
  c.res = undefined;
  c.res = res;
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
 * the handler that serves the request; `select` reads what the route's path selects. `health`: the catalogue's schema
 * health in this isolate (src/schema-health), which serves the drop list and takes the calls' reports.
 * `declarations`: the catalogue's code-mode declarations (catalog/declarations.txt), empty when none were built.
 */
export function mcpPipeline(loaded: LoadedCatalogue, config: Step, health: SchemaHealth, declarations = ''): (select: (c: Context<PipelineEnv>) => RouteSelection) => [Step, ...Step[]] {
  /** HTTP 400 listing the valid names when a slice names toolsets or tools the catalogue lacks. */
  const unknownNames = (spec: SliceSpec): Response | undefined => {
    try {
      validateSliceSpec(loaded, spec);
      return undefined;
    } catch (error) {
      if (!(error instanceof UnknownNamesError)) throw error;
      return Response.json({ error: `unknown_${error.kind}`, message: `${error.message} Valid ${error.kind} names: ${error.valid.join(', ')}`, unknown: error.unknown, valid: error.valid }, { status: 400 });
    }
  };

  /**
   * What the URL asks for: path toolsets, ?tools=, ?readonly=, ?mode= (URL_MODES), ?client=. The query string is read
   * strictly (src/pipeline/url-params.ts): an unknown, repeated or malformed parameter is a 400 naming what is valid.
   */
  const urlRequest = (select: (c: Context<PipelineEnv>) => RouteSelection): Step => async function urlRequest(c, next) {
    const selection = select(c);
    // Most MCP URLs carry no query string: then there is nothing to read, and no URL to parse.
    const read = c.req.url.includes('?') ? readMcpParams(new URL(c.req.url)) : NO_PARAMS;
    if (!read.ok) return c.json(read.body, 400);
    const { params } = read;
    c.set('params', params);
    const spec: SliceSpec = {};
    if (selection.toolsets?.length) spec.toolsets = selection.toolsets;
    if (params.tools) spec.tools = params.tools;
    if (params.readOnly) spec.readOnly = true;
    const unknown = unknownNames(spec);
    if (unknown) return unknown;
    c.set('requested', spec);
    const param = params.mode;
    if (param !== undefined && selection.mode && param !== selection.mode) {
      const message = `${new URL(c.req.url).pathname} serves ${selection.mode} mode; ?mode=${param.slice(0, 40)} cannot change it. Leave mode out, or use /mcp?mode=${param.slice(0, 40)}.`;
      return c.json({ error: 'mode_conflict', message, valid: [selection.mode] }, 400);
    }
    if (param !== undefined && !selection.mode && !(URL_MODES as readonly string[]).includes(param)) {
      const message = `Unknown mode: ${param.slice(0, 40)}. Valid modes: ${URL_MODES.join(', ')} (a client over its tool budget gets tools mode as a hybrid list by itself; mode=tools keeps the full list)`;
      return c.json({ error: 'unknown_mode', message, unknown: [param.slice(0, 40)], valid: URL_MODES }, 400);
    }
    const mode = selection.mode ?? ((param as EndpointMode | undefined) ?? 'tools');
    if (mode === 'code' && !c.env?.LOADER) {
      logOnce('LOADER', 'binding_missing', { binding: 'LOADER', effect: 'code mode answers 501' });
      return c.json({ error: 'code_mode_unavailable', message: 'Code mode needs the Worker Loader binding LOADER ([[worker_loaders]] in wrangler.toml), which this deployment lacks.' }, 501);
    }
    c.set('mode', mode);
    await next();
  };

  /**
   * Bearer authentication: a static key (src/auth/bearer.ts) first, which is never challenged when valid; then, with
   * OAuth on, an access token (src/oauth/resource-auth.ts). 401 with WWW-Authenticate, 403, 429, or c.var.caller.
   */
  const authenticateCaller: Step = async (c, next) => {
    const config = c.get('config');
    const auth = await authenticateBearerOrToken(c.req.raw, { config, oauth: c.get('oauth'), loaded, requested: c.get('requested') }, { env: c.env, waitUntil: waitUntilOf(c) });
    if (!auth.ok) {
      // A refusal comes before the body is read, so it is counted against the key with no tool.
      if (auth.rateLimitedKey) meterFor(c.env ?? {}, config.usage, waitUntilOf(c))?.({ keyId: auth.rateLimitedKey, tool: NO_TOOL, outcome: 'rate_limited' });
      return auth.response;
    }
    c.set('caller', auth.caller);
    await next();
  };

  /** The catalogue as this isolate serves it: the runtime schema drop list applied. */
  const servedCatalogue: Step = async (c, next) => {
    c.set('catalogue', await health.served(c.env));
    await next();
  };

  /** The slice: what the URL asks for ∩ the key's scope. */
  const sliceForCaller: Step = async (c, next) => {
    let requested = c.get('requested');
    const { scope } = c.get('caller');
    // Bare /mcp serves the default toolsets, unless the key is itself scoped to toolsets or tools: then its scope is
    // the natural default (a key for `gists` pasted as .../mcp should see gists).
    const defaults = c.get('config').defaultToolsets;
    // Bare /mcp (the default toolsets, or the key's own scope) stays in the slice cache's warm tier.
    const bare = !requested.toolsets && !requested.tools;
    if (bare && !scope.toolsets?.length && !scope.tools?.length && defaults) {
      requested = { ...requested, toolsets: defaults };
      const misconfigured = unknownNames(requested);
      if (misconfigured) return misconfigured;
    }
    c.set('slice', sliceOf(c.get('catalogue'), intersect(requested, scope), bare));
    await next();
  };

  /** The request's scope, built once and passed explicitly to everything that serves it (the client's signal included). */
  const serve: Step = async (c) => {
    const config = c.get('config');
    const mode = c.get('mode');
    const request = c.req.raw;
    const scope: RequestScope = { catalogue: c.get('catalogue'), config, caller: c.get('caller'), slice: c.get('slice'), profile: c.get('profile'), mode, signal: request.signal, health: health.reporter(c.env) };
    const meter = meterFor(c.env ?? {}, config.usage, waitUntilOf(c));
    if (meter) scope.meter = meter;
    if (mode === 'code') scope.code = codeModeHost(c.env, declarations);
    if (c.env?.CONFIRM_LEDGER) scope.confirmations = durableLedger(c.env.CONFIRM_LEDGER);
    // A key's requests at once (src/tools/call-slots.ts): past MAX_CALLS_PER_KEY they wait their turn.
    const slotKey = callerSlotKey(scope);
    const taken = takeCallSlot(`request:${typeof slotKey === 'string' ? slotKey : await slotKey}`, { max: config.maxCallsPerKey, what: 'requests', leaseMs: REQUEST_LEASE_MS, signal: request.signal });
    const slot = taken instanceof Promise ? await taken : taken;
    if ('refused' in slot) return Response.json({ error: 'rate_limited', error_description: slot.refused, retry_after: 1 }, { status: 429, headers: { 'retry-after': '1' } });
    if ('cancelled' in slot) return new Response(null, { status: 499 });
    try {
      return await serveMcp(scope, request, c.get('body'), batchCharge(c.env ?? {}, scope));
    } finally {
      slot.release();
    }
  };

  return (select) => [config, hostGuard, cors, statelessMethods, urlRequest(select), authenticateCaller, servedCatalogue, sliceForCaller, readBody, clientProfile, listingMode, loadShards, serve];
}

/**
 * A batch's messages beyond the first count as requests of their own against the key's limit, in one round trip
 * to its limiter; each refused one is metered like the HTTP refusal, with no tool.
 */
function batchCharge(env: Env, scope: RequestScope): ChargeMessages | undefined {
  const { caller } = scope;
  if (!caller.rate) return undefined;
  const { key, rate } = caller.rate;
  return async (count) => {
    const d = await countMessages(env.KEY_RATE_LIMITER, key, rate, count);
    if (!d) return undefined;
    for (let i = d.granted; i < count; i++) scope.meter?.({ keyId: caller.id, tool: NO_TOOL, outcome: 'rate_limited' });
    return { granted: d.granted, limit: d.limit, period: rate.period, resetSeconds: d.resetSeconds };
  };
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
    // The declared length is trusted only as a well-formed number, and the text is measured after: a header that
    // lies (an empty or negative value, or one an in-process caller set) must not lift the bound.
    const header = req.headers.get('content-length');
    const declared = header !== null && /^\d{1,10}$/.test(header) ? Number(header) : NaN;
    if (declared <= DEFAULT_MAX_REQUEST_BODY_SIZE) {
      const text = await req.text();
      read = text.length > DEFAULT_MAX_REQUEST_BODY_SIZE ? { tooLarge: true } : { tooLarge: false, text };
    } else read = await readRequestBody(req, DEFAULT_MAX_REQUEST_BODY_SIZE);
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

/**
 * The client profile (src/profiles): ?client=; else inferred from the client's name in this message (initialize, or
 * any 2026-07-28 request); else the profile a signed Mcp-Session-Id names (a 2025-era client's later requests); else
 * the default. The answer to an initialize that named its client carries that session id (src/profiles/session-id.ts).
 */
const clientProfile: Step = async (c, next) => {
  const param = c.get('params').client;
  const message = c.get('body').message;
  const name = param !== undefined ? undefined : clientNameOf(message);
  const secret = c.get('config').sessionSecret;
  const profile = param !== undefined ? profileById(param) : name !== undefined ? inferProfile(name) : ((await profileFromSessionId(c.req.header('mcp-session-id'), secret)) ?? PROFILES.default);
  if (!profile) {
    const shown = (param ?? '').slice(0, 60);
    return c.json({ error: 'unknown_client', message: `Unknown client profile: ${shown}. Valid client names: ${PROFILE_IDS.join(', ')}`, unknown: [shown], valid: PROFILE_IDS }, 400);
  }
  c.set('profile', profile);
  await next();
  const initialize = !!message && typeof message === 'object' && (message as { method?: unknown }).method === 'initialize';
  if (initialize && name !== undefined && c.res.status === 200) {
    const res = new Response(c.res.body, c.res);
    res.headers.set('mcp-session-id', await issueSessionId(profile, secret));
    c.res = res;
  }
};

/**
 * Tools mode over the client's tool budget is served as a hybrid list (src/discovery/hybrid.ts); ?mode=tools keeps
 * the full list. Discovery and code mode (/mcp/discover, /mcp/code, ?mode=) are never changed.
 */
const listingMode: Step = async (c, next) => {
  if (c.get('mode') === 'tools' && c.get('params').mode !== 'tools' && overToolBudget(c.get('slice'), c.get('profile'))) c.set('mode', 'hybrid');
  await next();
};

/** The longest a request holds its key's slot before it is taken back (a request workerd cancelled never gives it back). */
const REQUEST_LEASE_MS = 120_000;

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}

// c.executionCtx throws when the app is called without one (tests call app.fetch(request, env)).
export function waitUntilOf(c: Context<PipelineEnv>): ((p: Promise<unknown>) => void) | undefined {
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
