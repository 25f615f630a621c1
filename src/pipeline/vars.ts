// What the request pipeline (src/pipeline/steps.ts) decides, step by step, as typed Hono variables (c.var).
import type { Caller } from '../auth/bearer.ts';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { Slice, SliceSpec } from '../catalogue/slices.ts';
import type { Config, Env } from '../config.ts';
import type { OAuthSettings } from '../oauth/settings.ts';
import type { Profile } from '../profiles/profiles.ts';
import type { McpBody } from '../protocol/dispatch.ts';
import type { EndpointMode } from '../tools/scope.ts';
import type { McpParams } from './url-params.ts';

interface PipelineVars {
  /** From the env, once per isolate (configure). */
  config: Config;
  /** The OAuth front door's switch and lifetimes (configure). */
  oauth: OAuthSettings;
  /** ALLOWED_ORIGINS: browser origins that get CORS and pass the Origin guard (configure). */
  allowedOrigins: string[];
  /** The MCP route's query parameters, read strictly (urlRequest, src/pipeline/url-params.ts). */
  params: McpParams;
  /** What the URL asks for: toolsets, ?tools=, ?readonly= (urlRequest). */
  requested: SliceSpec;
  mode: EndpointMode;
  /** Who is calling and what the upstream gets on their behalf (authenticateCaller). */
  caller: Caller;
  /** The catalogue as served, schema drops applied (servedCatalogue). */
  catalogue: LoadedCatalogue;
  /** requested ∩ the caller's scope, or the default toolsets (sliceForCaller). */
  slice: Slice;
  /** The JSON-RPC body, read and parsed once (readBody). */
  body: McpBody;
  profile: Profile;
}

export type PipelineEnv = { Bindings: Env; Variables: PipelineVars };
