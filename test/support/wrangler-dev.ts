// Starts a real `wrangler dev` (workerd, local, offline) for end-to-end tests, on a free loopback port.
// The embedded catalogue (catalog/catalog.txt) by default, or any catalogue: pass `catalogueDir` (holding
// catalog.txt) or `catalogue` (an object, or catalogue text, written to a temp dir for you).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeCatalogueDir } from '../../scripts/catalog/catalogue-files.ts';
import { writeCatalogue } from '../../scripts/catalog/write-catalogue.ts';
import { dotenvJsonLine } from '../../scripts/lib/credential-args.ts';
import { startWranglerDev } from '../../scripts/lib/wrangler.ts';
import type { Catalogue } from '../../src/catalogue/types.ts';

/** The key the e2e workers accept in key mode (format: mcp_test_ + 32 characters). */
const E2E_KEY = 'mcp_test_e2e00000000000000000000000000000';

export interface WranglerDevOptions {
  /** Base URL of the upstream the tools call (Prism, the loopback upstream, …). */
  upstream: string;
  catalogueDir?: string;
  catalogue?: Catalogue | string;
  credentialMode?: 'key' | 'passthrough';
  /** API key in key mode; default E2E_KEY. */
  apiKey?: string;
  /** More worker vars (ALLOWED_HOSTS, DEFAULT_TOOLSETS, …). */
  vars?: Record<string, string>;
  port?: number;
  /** Extra environment for wrangler (NODE_EXTRA_CA_CERTS for a test CA). */
  env?: Record<string, string>;
  /**
   * Meter usage into a migrated local D1 (as `npm start` does). Off by default: USAGE_METERING=off, so the other
   * suites neither wait for a migration nor log flushes into a store without tables.
   */
  usage?: boolean;
  /** Local state directory (keys, usage); a fresh temp dir, removed on stop, when omitted. */
  persistTo?: string;
  /** Isolates sized as in production (128 MB heap), as `npm start` runs them (scripts/lib/wrangler.ts). */
  workersHeap?: boolean;
  /** Secrets (UPSTREAM_CREDENTIALS, …) by name, JSON-encoded into the worker's private .dev.vars, never a --var. */
  secrets?: Record<string, unknown>;
}

export interface WranglerDev {
  /** http://127.0.0.1:<port> */
  url: string;
  /** `${url}/mcp` */
  endpoint: string;
  apiKey: string;
  /** Headers a client in key mode sends. */
  auth: Record<string, string>;
  /** Milliseconds until the worker answered its first request. */
  startMs: number;
  /** Recent wrangler output (request log, console.log of the worker). */
  logs(): string;
  /** The isolate's DevTools endpoint (wrangler's proxy; connect with an Origin header). */
  inspector: string;
  /** The wrangler process (its descendants include the workerd serving the worker). */
  pid: number;
  stop(): Promise<void>;
}

export async function startWorker(opts: WranglerDevOptions): Promise<WranglerDev> {
  let dir = opts.catalogueDir;
  let ownDir: string | undefined;
  if (!dir && opts.catalogue !== undefined) {
    dir = ownDir = await mkdtemp(join(tmpdir(), 'mcp-e2e-catalogue-'));
    await writeCatalogueDir(dir, typeof opts.catalogue === 'string' ? { text: opts.catalogue, shards: new Map() } : await writeCatalogue(opts.catalogue));
  }
  const apiKey = opts.apiKey ?? E2E_KEY;
  const mode = opts.credentialMode ?? 'key';
  const vars: Record<string, string> = { ...(opts.usage ? {} : { USAGE_METERING: 'off' }), ...opts.vars, UPSTREAM_URL: opts.upstream, CREDENTIAL_MODE: mode };
  if (mode === 'key') vars.API_KEY = apiKey;
  let running;
  try {
    running = await startWranglerDev({ port: opts.port, catalogueDir: dir, vars, migrateUsage: opts.usage === true, ...(opts.persistTo ? { persistTo: opts.persistTo } : {}), ...(opts.env ? { env: opts.env } : {}), ...(opts.workersHeap ? { workersHeap: true } : {}), ...(opts.secrets ? { devVars: Object.entries(opts.secrets).map(([k, v]) => dotenvJsonLine(k, v)) } : {}) });
  } catch (err) {
    if (ownDir) await rm(ownDir, { recursive: true, force: true });
    throw err;
  }
  const r = running;
  return {
    url: r.url,
    endpoint: r.endpoint,
    apiKey,
    auth: { Authorization: `Bearer ${apiKey}` },
    startMs: r.startMs,
    logs: () => r.child.tail(),
    inspector: r.inspector,
    pid: r.child.proc.pid!,
    stop: async () => {
      await r.stop();
      if (ownDir) await rm(ownDir, { recursive: true, force: true });
    },
  };
}
