// The common path of `npm start` and `npm run serve`: upstream (Prism mock unless a real URL is given),
// then `wrangler dev`, then the banner; Ctrl-C stops both children.
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { Running } from './prism.ts';
import { startSpecMock } from './spec-mock.ts';
import { isPortFree, onShutdown, repoRoot, StartError, type Child } from './proc.ts';
import { dotenvJsonLine } from './credential-args.ts';
import { startWranglerDev } from './wrangler.ts';

/** The documented local key: `mcp_test_` + 32 characters. Only ever accepted by a local `npm start`/`serve`. */
export const LOCAL_KEY = 'mcp_test_localdev000000000000000000000000';

export const DEFAULT_PORT = 8787;

interface ServeOptions {
  /** Key of the server in the printed mcpServers snippet. */
  name: string;
  /** Spec that Prism mocks when `upstream` is not set. */
  mockSpec: string;
  /** A real upstream base URL; when set, no Prism is started. */
  upstream?: string;
  /** Directory holding catalog.txt; the embedded catalog/ when omitted. */
  catalogueDir?: string;
  port: number;
  key: string;
  credentialMode: 'key' | 'passthrough';
  /** Extra worker vars, e.g. ALLOWED_HOSTS. */
  vars?: Record<string, string>;
  /** Local state directory (scripts/lib/local-state.ts), and the keys CLI flags that reach it. */
  state: { dir: string; keysFlags: string };
  /** Upstream credentials by scheme name (--credential), handed to the worker as the secret UPSTREAM_CREDENTIALS in a file. */
  credentials?: Record<string, string>;
}

interface Banner {
  endpoint: string;
  key: string;
  snippet: string;
}

export function banner(name: string, endpoint: string, credentialMode: 'key' | 'passthrough', key: string): Banner {
  const bearer = credentialMode === 'key' ? key : '<your upstream token>';
  const snippet = JSON.stringify({ mcpServers: { [name]: { url: endpoint, headers: { Authorization: `Bearer ${bearer}` } } } });
  return { endpoint, key: credentialMode === 'key' ? key : '<your upstream token> (passthrough)', snippet };
}

async function describeCatalogue(dir: string): Promise<string> {
  try {
    const c = loadCatalogue(await readFile(join(dir, 'catalog.txt'), 'utf8'));
    const { title, version } = c.catalogue.source;
    return `${title || 'untitled'} ${version}`.trim() + `, ${c.count} tools` + (c.sharded ? ' (sharded)' : '');
  } catch (err) {
    throw new StartError(`cannot read ${join(dir, 'catalog.txt')}: ${String(err)}`);
  }
}

function pipeLogs(child: Child, prefix: string): void {
  child.onLine((line) => {
    if (line.trim()) process.stderr.write(`${prefix} ${line}\n`);
  });
}

/** Runs until SIGINT/SIGTERM or until a child dies. Never resolves on success. */
export async function serve(opts: ServeOptions): Promise<void> {
  const running: Running[] = [];
  // Mocks without a child process of their own (the built-in mock runs in this process).
  const others: Array<{ stop(): Promise<void> }> = [];
  let shuttingDown = false;
  const stopAll = async () => {
    shuttingDown = true;
    // Worker first (it calls the mock), then the mock.
    for (const r of [...running].reverse()) await r.stop();
    for (const o of others) await o.stop();
  };
  onShutdown(stopAll);

  const catalogueDir = opts.catalogueDir ?? join(repoRoot, 'catalog');
  const what = await describeCatalogue(catalogueDir);
  const log = (s: string) => process.stderr.write(`${s}\n`);

  try {
    if (!(await isPortFree(opts.port))) {
      throw new StartError(`port ${opts.port} on 127.0.0.1 is already in use (another npm start?); stop it or choose another port (PORT=… / --port …)`);
    }
    let upstream = opts.upstream;
    let mockLabel = '';
    if (!upstream) {
      log(`starting Prism mock of ${opts.mockSpec} (the spec's examples, generated data where it has none; security requirements ignored) …`);
      const mockDir = opts.catalogueDir ?? (await mkdtemp(join(tmpdir(), 'mcp-mock-')));
      if (!opts.catalogueDir) process.on('exit', () => rmSync(mockDir, { recursive: true, force: true }));
      const mock = await startSpecMock(opts.mockSpec, mockDir, log);
      if (mock.prism) running.push({ ...mock.prism, url: mock.url, stop: mock.stop });
      else others.push(mock);
      upstream = mock.url;
      mockLabel = mock.label;
    } else {
      log(`no mock: tools call ${upstream} directly` + (opts.credentialMode === 'passthrough' ? ' (passthrough: each caller’s bearer token is forwarded upstream)' : ''));
    }
    log(`starting wrangler dev on 127.0.0.1:${opts.port} (${what}) …`);
    const vars: Record<string, string> = { ...opts.vars, UPSTREAM_URL: upstream, CREDENTIAL_MODE: opts.credentialMode };
    if (opts.credentialMode === 'key') vars.API_KEY = opts.key;
    // The mock takes any request: no call is refused, or sent a credential, for the spec's security schemes.
    if (!opts.upstream) vars.UPSTREAM_SECURITY = 'ignore';
    const names = Object.keys(opts.credentials ?? {}).sort();
    if (names.length && !opts.upstream) log(`credentials for ${names.join(', ')} are not used: the mock needs none (give --upstream to call the real API)`);
    const devVars = names.length && opts.upstream ? [dotenvJsonLine('UPSTREAM_CREDENTIALS', opts.credentials)] : undefined;
    // This catalogue's own local state, where `npm run keys -- … --local` (with the same --spec, or none for
    // npm start) writes keys and reads usage; the usage tables are created there (docs/keys.md, docs/usage.md).
    const persistTo = opts.state.dir;
    const worker = await startWranglerDev({ port: opts.port, vars, catalogueDir: opts.catalogueDir, persistTo, migrateUsage: true, log, workersHeap: true, ...(devVars ? { devVars } : {}) });
    running.push(worker);
    log(`wrangler dev ready in ${(worker.startMs / 1000).toFixed(1)} s`);
    // A first drift check, so /healthz describes the spec as it is now rather than a check kept in the local state
    // from an earlier run (docs/operations.md, "Spec drift"); GET /__scheduled runs it again at any time.
    if (vars.SPEC_URL) await fetch(`${worker.url}/__scheduled`).then((r) => r.body?.cancel(), () => {});

    for (const r of running) {
      pipeLogs(r.child, r.child.name === 'prism' ? '[mock]  ' : '[worker]');
      void r.child.exited.then(async (code) => {
        if (shuttingDown) return;
        log(`${r.child.name} exited unexpectedly (${code}); stopping.\n${r.child.tail().split('\n').slice(-20).join('\n')}`);
        await stopAll();
        process.exit(1);
      });
    }

    const b = banner(opts.name, worker.endpoint, opts.credentialMode, opts.key);
    const out = [
      '',
      `MCP server ready: ${what}`,
      `upstream: ${upstream}${opts.upstream ? '' : ` (${mockLabel})`}`,
      ...(devVars ? [`upstream credentials: ${names.join(', ')} (by security scheme; values are not shown)`] : []),
      `endpoint: ${b.endpoint}`,
      `key: ${b.key}`,
      `local state: ${shownPath(persistTo)} (keys and usage: npm run keys -- list${opts.state.keysFlags}, npm run keys -- usage${opts.state.keysFlags})`,
      '',
      'Add this to your MCP client configuration:',
      b.snippet,
      '',
      ...(opts.credentialMode === 'passthrough'
        ? ['Passthrough mode: the bearer token each client sends is forwarded to the upstream unchanged.']
        : [
            'Send the key as `Authorization: Bearer <key>`; requests without it get HTTP 401.',
            ...(opts.vars?.OAUTH?.trim().toLowerCase() === 'off'
              ? []
              : [`OAuth clients (connectors that cannot send headers) use the endpoint alone: the consent page at ${worker.url}/authorize takes the key.`]),
          ]),
      'Press Ctrl-C to stop.',
      '',
    ];
    process.stdout.write(out.join('\n') + '\n');
  } catch (err) {
    await stopAll();
    const msg = err instanceof StartError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
    process.stderr.write(`\nfailed to start: ${msg}\n`);
    process.exit(1);
  }
}

/** A path as the banner shows it: relative to the repo when inside it, else absolute. */
function shownPath(p: string): string {
  const rel = relative(repoRoot, p);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : p;
}
