// Starts `wrangler dev` (workerd, local mode, offline) for the embedded catalogue or any catalogue directory.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { binDir, childEnv, freePort, isPortFree, repoRoot, spawnChild, StartError, waitForHttp, waitForLine } from './proc.ts';
import type { Running } from './prism.ts';

const REPO_WRANGLER_CONFIG = join(repoRoot, 'wrangler.toml');

export interface WranglerDevOptions {
  /** Port on 127.0.0.1; a free one when omitted. */
  port?: number;
  /** Worker vars (`--var K:V`), e.g. UPSTREAM_URL, CREDENTIAL_MODE, API_KEY. Override wrangler.toml's [vars]. */
  vars?: Record<string, string>;
  /**
   * A directory holding catalog.txt (and shards/) to serve instead of the embedded catalogue. A wrangler.json written
   * there points `main` at this repo's src/index.ts, `catalog-data` at it and the static assets at its shards.
   */
  catalogueDir?: string;
  /** Where local state (KV, DOs, caches) lives; a fresh temp dir when omitted, so instances never share it. */
  persistTo?: string;
  /** Startup timeout, ms (bundling plus the first request that loads the catalogue). */
  timeoutMs?: number;
}

export interface RunningWorker extends Running {
  /** The MCP endpoint, `${url}/mcp`. */
  endpoint: string;
  configPath: string;
}

/**
 * Writes `<dir>/wrangler.json`: the same settings as the repo's wrangler.toml (read through wrangler's own
 * parser, so new bindings carry over), with `main` made absolute, `catalog-data` aliased to a module importing
 * `<dir>/catalog.txt` (so it stays a Text module of its own, as src/catalogue/embedded.ts does for the embedded one)
 * and the static assets (a sharded catalogue's shards) read from `<dir>/shards`.
 */
export async function writeCatalogueConfig(dir: string, baseConfig = REPO_WRANGLER_CONFIG): Promise<string> {
  const { experimental_readRawConfig } = await import('wrangler');
  const { rawConfig } = experimental_readRawConfig({ config: baseConfig });
  const baseDir = dirname(baseConfig);
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(baseDir, p));
  const config: Record<string, unknown> = { ...(rawConfig as Record<string, unknown>) };
  if (typeof config.main === 'string') config.main = abs(config.main);
  if (typeof config.tsconfig === 'string') config.tsconfig = abs(config.tsconfig);
  const alias = { ...((config.alias as Record<string, string> | undefined) ?? {}) };
  for (const [k, v] of Object.entries(alias)) if (v.startsWith('.')) alias[k] = abs(v);
  const shim = join(resolve(dir), 'catalogue-module.js');
  await writeFile(shim, "export { default } from './catalog.txt';\n");
  alias['catalog-data'] = shim;
  config.alias = alias;
  const shards = join(resolve(dir), 'shards');
  await mkdir(shards, { recursive: true });
  if (config.assets && typeof config.assets === 'object') config.assets = { ...(config.assets as Record<string, unknown>), directory: shards };
  config.rules = [{ type: 'Text', globs: ['**/*.txt'], fallthrough: false }];
  const path = join(dir, 'wrangler.json');
  await writeFile(path, JSON.stringify(config, null, 2) + '\n');
  return path;
}

export async function startWranglerDev(opts: WranglerDevOptions = {}): Promise<RunningWorker> {
  const port = opts.port ?? (await freePort());
  if (!(await isPortFree(port))) {
    throw new StartError(`port ${port} on 127.0.0.1 is already in use; stop whatever holds it or choose another (PORT=… / --port …)`);
  }
  const configPath = opts.catalogueDir ? await writeCatalogueConfig(opts.catalogueDir) : REPO_WRANGLER_CONFIG;
  const ownState = opts.persistTo === undefined;
  const persistTo = opts.persistTo ?? (await mkdtemp(join(tmpdir(), 'mcp-wrangler-state-')));
  const cleanup = async () => {
    if (ownState) await rm(persistTo, { recursive: true, force: true });
  };
  const args = [
    'dev',
    '--config', configPath,
    '--local',
    '--ip', '127.0.0.1',
    '--port', String(port),
    '--inspector-port', String(await freePort()),
    '--persist-to', persistTo,
    '--show-interactive-dev-session=false',
    '--log-level', 'info',
  ];
  for (const [k, v] of Object.entries(opts.vars ?? {})) args.push('--var', `${k}:${v}`);
  const t0 = Date.now();
  const child = spawnChild('wrangler dev', join(binDir, 'wrangler'), args, {
    cwd: dirname(configPath),
    env: childEnv(),
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    const timeoutMs = opts.timeoutMs ?? 180_000;
    await waitForLine(child, /Ready on http/, timeoutMs);
    // The first request starts the isolate and parses the catalogue; do it now rather than in the caller's face.
    await waitForHttp(`${url}/healthz`, child, timeoutMs);
  } catch (err) {
    await child.stop();
    await cleanup();
    throw err;
  }
  const stop = async () => {
    await child.stop();
    await cleanup();
  };
  return { url, endpoint: `${url}/mcp`, configPath, child, startMs: Date.now() - t0, stop };
}
