// What a credential for each kind of security scheme looks like, in words for the operator: the one place that checks a
// configured value against its scheme (the Worker at call time, `npm run serve`/`npm start` and the keys CLI before
// anything starts), describes a scheme, and says how it is configured. No values ever appear in what it returns.
import type { CatalogueSecurity, CatalogueTool, SecurityRequirement, SecurityScheme } from '../catalogue/types.ts';

const NONE: SecurityRequirement[] = [];

/** A tool's security requirements: its own set, or the catalogue's default, or none (`[]`). */
export function requirementsOf(security: CatalogueSecurity, tool: Pick<CatalogueTool, 'security'>): SecurityRequirement[] {
  const i = tool.security ?? security.default;
  return (i !== undefined ? security.sets[i] : undefined) ?? NONE;
}

/** "API key in query parameter circle-token", "HTTP basic", "OAuth 2 (clientCredentials)", "OpenID Connect". */
export function describeScheme(s: SecurityScheme): string {
  switch (s.type) {
    case 'apiKey':
      return `API key in ${s.in === 'header' ? 'header' : s.in === 'query' ? 'query parameter' : 'cookie'} ${s.name}`;
    case 'http':
      return `HTTP ${s.scheme}`;
    case 'oauth2':
      return `OAuth 2 (${Object.keys(s.flows).join(', ')})`;
    case 'openIdConnect':
      return 'OpenID Connect';
    case 'unsupported':
      return `${s.declared}, which this server cannot send`;
  }
}

/** What VALUE is for this scheme, for messages: "the key", "user:password", "client_id:client_secret". */
export function valueForm(s: SecurityScheme): string {
  if (s.type === 'http') return s.scheme === 'basic' ? 'user:password' : s.scheme === 'bearer' ? 'the token' : `the ${s.scheme} credentials`;
  if (s.type === 'oauth2' || s.type === 'openIdConnect') return 'client_id:client_secret';
  return 'the key';
}

/** How the operator gives scheme `name` a credential, deployed and locally. */
export function configureHint(name: string, s: SecurityScheme): string {
  if (s.type === 'oauth2' && s.flows.authorizationCode && !s.flows.clientCredentials) {
    return `It takes each user's own account: the operator sets the OAuth client in the secret UPSTREAM_CREDENTIALS as {"${name}": "<client_id:client_secret>"}, and each user connects their account on this server's OAuth consent page (add the server as a connector); an API key alone cannot carry it`;
  }
  const form = valueForm(s);
  return `The operator sets it in the secret UPSTREAM_CREDENTIALS as {"${name}": "<${form}>"} (locally: --credential ${name}=<${form}>; per customer key: npm run keys -- create … --credential ${name}=<${form}>)`;
}

/** An OAuth 2 or OpenID Connect value that is a ready access token rather than client credentials: "Bearer <token>". */
export const READY_TOKEN = /^bearer\s+(\S+)$/i;

/** Whether a scheme obtains its own tokens with client_id:client_secret (the client-credentials grant). */
export function runsClientCredentials(s: SecurityScheme): boolean {
  return s.type === 'openIdConnect' || (s.type === 'oauth2' && s.flows.clientCredentials !== undefined);
}

/**
 * Whether the operator's `value` for scheme `s` is the OAuth client of per-user sign-in (docs/upstream-auth.md,
 * "Per-user OAuth"): an authorization-code flow and `client_id:client_secret`. Each user's own tokens are then sent;
 * the value itself is sent only as client credentials, when the scheme also has that flow.
 */
export function connectsUsers(s: SecurityScheme | undefined, value: string | undefined): boolean {
  return s?.type === 'oauth2' && s.flows.authorizationCode !== undefined && value !== undefined && value.includes(':') && !READY_TOKEN.test(value);
}

/**
 * Why `value` cannot be the credential of scheme `name`, or undefined when it can. Never quotes the value. `security`
 * is the catalogue's; a name it does not declare is refused with the names it does. `owner`: the operator's values
 * may configure per-user OAuth (an authorization-code flow's client); a key's own may not.
 */
export function credentialProblem(security: CatalogueSecurity | undefined, name: string, value: string, owner: 'operator' | 'key' = 'operator'): string | undefined {
  const s = security?.schemes[name];
  if (!s) {
    const names = Object.keys(security?.schemes ?? {});
    return `the spec declares no security scheme named "${name}"; ${names.length ? `its schemes are ${names.join(', ')}` : 'it declares none'}`;
  }
  if (s.type === 'unsupported') return `scheme ${name} (${s.declared}) cannot be sent by this server: ${s.reason}`;
  if (!value) return `the credential for scheme ${name} is empty; it takes ${valueForm(s)}`;
  if (/[\0-\x1f\x7f]/.test(value)) return `the credential for scheme ${name} contains a control character (a line break?); it takes ${valueForm(s)} on one line`;
  if (s.type === 'apiKey' && s.in === 'cookie' && /[\s;,"\\]/.test(value)) return `the credential for scheme ${name} goes into a cookie, so it cannot contain spaces, ";", ",", quotes or backslashes`;
  if (s.type === 'http' && s.scheme === 'basic' && !/^basic\s/i.test(value) && !value.includes(':')) return `scheme ${name} is HTTP basic: its credential is user:password, with a colon`;
  if (s.type === 'oauth2' || s.type === 'openIdConnect') {
    if (READY_TOKEN.test(value)) return undefined;
    if (!value.includes(':')) return `scheme ${name} is ${describeScheme(s)}: its credential is client_id:client_secret (or "Bearer <access token>" for a token you obtained yourself)`;
    if (!runsClientCredentials(s) && owner === 'key' && s.type === 'oauth2' && s.flows.authorizationCode) {
      return `scheme ${name} is ${describeScheme(s)}: each user connects their own account through the operator's OAuth client (UPSTREAM_CREDENTIALS), not through a key; give the key an access token as "Bearer <token>" instead`;
    }
    if (!runsClientCredentials(s) && !connectsUsers(s, value)) {
      return `scheme ${name} is ${describeScheme(s)}, with no client-credentials flow, so this server cannot get a token with client_id:client_secret; give an access token as "Bearer <token>", or let each caller send their own (CREDENTIAL_MODE=passthrough)`;
    }
  }
  return undefined;
}

/** `NAME=VALUE` as given on a command line (the first `=` splits), or a message saying what is wrong. */
export function parseCredentialArg(arg: string): { name: string; value: string } | { error: string } {
  const eq = arg.indexOf('=');
  if (eq <= 0) return { error: `--credential takes NAME=VALUE (a security scheme's name from the spec, then its credential); got ${JSON.stringify(arg.slice(0, Math.max(eq, 0)) || arg.replace(/=.*/s, '=…'))}` };
  return { name: arg.slice(0, eq), value: arg.slice(eq + 1) };
}

/** What is wrong with the operator's UPSTREAM_CREDENTIALS for this catalogue, one sentence per scheme (empty: nothing). */
export function operatorCredentialProblems(security: CatalogueSecurity | undefined, config: { upstreamCredentials: Readonly<Record<string, string>>; upstreamCredentialsError?: string | undefined }): string[] {
  const problems = config.upstreamCredentialsError ? [config.upstreamCredentialsError] : [];
  for (const [name, value] of Object.entries(config.upstreamCredentials)) {
    const problem = credentialProblem(security, name, value);
    if (problem) problems.push(`UPSTREAM_CREDENTIALS: ${problem}`);
  }
  return problems;
}
