#!/usr/bin/env node
// `npx -y mcp-catalogue`: serves the embedded MCP tool catalogue over stdio (see src/stdio/main.ts).
// Plain JavaScript so it runs from node_modules; the server itself is bundled into dist/stdio at pack time.
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(`mcp-catalogue needs Node.js 22 or newer; this is ${process.version}.\n`);
  process.exit(1);
}

const root = new URL('../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const arg = process.argv[2];
if (arg === '--version' || arg === '-v') {
  process.stdout.write(`${pkg.version}\n`);
  process.exit(0);
}
if (arg === '--help' || arg === '-h' || arg) {
  process.stderr.write(`${arg === '--help' || arg === '-h' ? '' : `unknown argument: ${arg}\n\n`}mcp-catalogue ${pkg.version}: the MCP tool catalogue over stdio.

Usage: npx -y mcp-catalogue        (configure with environment variables)

  UPSTREAM_TOKEN or API_KEY          credential sent to the API as "Authorization: Bearer <token>"
  MCP_UPSTREAM_URL or UPSTREAM_URL   API base URL (default: the catalogue's own)
  MCP_TOOLSETS=a,b  MCP_TOOLS=x,y  MCP_READONLY=1   serve a slice of the catalogue
  MCP_CATALOG=path/to/catalog.txt    serve another generated catalogue
  UPSTREAM_AUTH_HEADER=x-api-key     send the token as-is in that header instead
  UPSTREAM_TIMEOUT_MS, MAX_RESPONSE_BYTES, MAX_RESULT_TOKENS   limits, as for the worker
`);
  process.exit(arg === '--help' || arg === '-h' ? 0 : 2);
}

// The published package carries only the bundle (dist/stdio, built by prepack). In a git checkout the source is
// there too and wins, so a stale dist/ never runs; Node 22's type stripping runs it directly.
const source = new URL('src/stdio/main.ts', root);
const { startStdio, UsageError } = await import(existsSync(source) ? source.href : new URL('dist/stdio/main.mjs', root).href);

const cataloguePath = process.env.MCP_CATALOG?.trim() || new URL('catalog/catalog.txt', root);
let catalogueText;
try {
  catalogueText = readFileSync(cataloguePath, 'utf8');
} catch (error) {
  process.stderr.write(`mcp-catalogue: cannot read the catalogue ${cataloguePath}: ${error.message}\n`);
  process.exit(2);
}
// A sharded catalogue (a very large API) keeps its records in shards/ next to catalog.txt.
const shardsDir = new URL('shards/', typeof cataloguePath === 'string' ? pathToFileURL(cataloguePath) : cataloguePath);
try {
  await startStdio({ catalogueText, env: process.env, readShard: (file) => readFile(new URL(file, shardsDir), 'utf8') });
} catch (error) {
  process.stderr.write(`mcp-catalogue: ${error.message}\n`);
  process.exit(error instanceof UsageError ? 2 : 1);
}
