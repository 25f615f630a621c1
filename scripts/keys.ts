// Operator CLI for customer API keys (docs/keys.md).
//
//   npm run keys -- create --name <customer> [--customer <id>] [--toolsets a,b] [--tools x,y] [--readonly]
//                          [--rate <n>/<sec|min|hour>] [--expires <date|30d|12h>]
//                          [--upstream-credential-env <VAR>] [--credential NAME=VALUE]... [--credential-env NAME=VAR]...
//                          [--live|--test] [--local|--remote]
//   npm run keys -- list [--all] [--grants] [--json] [--local|--remote]
//   npm run keys -- update <id|prefix> [--rate <n>/<unit>|none] [--toolsets a,b|all] [--tools x,y|all]
//                          [--readonly|--no-readonly] [--expires <date|30d|12h>|never] [--local|--remote]
//   npm run keys -- revoke <id|prefix> [--local|--remote]
//   npm run keys -- revoke-grant <grant id|prefix> [--local|--remote]
//   npm run keys -- usage [--key <id|prefix>] [--since 7d] [--until <date>] [--by tool|day] [--json] [--local|--remote]
//
// --local (the default) works on `npm start`'s local state (.wrangler/local/start), `--spec <file|url>` on the state
// of `npm run serve -- --spec <file|url>`, `--state <dir>` on any (scripts/lib/local-state.ts); --remote goes through
// wrangler to the deployed KEYS namespace.
// The key is printed once, as `key: <key>`; only its SHA-256 hash is stored.
import { readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  formatRate,
  metadataOf,
  newKey,
  parseRate,
  RECORD_PREFIX,
  USED_PREFIX,
  type KeyMetadata,
  type KeyRecord,
  type Rate,
} from '../src/auth/keys-core.ts';
import { loadCatalogue } from '../src/catalogue/loaded-catalogue.ts';
import { didYouMean } from '../src/lib/nearest.ts';
import { ArgsError, parseArgsWithHints } from './lib/parse-args.ts';
import { repoRoot } from './lib/proc.ts';
import { ACCOUNT_OWNER, grantLines, GrantNotFound, grantsByOwner, revokeOneGrant, revokeOwnerGrants, type GrantEntry } from './keys/grants.ts';
import { KvError, WranglerKv } from './keys/kv.ts';
import { WranglerD1 } from './keys/d1.ts';
import { serveState, startState } from './lib/local-state.ts';
import { findKey, KeyCommandError, updateKey, type KeyChanges } from './keys/update.ts';
import { usageCommand } from './keys/usage.ts';
import { CredentialOptionError, keyCredentials } from './keys/credentials.ts';
import { UsageQueryError } from '../src/usage/query.ts';

const USAGE = `Usage:
  npm run keys -- create --name <customer name> [options]
      --customer <id>              customer id (default: the name, lower-case, dashes)
      --toolsets a,b               allowed toolsets (default: all)
      --tools x,y                  allowed tools (default: all tools of the allowed toolsets)
      --readonly                   only tools marked readOnlyHint
      --rate <n>/<sec|min|hour>    per-key rate limit, e.g. 100/min (default: none)
      --expires <when>             ISO date/time (2027-01-31, 2027-01-31T12:00Z) or 30d / 12h from now
      --upstream-credential-env V  read this key's upstream credential from env var V (CREDENTIAL_MODE=customer);
                                   encrypted with CREDENTIAL_ENCRYPTION_KEY (env, or .dev.vars for --local)
      --credential NAME=VALUE      this key's credential for the spec's security scheme NAME (repeatable; customer
                                   mode): the key or token, user:password (basic), client_id:client_secret (OAuth 2)
      --credential-env NAME=VAR    the same, read from env var VAR; names are checked against --spec or --catalogue
      --live | --test              key prefix mcp_live_ / mcp_test_ (default: --test locally, --live remote)
      --catalogue <file>           catalogue to check names against (default catalog/catalog.txt)
  npm run keys -- list [--all] [--grants] [--json]
                                              --all includes revoked and expired keys; GRANTS counts the OAuth
                                              grants made from each key, --grants lists them
  npm run keys -- update <id|prefix> [options]   change a key in place (the customer keeps the same key):
      --rate <n>/<unit> | none     --toolsets a,b | all     --tools x,y | all
      --readonly | --no-readonly   --expires <when> | never
  npm run keys -- revoke <id|prefix>          a key id, a unique prefix of one, or a key hint (mcp_live_AbCd);
                                              also deletes every OAuth grant made from it
  npm run keys -- revoke-grant <id|prefix>    one OAuth grant (ids from list --grants); its tokens stop at once
  npm run keys -- usage [options]             calls per key and tool: outcomes, refusals, p50/p95, bytes (docs/usage.md)
      --key <id|prefix>            one key, or every key whose id starts so
      --since 7d|24h|<date>        window start (default 7d); --until <date> its end (default now)
      --by tool|day                one row per key and tool (default), or per key and UTC day
      --json                       the report as JSON (what GET /admin/usage returns)
Target (every command):
  --local (default)      local state: npm start's (.wrangler/local/start, or $MCP_PERSIST_TO) unless one of
    --spec <file|url>    the state of \`npm run serve -- --spec <file|url>\` (the same spec argument)
    --state <dir>        any state directory (--persist-to <dir> is the same)
  --remote               the deployed KEYS namespace and USAGE database (wrangler must be logged in)
  --config <file>        wrangler config (default wrangler.toml)`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const { values: o, positionals } = parseArgsWithHints({
    args: argv,
    allowPositionals: true,
    allowNegative: true,
    options: {
      name: { type: 'string' },
      customer: { type: 'string' },
      toolsets: { type: 'string' },
      tools: { type: 'string' },
      readonly: { type: 'boolean' },
      rate: { type: 'string' },
      expires: { type: 'string' },
      'upstream-credential-env': { type: 'string' },
      credential: { type: 'string', multiple: true },
      'credential-env': { type: 'string', multiple: true },
      live: { type: 'boolean' },
      test: { type: 'boolean' },
      catalogue: { type: 'string' },
      local: { type: 'boolean' },
      remote: { type: 'boolean' },
      'persist-to': { type: 'string' },
      state: { type: 'string' },
      spec: { type: 'string' },
      config: { type: 'string' },
      all: { type: 'boolean' },
      json: { type: 'boolean' },
      grants: { type: 'boolean' },
      key: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      by: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (o.help || !command) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  if (o.local && o.remote) throw new UsageError('choose one of --local and --remote');
  const remote = Boolean(o.remote);
  const kv = new WranglerKv({
    remote,
    persistTo: localState(o),
    config: resolve(o.config ?? join(repoRoot, 'wrangler.toml')),
  });

  if (command === 'create') {
    if (rest.length) throw new UsageError(`unexpected argument: ${rest[0]}`);
    await create(kv, o, remote);
  } else if (command === 'list') {
    await list(kv, Boolean(o.all), Boolean(o.json), Boolean(o.grants));
  } else if (command === 'update') {
    if (rest.length !== 1) throw new UsageError('update takes one key id or prefix');
    process.stdout.write(`${await updateKey(kv, rest[0]!, changesFrom(o))}\n`);
  } else if (command === 'revoke') {
    if (rest.length !== 1) throw new UsageError('revoke takes one key id or prefix');
    await revoke(kv, rest[0]!);
  } else if (command === 'revoke-grant') {
    if (rest.length !== 1) throw new UsageError('revoke-grant takes one grant id or prefix');
    const grant = await revokeOneGrant(kv.namespace('OAUTH_KV'), rest[0]!).catch((e: unknown) => {
      throw e instanceof GrantNotFound ? new UsageError(e.message) : e;
    });
    process.stdout.write(`revoked grant ${grant.id} (key ${grant.userId}, client ${grant.clientId}); its access and refresh tokens no longer work\n`);
  } else if (command === 'usage') {
    if (rest.length) throw new UsageError(`unexpected argument: ${rest[0]}`);
    const d1 = new WranglerD1(kv.target);
    const out = await usageCommand({ d1, keys: kv, key: o.key, since: o.since, until: o.until, by: o.by, json: Boolean(o.json) }).catch((e: unknown) => {
      throw e instanceof UsageQueryError ? new UsageError(e.message) : e;
    });
    process.stdout.write(out + '\n');
  } else {
    throw new UsageError(`unknown command "${command}"; the commands are create, list, update, revoke, revoke-grant and usage`);
  }
}

interface CreateOptions {
  name?: string;
  customer?: string;
  toolsets?: string;
  tools?: string;
  readonly?: boolean;
  rate?: string;
  expires?: string;
  'upstream-credential-env'?: string;
  credential?: string[];
  'credential-env'?: string[];
  spec?: string;
  live?: boolean;
  test?: boolean;
  catalogue?: string;
}

async function create(kv: WranglerKv, o: CreateOptions, remote: boolean): Promise<void> {
  const name = o.name?.trim();
  if (!name) throw new UsageError('create needs --name <customer name>');
  if (o.live && o.test) throw new UsageError('choose one of --live and --test');
  const customerId = o.customer?.trim() || slug(name);
  if (!customerId) throw new UsageError('--customer <id> is needed when the name has no letters or digits');
  const toolsets = splitList(o.toolsets);
  const tools = splitList(o.tools);
  checkNames(o.catalogue ?? join(repoRoot, 'catalog', 'catalog.txt'), toolsets, tools);
  let rate: Rate | undefined;
  try {
    rate = o.rate ? parseRate(o.rate) : undefined;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const expiresAt = o.expires ? parseExpiry(o.expires) : undefined;

  const sealed = await keyCredentials(o, remote).catch((e: unknown) => {
    throw e instanceof CredentialOptionError ? new UsageError(e.message) : e;
  });

  const prefix = o.live ? 'mcp_live_' : o.test ? 'mcp_test_' : remote ? 'mcp_live_' : 'mcp_test_';
  const made = await newKey({
    prefix,
    customer: { id: customerId, name },
    ...(toolsets ? { toolsets } : {}),
    ...(tools ? { tools } : {}),
    readOnly: Boolean(o.readonly),
    ...(rate ? { rate } : {}),
    ...(expiresAt ? { expiresAt } : {}),
    ...sealed,
  });
  await kv.put(RECORD_PREFIX + made.hash, JSON.stringify(made.record), metadataOf(made.record));
  const r = made.record;
  const out = [
    `key: ${made.key}`,
    `id: ${r.id}`,
    `customer: ${r.customer.name} (${r.customer.id})`,
    `scope: ${describeScope(r)}`,
    `rate: ${r.rate ? formatRate(r.rate) : 'unlimited'}`,
    `expires: ${r.expiresAt ?? 'never'}`,
    ...(r.upstreamCredential ? ['upstream credential: stored encrypted'] : []),
    ...(sealed.upstreamCredentials ? [`upstream credentials: stored encrypted, for ${Object.keys(sealed.upstreamCredentials).join(', ')}`] : []),
    `stored in: ${remote ? 'remote KEYS namespace' : `local state ${kv.target.persistTo}`}`,
    '',
    'This is the only time the key is shown. Give it to the customer now; only its hash is stored.',
  ];
  process.stdout.write(out.join('\n') + '\n');
}

async function list(kv: WranglerKv, all: boolean, json: boolean, showGrants: boolean): Promise<void> {
  const [records, used, grants] = await Promise.all([kv.list(RECORD_PREFIX), kv.list(USED_PREFIX), grantsByOwner(kv.namespace('OAUTH_KV'))]);
  const lastUsed = new Map(used.map((u) => [u.name.slice(USED_PREFIX.length), String(u.metadata?.day ?? '')]));
  const now = Date.now();
  const rows = records.map((e) => {
    const md = (e.metadata ?? {}) as Partial<KeyMetadata>;
    const hash = e.name.slice(RECORD_PREFIX.length);
    const status = md.revokedAt ? 'revoked' : md.expiresAt && !(Date.parse(md.expiresAt) > now) ? 'expired' : 'active';
    const id = md.id ?? hash.slice(0, 12);
    return { ...md, id, status, lastUsed: lastUsed.get(hash) || undefined, grants: grants?.get(id) ?? [] };
  });
  const shown = rows.filter((r) => all || r.status === 'active').sort((a, b) => String(a.createdAt).localeCompare(String(b.createdAt)));
  // Grants made with the operator key API_KEY, or with a connected upstream account alone (owner `accounts`), have
  // no record; they are listed by their owner id.
  const operator = [...(grants ?? [])].filter(([owner]) => owner.startsWith('operator-') || owner === ACCOUNT_OWNER);
  if (json) {
    process.stdout.write(JSON.stringify(shown, null, 2) + '\n');
    return;
  }
  if (!grants) process.stderr.write('keys: OAuth grants could not be listed (is OAUTH_KV bound in the wrangler config?); GRANTS shows ?\n');
  if (!shown.length && !operator.length) {
    process.stdout.write(all ? 'No keys.\n' : 'No active keys (--all shows revoked and expired ones).\n');
    return;
  }
  const header = ['ID', 'KEY', 'CUSTOMER', 'STATUS', 'CREATED', 'EXPIRES', 'LAST USED', 'RATE', 'GRANTS', 'SCOPE'];
  const table = shown.map((r) => [
    r.id,
    r.hint ? `${r.hint}…` : '',
    r.customer ? `${r.customer} (${r.customerId})` : '',
    r.status,
    day(r.createdAt),
    day(r.expiresAt) || 'never',
    r.lastUsed ?? 'never',
    r.rate ?? 'unlimited',
    grants ? String(r.grants.length) : '?',
    r.scope ?? 'all',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  const out = shown.length ? [line(header), ...table.map(line)] : [];
  for (const [owner, list] of operator) {
    const who = owner === ACCOUNT_OWNER ? 'connected upstream accounts alone (OAUTH_SIGN_IN=key-or-account)' : `operator key ${owner.slice('operator-'.length)} (API_KEY)`;
    out.push(`${who}: ${list.length} grant${list.length === 1 ? '' : 's'}`);
  }
  if (showGrants) {
    const owned: Array<[string, GrantEntry[]]> = [...shown.map((r): [string, GrantEntry[]] => [r.id, r.grants]), ...operator];
    const lines = owned.flatMap(([owner, list]) => grantLines(owner, list));
    out.push('', lines.length ? 'OAuth grants (npm run keys -- revoke-grant <grant id>):' : 'No OAuth grants.', ...lines);
  }
  process.stdout.write(out.join('\n') + '\n');
}

async function revoke(kv: WranglerKv, idOrPrefix: string): Promise<void> {
  const { name, record: r } = await findKey(kv, idOrPrefix);
  if (r.revokedAt) {
    process.stdout.write(`${r.id} (${r.customer.name}) was already revoked at ${r.revokedAt}\n`);
    return;
  }
  r.revokedAt = new Date().toISOString();
  await kv.put(name, JSON.stringify(r), metadataOf(r));
  // The Worker refuses the key's OAuth tokens as soon as it sees the record revoked; deleting the grants as well
  // frees their storage and ends them even where an isolate still holds the old record.
  const grants = await revokeOwnerGrants(kv.namespace('OAUTH_KV'), r.id).catch((e: unknown) => {
    if (!(e instanceof KvError)) throw e;
    process.stderr.write(`keys: the key is revoked, but its OAuth grants could not be deleted (${e.message}); its tokens are refused anyway\n`);
    return 0;
  });
  process.stdout.write(
    `revoked ${r.id} (${r.customer.name}) at ${r.revokedAt}` + (grants ? `, and its ${grants} OAuth grant${grants === 1 ? '' : 's'}` : '') + '\n' +
      (kv.target.remote
        ? 'Running isolates refuse it within about 90 s (KV propagation plus the per-isolate cache; docs/keys.md).\n'
        : 'A running wrangler dev refuses it within KEY_CACHE_TTL_SECONDS (30 s by default).\n'),
  );
}

/** update's flags as changes: `none`/`all`/`never` remove a setting; names are checked against the catalogue. */
function changesFrom(o: { rate?: string; toolsets?: string; tools?: string; readonly?: boolean; expires?: string; catalogue?: string }): KeyChanges {
  const changes: KeyChanges = {};
  if (o.rate !== undefined) {
    try {
      changes.rate = o.rate.trim().toLowerCase() === 'none' ? null : parseRate(o.rate);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  const all = (v: string) => ['all', ''].includes(v.trim().toLowerCase());
  if (o.toolsets !== undefined) changes.toolsets = all(o.toolsets) ? null : splitList(o.toolsets)!;
  if (o.tools !== undefined) changes.tools = all(o.tools) ? null : splitList(o.tools)!;
  checkNames(o.catalogue ?? join(repoRoot, 'catalog', 'catalog.txt'), changes.toolsets ?? undefined, changes.tools ?? undefined);
  if (o.readonly !== undefined) changes.readOnly = o.readonly;
  if (o.expires !== undefined) changes.expiresAt = o.expires.trim().toLowerCase() === 'never' ? null : parseExpiry(o.expires);
  return changes;
}

function describeScope(r: KeyRecord): string {
  const parts = [r.toolsets ? `toolsets ${r.toolsets.join(', ')}` : 'all toolsets', r.tools ? `tools ${r.tools.join(', ')}` : '', r.readOnly ? 'read-only' : ''];
  return parts.filter(Boolean).join('; ');
}

function checkNames(catalogueFile: string, toolsets: string[] | undefined, tools: string[] | undefined): void {
  if (!toolsets && !tools) return;
  if (!existsSync(catalogueFile)) throw new UsageError(`catalogue ${catalogueFile} not found; pass --catalogue <file>`);
  // Names and toolsets are index data: no tool is materialised, and a sharded catalogue needs no shard.
  const cat = loadCatalogue(readFileSync(catalogueFile, 'utf8'));
  const sets = cat.catalogue.toolsets;
  const badSets = (toolsets ?? []).filter((t) => t !== 'all' && !(t in sets));
  if (badSets.length) throw new UsageError(`unknown toolset${badSets.length > 1 ? 's' : ''}: ${badSets.join(', ')}.${badSets.map((t) => didYouMean(t, Object.keys(sets))).join('')} Valid: ${Object.keys(sets).join(', ')}`);
  const badTools = (tools ?? []).filter((t) => cat.indexOf(t) === undefined);
  if (badTools.length) throw new UsageError(`unknown tool${badTools.length > 1 ? 's' : ''}: ${badTools.join(', ')}.${badTools.map((t) => didYouMean(t, [...cat.names()])).join('')}`);
}

function parseExpiry(raw: string): string {
  const rel = /^(\d+)\s*([dh])$/i.exec(raw.trim());
  const t = rel ? Date.now() + Number(rel[1]) * (rel[2]!.toLowerCase() === 'd' ? 86_400_000 : 3_600_000) : Date.parse(raw);
  if (!Number.isFinite(t)) throw new UsageError(`--expires: "${raw}" is not a date (2027-01-31, 2027-01-31T12:00Z) or a duration (30d, 12h)`);
  if (t <= Date.now()) throw new UsageError(`--expires: ${new Date(t).toISOString()} is in the past`);
  return new Date(t).toISOString();
}

/** The local state directory the flags name: --state/--persist-to, else --spec's (as npm run serve), else npm start's. */
function localState(o: { state?: string; 'persist-to'?: string; spec?: string }): string {
  if (o.state && o['persist-to'] && resolve(o.state) !== resolve(o['persist-to'])) throw new UsageError('--state and --persist-to name the same thing; give one');
  const dir = o.state ?? o['persist-to'];
  if (dir && o.spec) throw new UsageError('choose one of --state and --spec');
  if (dir) return resolve(process.env.INIT_CWD ?? process.cwd(), dir);
  return o.spec ? serveState(o.spec) : startState();
}

function splitList(raw: string | undefined): string[] | undefined {
  const items = (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return items.length ? items : undefined;
}

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64);
}

function day(iso: string | undefined): string {
  return iso ? iso.slice(0, 10) : '';
}

main(process.argv.slice(2)).catch((e: unknown) => {
  if (e instanceof UsageError || e instanceof ArgsError || e instanceof KeyCommandError) {
    // The error alone: the whole usage text would bury it. --help prints that.
    process.stderr.write(`keys: ${(e as Error).message}\n(npm run keys -- --help lists the commands and their options)\n`);
    process.exit(2);
  }
  process.stderr.write(`keys: ${e instanceof KvError ? e.message : e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
