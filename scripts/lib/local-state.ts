// Where a local server keeps its state (keys, OAuth grants, usage, schema drops): one directory per served
// catalogue, so `npm run serve` of another spec never mixes its keys or usage into `npm start`'s.
import { createHash } from 'node:crypto';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { repoRoot } from './proc.ts';

export const LOCAL_STATE_ROOT = join(repoRoot, '.wrangler', 'local');

/** `npm start`'s state: the embedded catalogue. MCP_PERSIST_TO overrides it. */
export function startState(env: NodeJS.ProcessEnv = process.env): string {
  return env.MCP_PERSIST_TO?.trim() ? resolve(env.MCP_PERSIST_TO) : join(LOCAL_STATE_ROOT, 'start');
}

/** The spec as `npm run serve` names it: a URL as given, a path made absolute against the folder the user typed in. */
export function specLocation(spec: string, userCwd = process.env.INIT_CWD ?? process.cwd()): string {
  return /^https?:\/\//i.test(spec) || isAbsolute(spec) ? spec : resolve(userCwd, spec);
}

/**
 * `npm run serve -- --spec <spec>`'s state: `serve-<file name>-<8 hex of the spec's location>`, readable and
 * distinct for two specs with one file name. MCP_PERSIST_TO overrides it.
 */
export function serveState(spec: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.MCP_PERSIST_TO?.trim()) return resolve(env.MCP_PERSIST_TO);
  const location = specLocation(spec);
  const stem = basename(location.replace(/[?#].*$/, '').replace(/\/+$/, '')).replace(/\.(json|ya?ml)$/i, '');
  const slug = stem.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 32) || 'spec';
  return join(LOCAL_STATE_ROOT, `serve-${slug}-${createHash('sha256').update(location).digest('hex').slice(0, 8)}`);
}
