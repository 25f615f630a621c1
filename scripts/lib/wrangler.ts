// Starts `wrangler dev` (workerd, local mode, offline) for the embedded catalogue or any catalogue directory.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { WranglerD1 } from '../keys/d1.ts';
import { binDir, childEnv, freePort, isPortFree, repoRoot, spawnChild, StartError, waitForHttp, waitForLine } from './proc.ts';
import type { Running } from './prism.ts';

const REPO_WRANGLER_CONFIG = join(repoRoot, 'wrangler.toml');

/**
 * V8 heap settings of a Workers-sized isolate for local workerd: production isolates have 128 MB, and semi-spaces of
 * 2 MB are the order V8 itself picks for a heap that size. Without them local workerd sizes the heap for the machine,
 * collects garbage so lazily that its RSS grows by hundreds of MB under steady load, and a memory bug that would end a
 * production isolate goes unseen (docs/architecture.md, "Per-isolate caches").
 */
export const WORKERS_HEAP_V8_FLAGS = ['--max-old-space-size=128', '--max-semi-space-size=2'];

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
  /** wrangler's --log-level; "log" also prints the Worker's own console.log lines (src/lib/log.ts). Default info. */
  logLevel?: 'info' | 'log';
  /** Extra environment for wrangler itself, e.g. NODE_EXTRA_CA_CERTS (which workerd's outbound TLS then trusts). */
  env?: Record<string, string>;
  /**
   * Apply the USAGE database's migrations (migrations/) to the local state first, so usage is recorded from the
   * first call and `npm run keys -- usage --local` reads it. Wrangler records which ran: a no-op the second time.
   */
  migrateUsage?: boolean;
  /** Progress lines (the migration step). Without it a failed migration fails the start instead of warning. */
  log?: (line: string) => void;
  /** Run the worker with WORKERS_HEAP_V8_FLAGS (unless MINIFLARE_WORKERD_V8_FLAGS is set already). */
  workersHeap?: boolean;
  /**
   * Secrets as dotenv lines (`NAME='value'`), handed to the worker through a private .dev.vars beside its config,
   * never on wrangler's command line. Without a catalogueDir the config moves to a temp directory for it, serving
   * the repo's catalogue, and the repo's own .dev.vars is copied in first.
   */
  devVars?: string[];
}

export interface RunningWorker extends Running {
  /** The MCP endpoint, `${url}/mcp`. */
  endpoint: string;
  configPath: string;
  /** wrangler's DevTools proxy to the worker's isolate (one client at a time; it wants an Origin header). */
  inspector: string;
}

/**
 * Writes `<dir>/wrangler.json`: the same settings as the repo's wrangler.toml (read through wrangler's own
 * parser, so new bindings carry over), with `main` made absolute, `catalog-data` and `declarations-data` aliased to
 * modules importing `<dir>/catalog.txt` and `<dir>/declarations.txt` (so each stays a Text module of its own, as
 * src/catalogue/embedded-catalogue.ts does for the embedded one; declarations are generated when the directory has none), and
 * the static assets (a sharded catalogue's shards) read from `<dir>/shards`.
 */
export async function writeCatalogueConfig(dir: string, baseConfig = REPO_WRANGLER_CONFIG, catalogueDir = dir): Promise<string> {
  const { experimental_readRawConfig } = await import('wrangler');
  const { rawConfig } = experimental_readRawConfig({ config: baseConfig });
  const baseDir = dirname(baseConfig);
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(baseDir, p));
  const config: Record<string, unknown> = { ...(rawConfig as Record<string, unknown>) };
  if (typeof config.main === 'string') config.main = abs(config.main);
  if (typeof config.tsconfig === 'string') config.tsconfig = abs(config.tsconfig);
  const alias = { ...((config.alias as Record<string, string> | undefined) ?? {}) };
  for (const [k, v] of Object.entries(alias)) if (v.startsWith('.')) alias[k] = abs(v);
  const data = resolve(catalogueDir);
  await ensureDeclarations(data);
  const from = (file: string) => (data === resolve(dir) ? `'./${file}'` : JSON.stringify(join(data, file)));
  const catalogueShim = join(resolve(dir), 'catalogue-module.js');
  await writeFile(catalogueShim, `export { default } from ${from('catalog.txt')};\n`);
  alias['catalog-data'] = catalogueShim;
  const declarationsShim = join(resolve(dir), 'declarations-module.js');
  await writeFile(declarationsShim, `export { default } from ${from('declarations.txt')};\n`);
  alias['declarations-data'] = declarationsShim;
  config.alias = alias;
  // Migrations are found relative to the config, which now lives in `dir`.
  if (Array.isArray(config.d1_databases)) {
    config.d1_databases = (config.d1_databases as Array<Record<string, unknown>>).map((d) => ({ ...d, migrations_dir: abs(typeof d.migrations_dir === 'string' ? d.migrations_dir : 'migrations') }));
  }
  const shards = join(data, 'shards');
  await mkdir(shards, { recursive: true });
  if (config.assets && typeof config.assets === 'object') config.assets = { ...(config.assets as Record<string, unknown>), directory: shards };
  // The repo's module rules: data files as Text modules, and the OAuth library as a module of its own.
  config.rules = Array.isArray(config.rules) ? config.rules : [{ type: 'Text', globs: ['**/*.txt'], fallthrough: false }];
  const path = join(dir, 'wrangler.json');
  await writeFile(path, JSON.stringify(config, null, 2) + '\n');
  return path;
}

/** `<dir>/.dev.vars`, readable by its owner only: the repo's own first (when the config replaces the repo's), then `lines`. */
async function writeDevVars(dir: string, lines: string[], withRepoVars: boolean): Promise<void> {
  const repoVars = join(repoRoot, '.dev.vars');
  const own = withRepoVars && existsSync(repoVars) ? (await readFile(repoVars, 'utf8')).replace(/\n?$/, '\n') : '';
  await writeFile(join(dir, '.dev.vars'), own + lines.join('\n') + '\n', { mode: 0o600 });
}

/** `<dir>/declarations.txt`, written from `<dir>/catalog.txt` when missing (a catalogue built without them). */
async function ensureDeclarations(dir: string): Promise<string> {
  const file = join(dir, 'declarations.txt');
  const catalogue = join(dir, 'catalog.txt');
  if (!existsSync(file) && existsSync(catalogue)) {
    const { buildDeclarations, serializeDeclarations } = await import('../catalog/declarations.ts');
    const { declarationFiles, readCatalogueDir, DECLARATIONS_ASSET, SHARD_DIR } = await import('../catalog/catalogue-files.ts');
    const cat = await readCatalogueDir(dir);
    // The shard files are already in place: only the declarations asset may be added beside them.
    const { loadCatalogue } = await import('../../src/catalogue/loaded-catalogue.ts');
    const sharded = loadCatalogue(await readFile(catalogue, 'utf8')).sharded;
    const written = declarationFiles(serializeDeclarations(buildDeclarations(cat)), { hash: cat.hash ?? '', shards: new Map(), sharded });
    if (written.shards.has(DECLARATIONS_ASSET)) {
      await mkdir(join(dir, SHARD_DIR), { recursive: true });
      await writeFile(join(dir, SHARD_DIR, DECLARATIONS_ASSET), written.shards.get(DECLARATIONS_ASSET)!);
    }
    await writeFile(file, written.embedded);
  }
  return file;
}

export async function startWranglerDev(opts: WranglerDevOptions = {}): Promise<RunningWorker> {
  if (opts.port !== undefined && !(await isPortFree(opts.port))) {
    throw new StartError(`port ${opts.port} on 127.0.0.1 is already in use; stop whatever holds it or choose another (PORT=… / --port …)`);
  }
  const configDir = opts.catalogueDir ?? (opts.devVars ? await mkdtemp(join(tmpdir(), 'mcp-wrangler-config-')) : undefined);
  const configPath = configDir ? await writeCatalogueConfig(configDir, REPO_WRANGLER_CONFIG, opts.catalogueDir ?? join(repoRoot, 'catalog')) : REPO_WRANGLER_CONFIG;
  if (configDir && opts.devVars) await writeDevVars(configDir, opts.devVars, !opts.catalogueDir);
  const ownState = opts.persistTo === undefined;
  const persistTo = opts.persistTo ?? (await mkdtemp(join(tmpdir(), 'mcp-wrangler-state-')));
  const cleanup = async () => {
    if (ownState) await rm(persistTo, { recursive: true, force: true });
    // The secrets file goes with the server; a config directory of our own goes whole.
    if (configDir && opts.devVars) await rm(opts.catalogueDir ? join(configDir, '.dev.vars') : configDir, { recursive: true, force: true });
  };
  if (opts.migrateUsage) {
    const d1 = new WranglerD1({ remote: false, persistTo, config: configPath });
    const t = Date.now();
    try {
      await d1.applyMigrations();
      opts.log?.(`usage store: migrations applied to ${persistTo} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    } catch (e) {
      const problem = `usage store: migrations not applied (${(e as Error).message}); usage is not recorded until you run: ${d1.migrateHint()}`;
      // With a log (npm start/serve) it is a warning: calls work without the tables, only metering fails (docs/usage.md).
      if (opts.log) opts.log(problem);
      else {
        await cleanup();
        throw new StartError(problem);
      }
    }
  }
  // A port found free can be taken again before wrangler binds it (another server starting beside this one, on a
  // machine running several suites): a start that lost its port that way is tried again on new ports.
  for (let attempt = 1; ; attempt++) {
    const port = opts.port ?? (await freePort());
    const inspectorPort = await freePort();
    try {
      return await spawnWranglerDev(opts, { port, inspectorPort, configPath, persistTo, cleanup });
    } catch (err) {
      const taken = /Address already in use \(127\.0\.0\.1:(\d+)\)/.exec((err as Error).message)?.[1];
      if (attempt < 3 && taken !== undefined && Number(taken) !== opts.port) continue;
      await cleanup();
      throw err;
    }
  }
}

interface Placement {
  port: number;
  inspectorPort: number;
  configPath: string;
  persistTo: string;
  cleanup: () => Promise<void>;
}

async function spawnWranglerDev(opts: WranglerDevOptions, { port, inspectorPort, configPath, persistTo, cleanup }: Placement): Promise<RunningWorker> {
  const args = [
    'dev',
    '--config', configPath,
    '--local',
    '--ip', '127.0.0.1',
    '--port', String(port),
    '--inspector-port', String(inspectorPort),
    '--persist-to', persistTo,
    '--show-interactive-dev-session=false',
    // GET /__scheduled runs the cron handler (usage cleanup, spec drift check) on demand.
    '--test-scheduled',
    '--log-level', opts.logLevel ?? 'info',
  ];
  // A local server has no edge in front of it: wrangler dev passes a client's own CF-Connecting-IP through, so the
  // per-IP limits count every client in one bucket (src/oauth/attempts.ts), whatever Host a request names.
  for (const [k, v] of Object.entries({ CLIENT_ADDRESS: 'shared', ...opts.vars })) args.push('--var', `${k}:${v}`);
  const t0 = Date.now();
  // Miniflare hands MINIFLARE_WORKERD_V8_FLAGS to the workerd it starts (its config's v8Flags).
  const heap = opts.workersHeap && !process.env.MINIFLARE_WORKERD_V8_FLAGS ? { MINIFLARE_WORKERD_V8_FLAGS: WORKERS_HEAP_V8_FLAGS.join(' ') } : {};
  const child = spawnChild('wrangler dev', join(binDir, 'wrangler'), args, {
    cwd: dirname(configPath),
    env: childEnv({ ...heap, ...opts.env }),
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    const timeoutMs = opts.timeoutMs ?? 180_000;
    await waitForLine(child, /Ready on http/, timeoutMs);
    // The first request starts the isolate and parses the catalogue; do it now rather than in the caller's face.
    await waitForHttp(`${url}/healthz`, child, timeoutMs);
  } catch (err) {
    await child.stop();
    throw err;
  }
  const stop = async () => {
    await child.stop();
    await cleanup();
  };
  return { url, endpoint: `${url}/mcp`, configPath, child, startMs: Date.now() - t0, stop, inspector: `ws://127.0.0.1:${inspectorPort}/ws` };
}
