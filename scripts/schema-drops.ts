// npm run schema -- drop <tool> --reason <text> [--local|--remote] [--binding CONFIG|KEYS] [--persist-to <dir>] [--config <wrangler.toml>] [--force]
// npm run schema -- restore <tool> [--local|--remote] …
// npm run schema -- list [--local|--remote] …
//
// Edits the runtime schema drop list (KV key `schema-drops`, src/catalogue/schema-drop-list.ts) through `wrangler kv`,
// so a tool's outputSchema can be switched off without a redeploy, or an automatic drop (reason "auto") undone. New isolates honour a change at once; running
// ones within SCHEMA_DROPS_TTL_SECONDS (default 60 s) plus KV's edge cache (about 60 s). docs/sweep.md.
import { startState } from './lib/local-state.ts';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCatalogue } from '../src/catalogue/loaded-catalogue.ts';
import { AUTO_REASON, DROPS_KEY, parseDrops, type DropList } from '../src/catalogue/schema-drop-list.ts';
import { binDir, childEnv, repoRoot } from './lib/proc.ts';

const USAGE =
  'npm run schema -- drop <tool> --reason <text> [--local|--remote] [--binding CONFIG|KEYS] [--persist-to <dir>] [--config <file>] [--preview true|false] [--force]\n' +
  '       npm run schema -- restore <tool> [--local|--remote] [...]\n' +
  '       npm run schema -- list [--local|--remote] [...]';

interface SchemaCliOptions {
  binding: string;
  remote: boolean;
  persistTo?: string;
  config: string;
  /** --preview true|false for wrangler (needed when the binding has a preview_id). */
  preview?: boolean;
}

function wrangler(args: string[], o: SchemaCliOptions): { status: number; stdout: string; stderr: string } {
  const full = ['kv', 'key', ...args, '--binding', o.binding, '--config', o.config, o.remote ? '--remote' : '--local'];
  if (!o.remote && o.persistTo) full.push('--persist-to', o.persistTo);
  // A binding with both id and preview_id needs a choice. Local `wrangler dev` reads the preview namespace,
  // deployments the production one; so the default is preview for --local and production for --remote.
  if (o.preview !== undefined) full.push('--preview', String(o.preview));
  const r = spawnSync(join(binDir, 'wrangler'), full, { cwd: repoRoot, env: childEnv(), encoding: 'utf8' });
  return { status: r.status ?? 1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

function readDrops(o: SchemaCliOptions): DropList {
  const r = wrangler(['get', DROPS_KEY, '--text'], o);
  const out = r.stdout.trim();
  if (r.status !== 0 || !out || /^Value not found/i.test(out)) {
    if (/value not found/i.test(r.stdout + r.stderr) || (r.status === 0 && !out)) return { tools: {} };
    throw new Error(`wrangler kv key get failed (${r.status}):\n${r.stderr || r.stdout}`);
  }
  const parsed = parseDrops(out);
  if (parsed.error) throw new Error(`the stored ${DROPS_KEY} value is malformed (${parsed.error}); fix or delete it with wrangler kv key put/delete`);
  return parsed.list;
}

function writeDrops(list: DropList, o: SchemaCliOptions): void {
  const dir = mkdtempSync(join(tmpdir(), 'schema-drops-'));
  try {
    const file = join(dir, 'value.json');
    writeFileSync(file, JSON.stringify(list, null, 2));
    const r = wrangler(['put', DROPS_KEY, '--path', file], o);
    if (r.status !== 0) throw new Error(`wrangler kv key put failed (${r.status}):\n${r.stderr || r.stdout}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Canonical tool name of a name or alias in the embedded catalogue (catalog/catalog.txt); undefined when unknown. */
function catalogueNames(): { get(name: string): string | undefined; size: number } {
  try {
    const cat = loadCatalogue(readFileSync(join(repoRoot, 'catalog', 'catalog.txt'), 'utf8'));
    return {
      get: (name) => {
        const i = cat.indexOf(name);
        return i === undefined ? undefined : cat.name(i);
      },
      size: cat.count,
    };
  } catch {
    // No catalogue: no check.
    return { get: () => undefined, size: 0 };
  }
}

function hasPreviewId(config: string, binding: string): boolean {
  try {
    const text = readFileSync(config, 'utf8');
    const block = text.split('[[kv_namespaces]]').find((b) => new RegExp(`binding\\s*=\\s*"${binding}"`).test(b.split(/\n\[/)[0] ?? ''));
    return !!block && /preview_id\s*=/.test(block.split(/\n\[/)[0] ?? '');
  } catch {
    return false;
  }
}

function defaultBinding(config: string): string {
  try {
    return /binding\s*=\s*"CONFIG"/.test(readFileSync(config, 'utf8')) ? 'CONFIG' : 'KEYS';
  } catch {
    return 'KEYS';
  }
}

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        reason: { type: 'string' },
        local: { type: 'boolean', default: false },
        remote: { type: 'boolean', default: false },
        binding: { type: 'string' },
        'persist-to': { type: 'string' },
        config: { type: 'string', default: join(repoRoot, 'wrangler.toml') },
        force: { type: 'boolean', default: false },
        preview: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    });
  } catch (e) {
    process.stderr.write(`schema: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { values: a, positionals } = parsed;
  const [cmd, tool] = positionals;
  if (a.help || !cmd) {
    (a.help ? process.stdout : process.stderr).write(USAGE + '\n');
    return a.help ? 0 : 2;
  }
  if (a.local && a.remote) {
    process.stderr.write('schema: choose one of --local and --remote\n');
    return 2;
  }
  const binding = a.binding ?? defaultBinding(a.config!);
  const o: SchemaCliOptions = { binding, remote: a.remote, config: a.config!, ...(hasPreviewId(a.config!, binding) ? { preview: a.preview !== undefined ? a.preview !== 'false' : !a.remote } : {}), ...(a.remote ? {} : { persistTo: a['persist-to'] ?? startState() }) };
  const where = `${o.remote ? 'remote' : 'local'} KV binding ${o.binding}, key ${DROPS_KEY}`;
  try {
    if (cmd === 'list') {
      const list = readDrops(o);
      const entries = Object.entries(list.tools);
      if (!entries.length) process.stdout.write(`no tools dropped (${where})\n`);
      // Automatic drops (reason "auto") carry the first mismatching path and what happened.
      for (const [name, e] of entries) process.stdout.write(`${[name, e.at ?? '', e.reason, ...(e.path ? [e.path] : []), ...(e.detail ? [e.detail] : [])].join('\t')}\n`);
      return 0;
    }
    if (cmd !== 'drop' && cmd !== 'restore') {
      process.stderr.write(`schema: unknown command ${cmd}\n${USAGE}\n`);
      return 2;
    }
    if (!tool) {
      process.stderr.write(`schema: ${cmd} needs a tool name\n${USAGE}\n`);
      return 2;
    }
    const names = catalogueNames();
    const canonical = names.get(tool);
    if (names.size && !canonical && !a.force && cmd === 'drop') {
      process.stderr.write(`schema: ${tool} is not a tool of the embedded catalogue (catalog/catalog.txt); pass --force if the deployed catalogue differs\n`);
      return 2;
    }
    const name = canonical ?? tool;
    const list = readDrops(o);
    if (cmd === 'drop') {
      if (!a.reason?.trim()) {
        process.stderr.write('schema: drop needs --reason <text> (shown at /admin/schema-health)\n');
        return 2;
      }
      const prev = list.tools[name];
      list.tools[name] = { reason: a.reason.trim(), at: new Date().toISOString() };
      writeDrops(list, o);
      process.stdout.write(`${prev ? 'updated' : 'dropped'} outputSchema of ${name} (${where}); ${Object.keys(list.tools).length} tool(s) on the list\n`);
    } else {
      if (!list.tools[name] && !list.tools[tool]) {
        process.stdout.write(`${name} is not on the drop list (${where}); nothing to do\n`);
        return 0;
      }
      const auto = (list.tools[name] ?? list.tools[tool])?.reason === AUTO_REASON;
      delete list.tools[name];
      delete list.tools[tool];
      writeDrops(list, o);
      process.stdout.write(`restored outputSchema of ${name} (${where}); ${Object.keys(list.tools).length} tool(s) on the list\n`);
      if (auto) process.stdout.write('It was dropped automatically: if its responses still fail the schema, the worker drops it again after SCHEMA_AUTODROP_THRESHOLD mismatches.\n');
    }
    process.stdout.write('New isolates apply it at once; running isolates within SCHEMA_DROPS_TTL_SECONDS (default 60 s) plus up to ~60 s of KV caching.\n');
    return 0;
  } catch (e) {
    process.stderr.write(`schema: ${(e as Error).message}\n`);
    return 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('scripts/schema-drops.ts')) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
