// What a call's credentials add to the secrets its result is scrubbed of (src/auth/upstream-security.ts): every value
// that reaches the upstream, in every form it may come back in. A configured "Bearer <token>" (an access token obtained
// elsewhere, for an OAuth scheme or HTTP bearer) sends the token itself, so the bare token must be scrubbed too: an
// upstream that echoes it without its "Bearer " (a /me or introspection answer, an error quoting it) would otherwise
// hand the operator's token to the model.
import { describe, expect, it } from 'vitest';
import { mentionsSecret, redactSecrets } from '../../src/auth/redact.ts';
import { credentialsFor, type CredentialOutcome } from '../../src/auth/upstream-security.ts';
import type { CatalogueSecurity, CatalogueTool } from '../../src/catalogue/types.ts';
import { readConfig } from '../../src/config.ts';

const security: CatalogueSecurity = {
  schemes: {
    bearerAuth: { type: 'http', scheme: 'bearer' },
    userApp: { type: 'oauth2', flows: { authorizationCode: { authorizationUrl: 'https://id.example/authorize', tokenUrl: 'https://id.example/token' } } },
    oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://id.example/.well-known/openid-configuration' },
  },
  sets: [[{ bearerAuth: [] }], [{ userApp: ['read'] }], [{ oidc: [] }]],
  default: 0,
};
const tool = (set: number) => ({ name: 't', security: set }) as unknown as CatalogueTool;
const TOKENS = { bearerAuth: 'tok-bearer-0123456789', userApp: 'tok-oauth-0123456789', oidc: 'tok-oidc-0123456789' };
const config = readConfig({ UPSTREAM_CREDENTIALS: JSON.stringify(Object.fromEntries(Object.entries(TOKENS).map(([k, v]) => [k, `Bearer ${v}`]))) }, 'https://api.example');

describe('a configured "Bearer <token>"', () => {
  for (const [i, scheme] of Object.keys(TOKENS).entries()) {
    it(`${scheme}: the token goes out as Authorization: Bearer, and a result that echoes the bare token is scrubbed of it`, () => {
      const out = credentialsFor(security, tool(i), {}, config) as CredentialOutcome;
      if (!out.ok) throw new Error(out.message);
      const token = TOKENS[scheme as keyof typeof TOKENS];
      expect(out.credentials.headers.authorization).toBe(`Bearer ${token}`);
      const echoed = { content: [{ type: 'text', text: JSON.stringify({ token, header: `Bearer ${token}` }) }] };
      expect(JSON.stringify(redactSecrets(echoed, out.secrets))).not.toContain(token);
    });
  }
});

describe('an API key sent in the query', () => {
  it('is scrubbed as the URL carries it too: an upstream that echoes its request URL shows the key percent-encoded', () => {
    const key = 'qk+base64/key==';
    const query: CatalogueSecurity = { schemes: { queryKey: { type: 'apiKey', in: 'query', name: 'api_key' } }, sets: [[{ queryKey: [] }]], default: 0 };
    const out = credentialsFor(query, tool(0), {}, readConfig({ UPSTREAM_CREDENTIALS: JSON.stringify({ queryKey: key }) }, 'https://api.example')) as CredentialOutcome;
    if (!out.ok) throw new Error(out.message);
    const encoded = encodeURIComponent(key);
    const echoed = { content: [{ type: 'text', text: `Invalid request: GET /v1/things?api_key=${encoded}` }], structuredContent: { url: `/v1/things?api_key=${encoded}` } };
    expect(mentionsSecret(JSON.stringify(echoed), out.secrets)).toBe(true);
    const scrubbed = JSON.stringify(redactSecrets(echoed, out.secrets));
    expect(scrubbed).not.toContain(encoded);
    expect(scrubbed).toContain('api_key=[redacted]');
  });
});

describe('a scheme named like a built-in property', () => {
  it('reads only configured values: `constructor` with no credential is refused by name, with one it is sent', () => {
    const odd: CatalogueSecurity = { schemes: { constructor: { type: 'apiKey' as const, in: 'header' as const, name: 'x-key' } }, sets: [[{ constructor: [] }]], default: 0 };
    const none = credentialsFor(odd, tool(0), {}, readConfig({}, 'https://api.example')) as CredentialOutcome;
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.message).toContain('constructor');
    const some = credentialsFor(odd, tool(0), { named: JSON.parse('{"constructor":"k-0123456789"}') }, readConfig({}, 'https://api.example')) as CredentialOutcome;
    if (!some.ok) throw new Error(some.message);
    expect(some.credentials.headers['x-key']).toBe('k-0123456789');
  });
});
