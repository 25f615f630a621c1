// A KV namespace (KEYS, or OAUTH_KV for grants) through `wrangler kv …`: --local (the `wrangler dev` state
// directory) or --remote.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binDir, childEnv, repoRoot } from '../lib/proc.ts';

interface KvTarget {
  remote: boolean;
  /** Local state directory (local only). */
  persistTo: string;
  /** wrangler config; default the repo's wrangler.toml. */
  config: string;
}

export interface KvListEntry {
  name: string;
  metadata?: Record<string, unknown> | null;
  /** Seconds since the epoch, for keys written with a TTL. */
  expiration?: number;
}

export class KvError extends Error {}

export class WranglerKv {
  readonly target: KvTarget;
  /** The namespace's binding name in the wrangler config. */
  readonly binding: string;
  constructor(target: KvTarget, binding = 'KEYS') {
    this.target = target;
    this.binding = binding;
  }

  /** The same target, another namespace. */
  namespace(binding: string): WranglerKv {
    return new WranglerKv(this.target, binding);
  }

  private args(): string[] {
    const a = ['--binding', this.binding, '--config', this.target.config];
    // `wrangler dev` (local) binds KEYS to the namespace's preview_id when one is set, so --local writes there;
    // --remote is the deployed (production) id.
    if (this.target.remote) a.push('--preview', 'false', '--remote');
    else a.push('--preview', '--local', '--persist-to', this.target.persistTo);
    return a;
  }

  async put(name: string, value: string, metadata?: unknown): Promise<void> {
    const extra = metadata === undefined ? [] : ['--metadata', JSON.stringify(metadata)];
    await run(['kv', 'key', 'put', name, value, ...this.args(), ...extra]);
  }

  async get(name: string): Promise<string | null> {
    const out = await run(['kv', 'key', 'get', name, '--text', ...this.args()], true);
    if (out.code !== 0) return null;
    const text = stripBanner(out.stdout);
    return text === 'Value not found' ? null : text;
  }

  async list(prefix: string): Promise<KvListEntry[]> {
    const out = await run(['kv', 'key', 'list', '--prefix', prefix, ...this.args()]);
    const text = stripBanner(out.stdout);
    const start = text.indexOf('[');
    if (start < 0) throw new KvError(`wrangler kv key list printed no JSON:\n${text.slice(0, 500)}`);
    return JSON.parse(text.slice(start)) as KvListEntry[];
  }

  /** Deletes these keys in one wrangler call (a key that is already gone is no error). */
  async deleteMany(names: string[]): Promise<void> {
    if (!names.length) return;
    const dir = await mkdtemp(join(tmpdir(), 'mcp-kv-delete-'));
    try {
      const file = join(dir, 'keys.json');
      await writeFile(file, JSON.stringify(names));
      await run(['kv', 'bulk', 'delete', file, '--force', ...this.args()]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

// wrangler prints a banner ("⛅️ wrangler …", "Resource location: local", a hint) before the value.
function stripBanner(stdout: string): string {
  const lines = stdout.split('\n');
  const i = lines.findIndex((l) => /^Use --remote|^Use --local|^Resource location/.test(l.trim()));
  let rest = lines;
  if (i >= 0) {
    let j = i;
    while (j < lines.length && (/^Use --|^Resource location/.test(lines[j]!.trim()) || lines[j]!.trim() === '')) j++;
    rest = lines.slice(j);
  }
  return rest.join('\n').replace(/\n+$/, '');
}

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * What wrangler prints when the local state was busy: a running `wrangler dev` (its workerd) holds the same SQLite
 * files for a moment. The lock itself (SQLITE_BUSY) reaches the CLI as KV's 500 or workerd's "internal error".
 */
export const BUSY_STATE = /connection lost|SQLITE_BUSY|database is locked|EBUSY|internal error; reference|KV \w+ failed: 5\d\d/i;

/** Runs wrangler; retries when the local state is busy, with a growing, jittered pause. */
export async function run(args: string[], allowFailure = false): Promise<RunResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await runOnce(args, allowFailure);
    } catch (e) {
      if (attempt >= 6 || !(e instanceof KvError) || !BUSY_STATE.test(e.message)) throw e;
      await new Promise((r) => setTimeout(r, 250 * attempt + Math.random() * 250));
    }
  }
}

function runOnce(args: string[], allowFailure: boolean): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(binDir, 'wrangler'), args, {
      cwd: repoRoot,
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const result = { code: code ?? 1, stdout, stderr };
      // A busy state is retried by run() even where a failure is an answer (get's "no such key").
      if (result.code !== 0 && (!allowFailure || BUSY_STATE.test(stderr))) {
        // The command line may hold a key record (hashes and ciphertext only); keep the message to wrangler's error.
        const err = (stderr.match(/ERROR.*$/m)?.[0] ?? stderr.trim().split('\n').slice(-3).join('\n')).replace(/\u001b\[[0-9;]*m/g, '');
        reject(new KvError(`wrangler kv ${args[1]} ${args[2]} failed (${result.code}): ${err}`));
      } else resolve(result);
    });
  });
}
