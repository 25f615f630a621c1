// The USAGE D1 database through `wrangler d1 …`: --local (the `wrangler dev` state directory) or --remote.
import { BUSY_STATE, run } from './kv.ts';

export interface D1Target {
  remote: boolean;
  /** Local state directory (local only); the same one `wrangler dev --persist-to` uses. */
  persistTo: string;
  /** wrangler config. */
  config: string;
}

export class D1Error extends Error {}

export const USAGE_BINDING = 'USAGE';

export class WranglerD1 {
  readonly target: D1Target;
  constructor(target: D1Target) {
    this.target = target;
  }

  private where(): string[] {
    const t = this.target;
    return ['--config', t.config, ...(t.remote ? ['--remote'] : ['--local', '--persist-to', t.persistTo])];
  }

  /** Runs SQL (one or more statements; no bound parameters through the CLI) and returns each statement's rows. */
  async execute(sql: string): Promise<Array<Array<Record<string, unknown>>>> {
    for (let attempt = 1; ; attempt++) {
      const out = await run(['d1', 'execute', USAGE_BINDING, '--json', '--command', sql, ...this.where()], true);
      const text = out.stdout.slice(Math.max(0, out.stdout.search(/[[{]/)));
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new D1Error(`wrangler d1 execute printed no JSON (exit ${out.code}): ${(out.stderr || out.stdout).trim().slice(0, 500)}`);
      }
      if (Array.isArray(parsed)) return parsed.map((r: { results?: Array<Record<string, unknown>> }) => r.results ?? []);
      const error = (parsed as { error?: { text?: string } }).error?.text ?? JSON.stringify(parsed).slice(0, 500);
      // Another wrangler process may hold the local state for a moment.
      if (attempt < 6 && BUSY_STATE.test(error)) {
        await new Promise((r) => setTimeout(r, 250 * attempt + Math.random() * 250));
        continue;
      }
      throw new D1Error(error);
    }
  }

  /** Applies migrations/ (wrangler records which ran, so this is a no-op when they all have). */
  async applyMigrations(): Promise<void> {
    const out = await run(['d1', 'migrations', 'apply', USAGE_BINDING, ...this.where()], true);
    if (out.code !== 0) throw new D1Error(`wrangler d1 migrations apply failed (${out.code}): ${(out.stderr || out.stdout).trim().split('\n').slice(-5).join('\n')}`);
  }

  /** The command an operator runs to create the tables on this target. */
  migrateHint(): string {
    const t = this.target;
    return `npx wrangler d1 migrations apply ${USAGE_BINDING} ${t.remote ? '--remote' : `--local --persist-to ${t.persistTo}`}`;
  }
}
