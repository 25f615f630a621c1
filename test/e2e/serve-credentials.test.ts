// `npm run serve -- --spec … --upstream … --credential NAME=VALUE` against a real upstream that checks credentials
// (test/support/auth-upstream.ts): the credentials reach wrangler through a private file, never a command line; each
// is sent as its scheme says, a client-credentials token included; and a credential for a scheme the spec lacks, or
// one that cannot work, stops serve before anything starts, naming the scheme.
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { dotenvJsonLine } from '../../scripts/lib/credential-args.ts';
import { freePort, spawnChild, childEnv } from '../../scripts/lib/proc.ts';
import { startWranglerDev } from '../../scripts/lib/wrangler.ts';
import { startAuthUpstream } from '../support/auth-upstream.ts';
import { AUTH_VALUES, clientSecretOf } from '../support/auth-values.ts';
import { connectV1, npmUntilBanner, textOf, type BannerChild } from './helpers.ts';

const SPEC = 'test/support/secured-api.json';
const CLIENT = 'serve-e2e-client';
let upstream: { url: string; close: () => Promise<void> };
let served: BannerChild | undefined;

/** Every process's command line on this machine (what `ps` shows anyone). */
function commandLines(): Array<{ pid: string; cmd: string }> {
  const out: Array<{ pid: string; cmd: string }> = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      out.push({ pid, cmd: readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ') });
    } catch {
      /* gone */
    }
  }
  return out;
}

beforeAll(async () => {
  upstream = await startAuthUpstream();
  served = await npmUntilBanner(
    ['run', 'serve', '--', '--spec', SPEC, '--upstream', upstream.url, '--port', String(await freePort()), '--credential', `headerKey=${AUTH_VALUES.headerKey}`, '--credential-env', 'queryKey=E2E_QUERY_KEY', '--credential-env', 'clientApp=E2E_CLIENT'],
    { PORT: undefined, E2E_QUERY_KEY: AUTH_VALUES.queryKey, E2E_CLIENT: `${CLIENT}:${clientSecretOf(CLIENT)}` },
  );
});

afterAll(async () => {
  await served?.child.stop();
  await upstream?.close();
});

describe('npm run serve --credential', () => {
  it('names the configured schemes in the banner, never their values', () => {
    expect(served!.stdout()).toContain('upstream credentials: clientApp, headerKey, queryKey (by security scheme; values are not shown)');
    // npm echoes the command it runs (the operator's own line, with the one value given directly): everything else is ours.
    const ours = served!.child.tail().split('\n').filter((l) => !l.startsWith('> node scripts/serve.ts')).join('\n');
    for (const v of [AUTH_VALUES.headerKey, AUTH_VALUES.queryKey, clientSecretOf(CLIENT)]) expect(ours).not.toContain(v);
  });

  it('no wrangler or workerd process has a credential on its command line; those from the environment are on none', () => {
    const lines = commandLines();
    const servers = lines.filter((l) => /wrangler|workerd/.test(l.cmd));
    expect(servers.length).toBeGreaterThan(0);
    for (const l of servers) expect(l.cmd).not.toContain(AUTH_VALUES.headerKey);
    for (const l of lines) {
      expect(l.cmd).not.toContain(AUTH_VALUES.queryKey);
      expect(l.cmd).not.toContain(clientSecretOf(CLIENT));
    }
  });

  it('sends each credential as its scheme says, through wrangler dev, and refuses the scheme it lacks', async () => {
    const client = await connectV1(served!.endpoint, { Authorization: `Bearer ${served!.key}` });
    try {
      for (const name of ['header_key', 'query_key', 'client_credentials', 'public_status']) {
        const r = await client.callTool({ name, arguments: {} });
        expect(r.isError, `${name}: ${textOf(r)}`).toBeFalsy();
      }
      const missing = await client.callTool({ name: 'cookie_key', arguments: {} });
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toMatch(/needs an upstream credential this server does not have: cookieKey/);
      const listed = (await client.listTools()).tools.find((t) => t.name === 'cookie_key');
      expect(listed?.description).toMatch(/Unavailable here: no upstream credential configured for cookieKey\.$/);
    } finally {
      await client.close();
    }
  });
});

describe('npm run serve refuses a credential that cannot work, by scheme name', () => {
  const serveExit = async (credential: string) => {
    const child = spawnChild('serve', 'npm', ['run', 'serve', '--', '--spec', SPEC, '--upstream', 'http://127.0.0.1:9', '--credential', credential], { env: childEnv({}) });
    const code = await child.exited;
    return { code, output: child.tail() };
  };

  it('a scheme the spec does not declare', async () => {
    const { code, output } = await serveExit('nosuch=abc');
    expect(code).toBe(2);
    expect(output).toContain('--credential nosuch: the spec declares no security scheme named "nosuch"; its schemes are basicAuth, bearerAuth, clientApp');
  });

  it('basic without a colon, never quoting the value', async () => {
    const { code, output } = await serveExit('basicAuth=passwordonly9x');
    expect(code).toBe(2);
    expect(output).toContain('--credential basicAuth: scheme basicAuth is HTTP basic: its credential is user:password, with a colon');
    expect(output.replace(/basicAuth=passwordonly9x/g, '')).not.toContain('passwordonly9x');
  });
});

describe('npm start --credential', () => {
  it('is checked against catalog/catalog.txt: GitHub’s declares no scheme', async () => {
    const child = spawnChild('start', 'npm', ['start', '--', '--credential', 'apikey=abc'], { env: childEnv({}) });
    expect(await child.exited).toBe(2);
    expect(child.tail()).toContain('--credential apikey: the spec declares no security scheme named "apikey"; it declares none');
  });

  it('its wrangler dev gets the secret from a private .dev.vars beside a temp config that serves the repo catalogue', async () => {
    const worker = await startWranglerDev({ devVars: [dotenvJsonLine('UPSTREAM_CREDENTIALS', { nosuch: "v-'$x`-123" })], logLevel: 'log' });
    const configDir = dirname(worker.configPath);
    try {
      expect(((await (await fetch(`${worker.url}/healthz`)).json()) as { catalogue: { tools: number } }).catalogue.tools).toBe(1223);
      expect(existsSync(`${configDir}/.dev.vars`)).toBe(true);
      // The first MCP request reads the config: the secret arrived as JSON (quotes, $ and a backtick intact), and its
      // scheme name, not its value, is logged as a problem.
      await (await fetch(worker.endpoint, { method: 'POST', body: '{}' })).text();
      for (let i = 0; i < 50 && !worker.child.tail().includes('config_error'); i++) await new Promise((r) => setTimeout(r, 100));
      expect(worker.child.tail()).toContain('UPSTREAM_CREDENTIALS: the spec declares no security scheme named \\"nosuch\\"');
      expect(worker.child.tail()).not.toContain('`-123');
      for (const l of commandLines()) expect(l.cmd).not.toContain('-123');
    } finally {
      await worker.stop();
    }
    expect(existsSync(configDir)).toBe(false);
  });
});
