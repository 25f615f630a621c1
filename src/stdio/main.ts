// The stdio server: the same catalogue and tool execution as the worker, for `npx -y mcp-catalogue`.
// It calls the upstream API directly with the caller's credential from the environment.
//
// Environment:
//   MCP_UPSTREAM_URL | UPSTREAM_URL   the API base URL (default: the catalogue's, e.g. https://api.github.com)
//   UPSTREAM_TOKEN | API_KEY          the one upstream credential: placed as each operation's security scheme says, or
//                                     `Authorization: Bearer <token>` for a spec without schemes (omitted when unset)
//   UPSTREAM_AUTH_HEADER              a header for the token on every call, sent as-is (e.g. x-api-key)
//   UPSTREAM_CREDENTIALS              credentials by security scheme name, JSON {"scheme": "value"} (docs/upstream-auth.md)
//   MCP_TOOLSETS                      comma-separated toolsets to serve, or `all` (default: the catalogue's default
//                                     toolsets, as bare /mcp serves; every tool when the catalogue names none)
//   MCP_TOOLS                         comma-separated tool names to serve (default: all of the toolsets)
//   MCP_READONLY=1                    serve read-only tools only (1/0, true/false, yes/no, on/off in any case)
//   MCP_CATALOG                       path of another catalog.txt (a sharded one reads shards/ next to it)
//   UPSTREAM_TIMEOUT_MS, MAX_RESPONSE_BYTES, MAX_RESULT_TOKENS, COMPACT_RESULTS  as for the worker
// A switch with another value, a list naming nothing, or an MCP_* variable that looks like a misspelling of one of
// these stops the server with status 2 and the valid choices (src/stdio/env.ts).
// stdout carries only JSON-RPC; every log line goes to stderr.
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Caller } from '../auth/bearer.ts';
import type { ShardSource } from '../catalogue/catalogue-text.ts';
import { loadCatalogue } from '../catalogue/loaded-catalogue.ts';
import { sliceOf, UnknownNamesError, validateSliceSpec, type SliceSpec } from '../catalogue/slices.ts';
import { connectsUsers, operatorCredentialProblems, runsClientCredentials } from '../auth/upstream-schemes.ts';
import { readConfig } from '../config.ts';
import { PROFILES } from '../profiles/profiles.ts';
import { buildServer } from '../protocol/mcp-server.ts';
import type { RequestScope } from '../tools/scope.ts';
import { booleanVariable, checkVariableNames, listVariable, UsageError } from './env.ts';

export { UsageError };

interface StdioOptions {
  catalogueText: string;
  env: Record<string, string | undefined>;
  /** Reads a shard file of a sharded catalogue. */
  readShard?: ShardSource;
}

export async function startStdio({ catalogueText, env, readShard }: StdioOptions): Promise<{ close: () => Promise<void> }> {
  // The logger (src/lib/log.ts) writes with console.log; on stdio that would corrupt the protocol stream.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;

  checkVariableNames(env);
  const readOnly = booleanVariable(env, 'MCP_READONLY', false);
  const compact = booleanVariable(env, 'COMPACT_RESULTS', true);
  const toolsetList = listVariable(env, 'MCP_TOOLSETS');
  const toolList = listVariable(env, 'MCP_TOOLS');
  const loaded = loadCatalogue(catalogueText);
  const pick = (...names: string[]) => names.map((n) => env[n]?.trim()).find((v) => v);
  const config = readConfig(
    {
      UPSTREAM_URL: pick('MCP_UPSTREAM_URL', 'UPSTREAM_URL'),
      UPSTREAM_TIMEOUT_MS: env.UPSTREAM_TIMEOUT_MS,
      MAX_RESPONSE_BYTES: env.MAX_RESPONSE_BYTES,
      MAX_RESULT_TOKENS: env.MAX_RESULT_TOKENS,
      COMPACT_RESULTS: compact ? 'on' : 'off',
      UPSTREAM_AUTH_HEADER: env.UPSTREAM_AUTH_HEADER,
      UPSTREAM_CREDENTIALS: env.UPSTREAM_CREDENTIALS,
    },
    loaded.catalogue.defaultUpstream,
  );
  const token = pick('UPSTREAM_TOKEN', 'API_KEY');
  if (token && !/^[\x21-\x7e]+$/.test(token)) throw new UsageError('UPSTREAM_TOKEN/API_KEY must be a single token of printable characters (no spaces or "Bearer " prefix).');
  const header = config.upstreamAuthHeader;
  if (header !== undefined && !/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(header)) throw new UsageError(`UPSTREAM_AUTH_HEADER is not a valid header name: ${JSON.stringify(header)}`);
  const problems = operatorCredentialProblems(loaded.catalogue.security, config);
  // Users connect their own account on the Worker's OAuth consent page; over stdio there is none to connect on.
  for (const [name, value] of Object.entries(config.upstreamCredentials)) {
    const scheme = loaded.catalogue.security?.schemes[name];
    if (connectsUsers(scheme, value) && !runsClientCredentials(scheme!)) problems.push(`UPSTREAM_CREDENTIALS: scheme ${name} acts as each user's own account, which users connect on the Worker's OAuth consent page; the stdio server has none, so give it "Bearer <access token>" for one account`);
  }
  if (problems.length) throw new UsageError(problems.join('\n'));
  const caller: Caller = { id: 'stdio', scope: {}, upstream: token ? { single: token, ...(header ? { singleHeader: header } : {}) } : {} };

  const spec: SliceSpec = {};
  // Same default as bare /mcp: the catalogue's default toolsets; MCP_TOOLSETS=all serves everything.
  const toolsets = toolsetList ?? loaded.catalogue.defaultToolsets;
  if (toolsets) spec.toolsets = toolsets;
  if (toolList) spec.tools = toolList;
  if (readOnly) spec.readOnly = true;
  try {
    validateSliceSpec(loaded, spec);
  } catch (error) {
    if (error instanceof UnknownNamesError) {
      const valid = error.valid.length > 60 ? `${error.valid.slice(0, 60).join(', ')}, …` : error.valid.join(', ');
      throw new UsageError(`${error.message} (MCP_${error.kind === 'tool' ? 'TOOLS' : 'TOOLSETS'}). Valid: ${valid}`);
    }
    throw error;
  }
  const slice = sliceOf(loaded, spec);
  // One process serves one slice: a sharded catalogue reads the slice's shards once, up front.
  if (loaded.sharded) {
    if (!readShard) throw new UsageError('the catalogue is sharded, and its shards cannot be read');
    loaded.useShards(readShard);
    await loaded.load(slice.tools);
  }
  console.error(
    `mcp-catalogue: serving ${slice.tools.length} of ${loaded.count} tools of ${loaded.catalogue.source.title} over stdio; upstream ${config.upstreamUrl}; credential ${token ? 'set' : 'not set'}`,
  );
  const scope: RequestScope = { catalogue: loaded, config, caller, slice, profile: PROFILES.default, mode: 'tools' };
  const handle = serveStdio(() => buildServer(scope), {
    onerror: (e) => console.error(`mcp-catalogue: ${e.message}`),
  });
  return handle;
}
