// `npm start`: the embedded GitHub catalogue on http://127.0.0.1:8787/mcp, fully offline.
//   - default: a Prism mock of the GitHub spec is the upstream; CREDENTIAL_MODE=key with the local key.
//   - UPSTREAM_URL=https://api.github.com: no mock; CREDENTIAL_MODE=passthrough, so each caller's GitHub
//     token (Authorization: Bearer ghp_…) reaches the API.
// Env: PORT (default 8787), UPSTREAM_URL, CREDENTIAL_MODE (key|passthrough), API_KEY (default: the local key),
//      ALLOWED_HOSTS, ALLOWED_ORIGINS, OAUTH (on|off; on by default: the consent page takes the local key),
//      SPEC_URL (a spec for the drift check to watch; GET /__scheduled runs it, docs/operations.md).
// Options: --credential NAME=VALUE and --credential-env NAME=VAR (repeatable): the upstream credential of a security
//      scheme of catalog/catalog.txt, as for `npm run serve` (docs/upstream-auth.md); with UPSTREAM_URL only.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCatalogue } from '../src/catalogue/loaded-catalogue.ts';
import { credentialProblems, credentialsFromArgs } from './lib/credential-args.ts';
import { startState } from './lib/local-state.ts';
import { parseArgsWithHints } from './lib/parse-args.ts';
import { repoRoot } from './lib/proc.ts';
import { GITHUB_SPEC } from './lib/prism.ts';
import { parsePort } from './lib/port.ts';
import { DEFAULT_PORT, LOCAL_KEY, serve } from './lib/serve.ts';

const env = process.env;
let credentials: Record<string, string>;
try {
  const { values } = parseArgsWithHints({ args: process.argv.slice(2), options: { credential: { type: 'string', multiple: true }, 'credential-env': { type: 'string', multiple: true } } });
  credentials = credentialsFromArgs(values.credential, values['credential-env']);
  const problems = credentialProblems(loadCatalogue(readFileSync(join(repoRoot, 'catalog', 'catalog.txt'), 'utf8')).catalogue.security, credentials);
  if (problems.length) throw new Error(problems.join('\n'));
} catch (e) {
  process.stderr.write(`npm start: ${(e as Error).message}\n`);
  process.exit(2);
}
const upstream = env.UPSTREAM_URL?.trim() || undefined;
const mode = env.CREDENTIAL_MODE?.trim() || (upstream && !Object.keys(credentials).length ? 'passthrough' : 'key');
if (mode !== 'key' && mode !== 'passthrough') {
  process.stderr.write(`CREDENTIAL_MODE must be "key" or "passthrough", not ${JSON.stringify(mode)}\n`);
  process.exit(2);
}
const port = parsePort(env.PORT || String(DEFAULT_PORT), 'PORT');
if (typeof port === 'string') {
  process.stderr.write(`${port}\n`);
  process.exit(2);
}

await serve({
  name: 'github',
  mockSpec: GITHUB_SPEC,
  upstream,
  port,
  key: env.API_KEY?.trim() || LOCAL_KEY,
  credentialMode: mode,
  credentials,
  state: { dir: startState(), keysFlags: env.MCP_PERSIST_TO?.trim() ? ` --state ${env.MCP_PERSIST_TO.trim()}` : '' },
  vars: Object.fromEntries(['ALLOWED_HOSTS', 'ALLOWED_ORIGINS', 'OAUTH', 'SPEC_URL'].filter((k) => env[k]).map((k) => [k, env[k]!])),
});
