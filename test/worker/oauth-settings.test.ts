// OAuth settings from wrangler vars, and the client address the consent attempt limit counts by.
import { env as bindings } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { clientIp as ipOf, SHARED_BUCKET } from '../../src/oauth/attempts.ts';
import { readOAuthSettings } from '../../src/oauth/settings.ts';

const withKv = { OAUTH_KV: bindings.KEYS };

describe('readOAuthSettings', () => {
  it('follows the OAUTH_KV binding while OAUTH is unset, so a config without it keeps bearer keys only', () => {
    expect(readOAuthSettings({}, 'key').enabled).toBe(false);
    expect(readOAuthSettings(withKv, 'key').enabled).toBe(true);
  });

  it('is on by default with the documented lifetimes, per-IP limits and refresh retry window', () => {
    expect(readOAuthSettings(withKv, 'key')).toEqual({
      enabled: true,
      accessTokenTtl: 3600,
      refreshTokenTtl: 2_592_000,
      refreshIdleTtl: undefined,
      keyAttempts: { limit: 10, period: 'minute' },
      registerRate: { limit: 60, period: 'hour' },
      authorizeRate: { limit: 60, period: 'hour' },
      refreshRetrySeconds: 30,
      clientAddress: 'auto',
      accountSignIn: false,
      upstreamScopes: {},
    });
  });

  it('reads OAUTH=off, lifetimes and the attempt limit', () => {
    expect(readOAuthSettings({ OAUTH: 'off' }, 'key').enabled).toBe(false);
    const s = readOAuthSettings(
      { ...withKv, OAUTH: 'ON', OAUTH_ACCESS_TOKEN_TTL: '600', OAUTH_REFRESH_TOKEN_TTL: '86400', OAUTH_REFRESH_IDLE_TTL: '3600', OAUTH_KEY_ATTEMPTS: '20/hour', OAUTH_REGISTER_RATE: '5/min', OAUTH_AUTHORIZE_RATE: '30/hour', OAUTH_REFRESH_RETRY_SECONDS: '0', OAUTH_SIGN_IN: 'Key-or-Account', UPSTREAM_OAUTH_SCOPES: '{"userAuth": " read  write "}' },
      'gateway',
    );
    expect(s).toEqual({
      enabled: true,
      accessTokenTtl: 600,
      refreshTokenTtl: 86_400,
      refreshIdleTtl: 3600,
      keyAttempts: { limit: 20, period: 'hour' },
      registerRate: { limit: 5, period: 'minute' },
      authorizeRate: { limit: 30, period: 'hour' },
      refreshRetrySeconds: 0,
      clientAddress: 'auto',
      accountSignIn: true,
      upstreamScopes: { userAuth: ['read', 'write'] },
    });
  });

  it('is off in passthrough mode, where a grant would have no upstream token to forward', () => {
    expect(readOAuthSettings({}, 'passthrough').enabled).toBe(false);
  });

  it('names the var in every configuration error', () => {
    expect(() => readOAuthSettings({ ...withKv, OAUTH: 'maybe' }, 'key')).toThrow(/OAUTH must be "on" or "off"; got "maybe"/);
    expect(() => readOAuthSettings({ OAUTH: 'on' }, 'key')).toThrow(/OAUTH=on needs the OAUTH_KV/);
    expect(() => readOAuthSettings({ ...withKv, OAUTH_ACCESS_TOKEN_TTL: '30' }, 'key')).toThrow(/OAUTH_ACCESS_TOKEN_TTL .* at least 60; got "30"/);
    expect(() => readOAuthSettings({ ...withKv, OAUTH_REFRESH_TOKEN_TTL: '1.5e9x' }, 'key')).toThrow(/OAUTH_REFRESH_TOKEN_TTL/);
    expect(() => readOAuthSettings({ ...withKv, OAUTH_KEY_ATTEMPTS: 'lots' }, 'key')).toThrow(/OAUTH_KEY_ATTEMPTS: rate must look like/);
    expect(() => readOAuthSettings({ ...withKv, OAUTH_REGISTER_RATE: '0/min' }, 'key')).toThrow(/OAUTH_REGISTER_RATE: rate must look like/);
    expect(() => readOAuthSettings({ ...withKv, OAUTH_AUTHORIZE_RATE: 'unlimited' }, 'key')).toThrow(/OAUTH_AUTHORIZE_RATE: rate must look like/);
    expect(() => readOAuthSettings({ ...withKv, OAUTH_REFRESH_RETRY_SECONDS: '3600' }, 'key')).toThrow(/OAUTH_REFRESH_RETRY_SECONDS .* 0 \(no retry\) to 300; got "3600"/);
    expect(() => readOAuthSettings({ ...withKv, OAUTH_SIGN_IN: 'account' }, 'key')).toThrow(/OAUTH_SIGN_IN must be "key" .* or "key-or-account" .*; got "account"/);
    expect(() => readOAuthSettings({ ...withKv, UPSTREAM_OAUTH_SCOPES: 'read' }, 'key')).toThrow(/UPSTREAM_OAUTH_SCOPES must be a JSON object/);
    expect(() => readOAuthSettings({ ...withKv, UPSTREAM_OAUTH_SCOPES: '{"userAuth": "a\\"b"}' }, 'key')).toThrow(/UPSTREAM_OAUTH_SCOPES .*; the value of userAuth is not/);
    expect(() => readOAuthSettings({ ...withKv, OAUTH_REFRESH_RETRY_SECONDS: '-1' }, 'key')).toThrow(/OAUTH_REFRESH_RETRY_SECONDS/);
  });
});

describe('clientIp', () => {
  const at = (origin: string, ip?: string) => new Request(`${origin}/authorize`, ip ? { headers: { 'cf-connecting-ip': ip } } : {});
  const edge = (ip?: string) => at('https://mcp.example.com', ip);
  const clientIp = (r: Request) => ipOf(r, 'cloudflare');

  it('auto: behind the edge (a public host) CF-Connecting-IP counts; on a loopback host (a local server) every client shares one bucket', () => {
    expect(ipOf(edge('203.0.113.9'), 'auto')).toBe('203.0.113.9');
    for (const origin of ['http://127.0.0.1:8787', 'http://localhost:8787', 'http://[::1]:8787', 'http://127.3.4.5', 'http://app.localhost:1']) {
      expect(ipOf(at(origin, '203.0.113.9'), 'auto'), origin).toBe(SHARED_BUCKET);
      expect(ipOf(at(origin, '198.51.100.7'), 'auto'), origin).toBe(SHARED_BUCKET);
    }
    // A Host header naming a public host on a request to a local server: `shared` is what the local scripts set.
    expect(ipOf(edge('203.0.113.9'), 'shared')).toBe(SHARED_BUCKET);
  });

  it('CLIENT_ADDRESS is read strictly: cloudflare, shared or auto (the default)', () => {
    expect(readOAuthSettings({}, 'key').clientAddress).toBe('auto');
    expect(readOAuthSettings({ CLIENT_ADDRESS: 'Shared' }, 'key').clientAddress).toBe('shared');
    expect(() => readOAuthSettings({ CLIENT_ADDRESS: 'x-forwarded-for' }, 'key')).toThrow(/CLIENT_ADDRESS must be "cloudflare"/);
  });

  const from = edge;
  it('counts IPv4 addresses as they are, and IPv6 by /64', () => {
    expect(clientIp(from('203.0.113.9'))).toBe('203.0.113.9');
    expect(clientIp(from('2001:db8:0:12:aaaa::1'))).toBe('2001:db8:0:12::/64');
    expect(clientIp(from('2001:DB8:0:12:bbbb:cccc:dddd:eeee'))).toBe('2001:db8:0:12::/64');
    expect(clientIp(from('::1'))).toBe('0:0:0:0::/64');
  });

  it('puts requests without a client address in one shared bucket', () => {
    expect(clientIp(from())).toBe('unknown');
  });
});
