// `npm run serve -- --spec <file|url> [--upstream <url>] [--port <n>] [--key <key>] [--name <n>] [--overrides <file>] [--shard-above-bytes <n>]`
// Builds a catalogue from any OpenAPI spec into a temp dir, mocks the spec with Prism unless --upstream is
// given, and serves it with `wrangler dev`, printing the same endpoint:/key: lines and snippet as `npm start`.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildCatalogue } from './catalog/build.ts';
import { DECLARATIONS_FILE, declarationFiles, expandCatalogue, writeCatalogueDir } from './catalog/catalogue-files.ts';
import { buildDeclarations, serializeDeclarations } from './catalog/declarations.ts';
import { credentialProblems, credentialsFromArgs } from './lib/credential-args.ts';
import { serveState, specLocation } from './lib/local-state.ts';
import { parsePort } from './lib/port.ts';
import { withSpecOperations } from './catalog/spec-operations-asset.ts';
import { DEFAULT_PORT, LOCAL_KEY, serve } from './lib/serve.ts';

const USAGE = `usage: npm run serve -- --spec <file|url> [--upstream <url>] [--port <n>] [--key <key>]
                        [--credential NAME=VALUE]... [--credential-env NAME=VAR]...
                        [--passthrough] [--name <server name>] [--overrides <file>] [--keep]
                        [--shard-above-bytes <n>]
  --spec        OpenAPI 3.x or Swagger 2.0 document (JSON or YAML), a file path or an http(s) URL
  --upstream    real API base URL; without it a Prism mock of the spec is started (works offline)
  --port        port on 127.0.0.1 for the MCP endpoint (default $PORT or ${DEFAULT_PORT})
  --key         API key clients must send as "Authorization: Bearer <key>" (default ${LOCAL_KEY})
  --credential  the upstream credential of one of the spec's security schemes (repeatable): NAME is the scheme's
                name, VALUE the key or token (apiKey, bearer), user:password (basic) or client_id:client_secret
                (OAuth 2 client credentials, OpenID Connect); catalog/report.md lists the schemes
  --credential-env  the same, the value read from the environment variable VAR (out of shell history and ps)
  --passthrough forward each caller's bearer token to the upstream instead of checking a key
                (the default with --upstream and neither --key nor --credential)
  --name        key of the server in the printed mcpServers snippet (default: derived from the spec title)
  --overrides   overrides file for the generator (see docs/operations.md)
  --keep        keep the temp catalogue directory after exit
  --shard-above-bytes  put the catalogue's records into static-asset shards above this size (default 24 MB)
`;

function fail(msg: string): never {
  process.stderr.write(`serve: ${msg}\n\n${USAGE}`);
  process.exit(2);
}

let args;
try {
  args = parseArgs({
    args: process.argv.slice(2),
    options: {
      spec: { type: 'string' },
      upstream: { type: 'string' },
      port: { type: 'string' },
      key: { type: 'string' },
      passthrough: { type: 'boolean', default: false },
      credential: { type: 'string', multiple: true },
      'credential-env': { type: 'string', multiple: true },
      name: { type: 'string' },
      overrides: { type: 'string' },
      keep: { type: 'boolean', default: false },
      'shard-above-bytes': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  }).values;
} catch (e) {
  fail((e as Error).message);
}
if (args.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (!args.spec) fail('--spec is required');

// npm runs scripts from the package root; relative paths are meant relative to where the user typed the command.
const userCwd = process.env.INIT_CWD ?? process.cwd();
const isUrl = (s: string) => /^https?:\/\//i.test(s);
const spec = specLocation(args.spec, userCwd);
const upstream = args.upstream?.trim() || undefined;
if (upstream && !isUrl(upstream)) fail(`--upstream must be an http(s) URL, not ${JSON.stringify(upstream)}`);
const port = parsePort(args.port ?? (process.env.PORT || String(DEFAULT_PORT)), args.port === undefined && process.env.PORT ? 'PORT' : '--port');
if (typeof port === 'string') fail(port);
let credentials: Record<string, string>;
try {
  credentials = credentialsFromArgs(args.credential, args['credential-env']);
} catch (e) {
  fail((e as Error).message);
}
const passthrough = args.passthrough || (upstream !== undefined && args.key === undefined && !Object.keys(credentials).length);
const key = args.key ?? LOCAL_KEY;
if (!passthrough && key.length < 16) fail('--key must be at least 16 characters');

const dir = await mkdtemp(join(tmpdir(), 'mcp-serve-'));
if (!args.keep) process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

process.stderr.write(`building catalogue from ${spec} …\n`);
let title: string;
try {
  const t0 = Date.now();
  const overrides = args.overrides ? (isAbsolute(args.overrides) ? args.overrides : resolve(userCwd, args.overrides)) : undefined;
  const shardAboveBytes = args['shard-above-bytes'] === undefined ? undefined : Number(args['shard-above-bytes']);
  if (shardAboveBytes !== undefined && !(Number.isInteger(shardAboveBytes) && shardAboveBytes >= 0)) fail('--shard-above-bytes must be a whole number of bytes');
  const result = await buildCatalogue(spec, { overrides, shardAboveBytes, progress: (l) => process.stderr.write(`  ${l}\n`) });
  // Code mode (/mcp/code) searches these declarations of the same catalogue.
  const written = declarationFiles(serializeDeclarations(buildDeclarations(await expandCatalogue(result))), { hash: result.report.hash, shards: result.shards });
  // spec-operations.json beside the shards: the baseline of the drift check (docs/operations.md, "Spec drift").
  await writeCatalogueDir(dir, { text: result.text, shards: withSpecOperations(written.shards, result.specOperations) });
  await writeFile(join(dir, DECLARATIONS_FILE), written.embedded);
  title = result.catalogue.source.title;
  // A credential for a scheme the spec lacks, or one that cannot work (basic without a colon), stops here by name.
  const problems = credentialProblems(result.catalogue.security, credentials);
  if (problems.length) fail(problems.join('\n'));
  for (const u of result.report.security.unsupported) process.stderr.write(`security scheme ${u.scheme} is not supported: ${u.reason}\n`);
  const r = result.report;
  process.stderr.write(
    `catalogue: ${r.tools} tools from ${r.operations} operations (${r.withOutputSchema} with output schemas), ` +
      `${(r.bytes / 1024).toFixed(0)} KiB${r.layout.shards ? ` in ${r.layout.shards} shards` : ''}, in ${((Date.now() - t0) / 1000).toFixed(1)} s → ${join(dir, 'catalog.txt')}\n`,
  );
  if (!upstream) process.stderr.write(`(spec default upstream ${result.catalogue.defaultUpstream || '(none)'} replaced by the mock)\n`);
} catch (e) {
  await rm(dir, { recursive: true, force: true });
  process.stderr.write(`serve: cannot build a catalogue from ${spec}: ${(e as Error).message}\n`);
  process.exit(1);
}

const name = args.name ?? (title.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 24) || 'api');

await serve({
  name,
  mockSpec: spec,
  upstream,
  catalogueDir: dir,
  port,
  key,
  credentialMode: passthrough ? 'passthrough' : 'key',
  credentials,
  state: { dir: serveState(spec), keysFlags: process.env.MCP_PERSIST_TO?.trim() ? ` --state ${process.env.MCP_PERSIST_TO.trim()}` : ` --spec ${/\s/.test(args.spec) ? JSON.stringify(args.spec) : args.spec}` },
  // The drift check watches the spec URL as given (the catalogue header keeps it without its query string).
  ...(isUrl(spec) ? { vars: { SPEC_URL: spec } } : {}),
});
