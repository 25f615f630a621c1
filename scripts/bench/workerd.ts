// workerd run directly on the bench worker's bundle, without wrangler dev's proxy in front (which costs more than
// the Worker itself at this scale: docs/benchmarks.md). The same workerd build wrangler uses, one process, one
// isolate; the config is written next to the bundle (workerd embeds only files below the config's directory).
import { createRequire } from 'node:module';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { connect } from 'node:net';
import { childEnv, freePort, repoRoot, spawnChild, waitForHttp, type Child } from '../lib/proc.ts';
import type { Server } from './servers.ts';

/** The workerd binary wrangler itself runs (wrangler pins its own build). */
export function workerdBinary(): string {
  const fromWrangler = createRequire(createRequire(join(repoRoot, 'package.json')).resolve('wrangler/package.json'));
  return (fromWrangler('workerd') as { default: string }).default;
}

export interface DirectWorker extends Server {
  pid: number;
  /** CDP WebSocket of the isolate, when started with an inspector. */
  inspector?: string;
}

const capnpString = (s: string) => JSON.stringify(s);

/**
 * Serves `bundleDir` (the output of `wrangler deploy --dry-run --outdir` for the bench config) with workerd.
 * Bindings: text vars, and the rate-limit Durable Object in memory; no KV (API_KEY authenticates) and no D1, so usage
 * metering stays off here (it logs the missing binding once); the wrangler dev rows meter into a local D1.
 */
export async function startWorkerdDirect(bundleDir: string, vars: Record<string, string>, options: { inspector?: boolean; noRequest?: boolean } = {}): Promise<DirectWorker> {
  // Recursive: additional modules keep their path under src/ (code mode's codemode/generated/*.txt).
  const files = (await readdir(bundleDir, { recursive: true }))
    .map((f) => f.split(sep).join('/'))
    .filter((f) => f.endsWith('.js') || f.endsWith('.txt'))
    .sort((a, b) => Number(b === 'worker.js') - Number(a === 'worker.js'));
  const toml = await readFile(join(repoRoot, 'wrangler.toml'), 'utf8');
  const compat = /compatibility_date\s*=\s*"([^"]+)"/.exec(toml)?.[1] ?? '2026-10-01';
  const port = await freePort();
  const modules = files.map((f) => (f.endsWith('.js') ? `(name = ${capnpString(f)}, esModule = embed ${capnpString(`bundle/${f}`)})` : `(name = ${capnpString(f)}, text = embed ${capnpString(`bundle/${f}`)})`));
  const bindings = Object.entries(vars).map(([k, v]) => `(name = ${capnpString(k)}, text = ${capnpString(v)})`);
  bindings.push('(name = "KEY_RATE_LIMITER", durableObjectNamespace = "KeyRateLimiter")');
  const config = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .bench),
    (name = "internet", network = (allow = ["public", "private", "local"], tlsOptions = (trustBrowserCas = true))) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ] );
const bench :Workerd.Worker = (
  modules = [ ${modules.join(',\n    ')} ],
  compatibilityDate = ${capnpString(compat)},
  compatibilityFlags = ["nodejs_compat"],
  bindings = [ ${bindings.join(',\n    ')} ],
  durableObjectNamespaces = [ (className = "KeyRateLimiter", uniqueKey = "bench-rl", enableSql = true) ],
  durableObjectStorage = (inMemory = void),
  globalOutbound = "internet" );
`;
  const configPath = join(bundleDir, '..', 'workerd.capnp');
  await writeFile(configPath, config);
  const args = ['serve', configPath, '--experimental'];
  let inspector: string | undefined;
  if (options.inspector) {
    const inspectorPort = await freePort();
    args.push(`--inspector-addr=127.0.0.1:${inspectorPort}`);
    inspector = `ws://127.0.0.1:${inspectorPort}/main`;
  }
  const t0 = Date.now();
  const child = spawnChild('workerd (direct)', workerdBinary(), args, { cwd: join(bundleDir, '..'), env: childEnv() });
  const url = `http://127.0.0.1:${port}`;
  try {
    // noRequest: ready once the socket listens, so the isolate has run its global scope and nothing else.
    if (options.noRequest) await waitForListen(port, child, 60_000);
    else await waitForHttp(`${url}/healthz`, child, 60_000);
  } catch (e) {
    await child.stop();
    throw e;
  }
  return { url, child, pid: child.proc.pid!, inspector, startMs: Date.now() - t0, stop: () => child.stop() };
}

async function waitForListen(port: number, child: Child, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.proc.exitCode !== null) throw new Error(`workerd exited: ${child.tail()}`);
    const open = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`workerd did not listen on ${port} within ${timeoutMs} ms`);
}

/** CPU time (user + system, ms) the process has used so far, from /proc (all threads). */
export async function processCpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may contain spaces) start at field 3; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** Linux's USER_HZ, what /proc reports times in; 100 on every mainstream distribution and architecture. */
const CLOCK_TICKS = 100;
