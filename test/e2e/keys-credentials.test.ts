// `npm run keys -- create … --credential NAME=VALUE`: a customer key's upstream credentials by security scheme name,
// checked against the spec's schemes before anything is written, sealed in the record (never printed, never stored in
// the clear), and opened by the Worker's own code with the same CREDENTIAL_ENCRYPTION_KEY.
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WranglerKv } from '../../scripts/keys/kv.ts';
import { repoRoot } from '../../scripts/lib/proc.ts';
import { decryptSecret, importEncryptionKey, NAMED_CREDENTIALS_CONTEXT, RECORD_PREFIX, type KeyRecord } from '../../src/auth/keys-core.ts';
import { bytesToBase64 } from '../../src/lib/bytes.ts';
import { AUTH_VALUES } from '../support/auth-values.ts';
import { keysCli } from './helpers.ts';

const SPEC = 'test/support/secured-api.json';
const ENC = bytesToBase64(crypto.getRandomValues(new Uint8Array(32)));
const states: string[] = [];
const state = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'keys-credentials-'));
  states.push(dir);
  return dir;
};
afterAll(async () => {
  for (const d of states) await rm(d, { recursive: true, force: true });
});

describe('keys create --credential', () => {
  it('seals the credentials by scheme in the record; the output names the schemes, never a value', async () => {
    const dir = await state();
    // --spec names the state of `npm run serve -- --spec <spec>` (MCP_PERSIST_TO moves it here) and the schemes checked.
    const out = await keysCli(['create', '--name', 'Acme', '--spec', SPEC, '--credential', `headerKey=${AUTH_VALUES.headerKey}`, '--credential-env', 'basicAuth=ACME_BASIC'], {
      MCP_PERSIST_TO: dir,
      CREDENTIAL_ENCRYPTION_KEY: ENC,
      ACME_BASIC: AUTH_VALUES.basicAuth,
      INIT_CWD: repoRoot,
    });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('upstream credentials: stored encrypted, for headerKey, basicAuth');
    for (const v of [AUTH_VALUES.headerKey, AUTH_VALUES.basicAuth]) expect(out.stdout + out.stderr).not.toContain(v);
    const kv = new WranglerKv({ remote: false, persistTo: dir, config: join(repoRoot, 'wrangler.toml') });
    const [entry] = await kv.list(RECORD_PREFIX);
    const record = JSON.parse((await kv.get(entry!.name))!) as KeyRecord;
    expect(JSON.stringify(record)).not.toContain(AUTH_VALUES.headerKey);
    const opened = await decryptSecret(await importEncryptionKey(ENC), record.upstreamCredentials!, record.hash, NAMED_CREDENTIALS_CONTEXT);
    expect(JSON.parse(opened)).toEqual({ headerKey: AUTH_VALUES.headerKey, basicAuth: AUTH_VALUES.basicAuth });
  });

  const refused = async (args: string[], env: Record<string, string> = { CREDENTIAL_ENCRYPTION_KEY: ENC }) => {
    const dir = await state();
    const out = await keysCli(['create', '--name', 'Acme', '--spec', SPEC, ...args], { ...env, MCP_PERSIST_TO: dir, INIT_CWD: repoRoot });
    expect(out.code).toBe(2);
    // Refused before any wrangler command ran: the local state is untouched.
    expect(readdirSync(dir)).toEqual([]);
    return out.stderr;
  };

  it('refuses a scheme the spec does not declare, a malformed value and a missing encryption key, by name, writing nothing', async () => {
    expect(await refused(['--credential', 'nosuch=x'])).toContain('--credential nosuch: the spec declares no security scheme named "nosuch"; its schemes are basicAuth');
    const basic = await refused(['--credential', 'basicAuth=colonless-secret-7']);
    expect(basic).toContain('--credential basicAuth: scheme basicAuth is HTTP basic: its credential is user:password');
    expect(basic).not.toContain('colonless-secret-7');
    expect(await refused(['--credential-env', 'headerKey=NOT_SET_ANYWHERE'])).toContain('--credential-env headerKey=NOT_SET_ANYWHERE: the environment variable NOT_SET_ANYWHERE is empty or unset');
    expect(await refused(['--credential', `headerKey=${AUTH_VALUES.headerKey}`], {})).toContain('needs CREDENTIAL_ENCRYPTION_KEY');
  });
});
