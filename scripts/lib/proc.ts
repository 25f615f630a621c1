// Process helpers shared by `npm start`, `npm run serve` and the end-to-end tests:
// spawn a child in its own process group, keep a tail of its output, wait for readiness,
// stop it cleanly (SIGTERM to the group, then SIGKILL), pick free loopback ports.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, resolved from this file (scripts/lib/proc.ts), never from the cwd. */
export const repoRoot: string = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const binDir: string = join(repoRoot, 'node_modules', '.bin');

/**
 * Environment for children: node_modules/.bin first on PATH (so `node` is the pinned Node 22 and
 * wrangler never sees the machine's Node 20), and wrangler kept quiet and offline-friendly.
 */
export function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${binDir}:${process.env.PATH ?? ''}`,
    // Offline `wrangler dev` otherwise tries to fetch the Request.cf object and warns.
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_SEND_ERROR_REPORTS: 'false',
    WRANGLER_HIDE_BANNER: 'true',
    WRANGLER_NO_SKILLS_UPDATE_PROMPTS: 'true',
    // No "update available" network check from wrangler (it honours this like other npm CLIs).
    NO_UPDATE_NOTIFIER: '1',
    // Prism and wrangler colour their output; we prefix and re-print it.
    FORCE_COLOR: '0',
  };
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export interface Child {
  name: string;
  proc: ChildProcess;
  /** Last lines of combined stdout/stderr, for error messages. */
  tail(): string;
  /** Resolves with the exit code (or signal name) when the process has exited. */
  exited: Promise<number | string>;
  /** Register a callback for every output line (stdout and stderr). */
  onLine(cb: (line: string, stream: 'stdout' | 'stderr') => void): void;
  /** SIGTERM to the process group, SIGKILL after `graceMs`. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

interface SpawnOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  tailLines?: number;
}

/** Spawns `cmd` (resolved in node_modules/.bin first) as the leader of a new process group. */
export function spawnChild(name: string, cmd: string, args: string[], opts: SpawnOptions = {}): Child {
  const proc = spawn(cmd, args, {
    cwd: opts.cwd ?? repoRoot,
    env: opts.env ?? childEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // own process group: Ctrl-C reaches only us, and we stop the children in order
  });
  const lines: string[] = [];
  const max = opts.tailLines ?? 200;
  const listeners: Array<(line: string, stream: 'stdout' | 'stderr') => void> = [];
  const hook = (stream: 'stdout' | 'stderr') => {
    let buf = '';
    proc[stream]?.setEncoding('utf8');
    proc[stream]?.on('data', (chunk: string) => {
      buf += chunk;
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = stripAnsi(buf.slice(0, i).replace(/\r$/, ''));
        buf = buf.slice(i + 1);
        lines.push(line);
        if (lines.length > max) lines.shift();
        for (const l of listeners) l(line, stream);
      }
    });
  };
  hook('stdout');
  hook('stderr');
  const exited = new Promise<number | string>((res) => {
    proc.on('error', (err) => {
      lines.push(`spawn error: ${err.message}`);
      res('spawn-error');
    });
    proc.on('exit', (code, signal) => res(code ?? signal ?? 'unknown'));
  });
  let stopping: Promise<void> | undefined;
  const stop = (graceMs = 8000): Promise<void> => {
    stopping ??= (async () => {
      const pid = proc.pid;
      if (pid === undefined) return;
      const deadline = Date.now() + graceMs;
      const leaderRunning = proc.exitCode === null && proc.signalCode === null;
      if (!leaderRunning && !groupAlive(pid)) return;
      // A leader that already exited was signalled by someone else; the rest of its group is shutting down,
      // and a second signal could turn an orderly stop into a forced one. Only wait for it then.
      if (leaderRunning) signalGroup(pid, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs);
      await exited;
      // The leader may exit before the rest of its group (npm exits at once while the script it runs is still
      // stopping its own children): give the group the rest of the grace period, then kill what is left.
      while (groupAlive(pid) && Date.now() < deadline) await sleep(100);
      clearTimeout(timer);
      signalGroup(pid, 'SIGKILL');
    })();
    return stopping;
  };
  children.add(stop);
  void exited.then(() => children.delete(stop));
  return {
    name,
    proc,
    tail: () => lines.join('\n'),
    exited,
    onLine: (cb) => void listeners.push(cb),
    stop,
  };
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      /* already gone */
    }
  }
}

// Every live child, so a crash or exit of this process never leaves a group running.
const children = new Set<(graceMs?: number) => Promise<void>>();
process.on('exit', () => {
  for (const stop of children) void stop(2000); // sends SIGTERM synchronously; nothing after it runs
});

function stripAnsi(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

/** True when nothing listens on host:port (we can bind it). */
export async function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((res) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => res(false));
    srv.listen(port, host, () => srv.close(() => res(true)));
  });
}

export class StartError extends Error {}

/**
 * Polls `url` until it answers any HTTP status (the server is up), the child exits, or the timeout passes.
 * Returns the elapsed milliseconds.
 */
export async function waitForHttp(url: string, child: Child, timeoutMs: number, init?: RequestInit): Promise<number> {
  const t0 = Date.now();
  let dead: number | string | undefined;
  void child.exited.then((c) => (dead = c));
  while (Date.now() - t0 < timeoutMs) {
    if (dead !== undefined) {
      throw new StartError(`${child.name} exited (${dead}) before it was ready. Its last output:\n${child.tail()}`);
    }
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(Math.max(1000, timeoutMs - (Date.now() - t0))) });
      await res.arrayBuffer();
      return Date.now() - t0;
    } catch {
      await sleep(200);
    }
  }
  throw new StartError(`${child.name} was not ready at ${url} after ${Math.round(timeoutMs / 1000)} s. Its last output:\n${child.tail()}`);
}

/** Waits for a line matching `re` in the child's output. */
export async function waitForLine(child: Child, re: RegExp, timeoutMs: number): Promise<string> {
  return new Promise((res, rej) => {
    const timer = setTimeout(
      () => rej(new StartError(`${child.name}: no line matching ${re} after ${Math.round(timeoutMs / 1000)} s. Last output:\n${child.tail()}`)),
      timeoutMs,
    );
    child.onLine((line) => {
      if (re.test(line)) {
        clearTimeout(timer);
        res(line);
      }
    });
    void child.exited.then((c) => {
      clearTimeout(timer);
      rej(new StartError(`${child.name} exited (${c}) before it was ready. Its last output:\n${child.tail()}`));
    });
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Installs SIGINT/SIGTERM/SIGHUP handlers that run `cleanup` once, then exit with 0. A repeat within 2 s is
 * ignored (the same Ctrl-C delivered by npm and by the terminal); a later one forces the exit (130/143).
 */
export function onShutdown(cleanup: () => Promise<void>): void {
  let since = 0;
  const handler = (sig: NodeJS.Signals) => {
    if (since) {
      // Ctrl-C reaches both npm and this process, and npm forwards it too: the same keypress arrives twice.
      // Only a signal well after the first one is a second request, which forces the exit.
      if (Date.now() - since < 2000) return;
      process.stderr.write(`\n${sig} again: forcing exit\n`);
      process.exit(sig === 'SIGINT' ? 130 : 143);
    }
    since = Date.now();
    process.stderr.write(`\n${sig}: stopping…\n`);
    cleanup().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`cleanup failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  process.on('SIGHUP', handler);
}
