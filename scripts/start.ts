// `npm start`: the embedded GitHub catalogue on http://127.0.0.1:8787/mcp, fully offline.
//   - default: a Prism mock of the GitHub spec is the upstream; CREDENTIAL_MODE=key with the local key.
//   - UPSTREAM_URL=https://api.github.com: no mock; CREDENTIAL_MODE=passthrough, so each caller's GitHub
//     token (Authorization: Bearer ghp_…) reaches the API.
// Env: PORT (default 8787), UPSTREAM_URL, CREDENTIAL_MODE (key|passthrough), API_KEY (default: the local key),
//      ALLOWED_HOSTS, ALLOWED_ORIGINS, OAUTH (on|off; on by default: the consent page takes the local key),
//      SPEC_URL (a spec for the drift check to watch; GET /__scheduled runs it, docs/operations.md).
import { startState } from './lib/local-state.ts';
import { GITHUB_SPEC } from './lib/prism.ts';
import { parsePort } from './lib/port.ts';
import { DEFAULT_PORT, LOCAL_KEY, serve } from './lib/serve.ts';

const env = process.env;
const upstream = env.UPSTREAM_URL?.trim() || undefined;
const mode = env.CREDENTIAL_MODE?.trim() || (upstream ? 'passthrough' : 'key');
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
  state: { dir: startState(), keysFlags: env.MCP_PERSIST_TO?.trim() ? ` --state ${env.MCP_PERSIST_TO.trim()}` : '' },
  vars: Object.fromEntries(['ALLOWED_HOSTS', 'ALLOWED_ORIGINS', 'OAUTH', 'SPEC_URL'].filter((k) => env[k]).map((k) => [k, env[k]!])),
});
