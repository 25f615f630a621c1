// Which credentials one call sends upstream, and where: the tool's security requirements (its own, or the catalogue's
// default) against what the caller has (docs/upstream-auth.md). Requirements are alternatives: the first whose every
// scheme has a credential is used (`{}`, "none", only when no other can be met); `[]` sends nothing. Each credential
// goes where its scheme says: a header, a query parameter or a cookie (apiKey), Authorization (http), or a bearer
// token obtained for an oauth2 or openIdConnect scheme (src/auth/oauth-tokens.ts). The answer is plain HTTP for
// src/upstream: headers, query pairs, cookies, and how to renew them once after a 401.
import type { CatalogueSecurity, CatalogueTool, SecurityRequirement, SecurityScheme } from '../catalogue/types.ts';
import type { Config } from '../config.ts';
import { bytesToBase64 } from '../lib/bytes.ts';
import { redactSecrets } from './redact.ts';
import { accessToken, dropToken, TokenError, type TokenSource } from './oauth-tokens.ts';
import { configureHint, connectsUsers, credentialProblem, describeScheme, READY_TOKEN, requirementsOf, runsClientCredentials } from './upstream-schemes.ts';

/** What a caller brings for the upstream, besides the operator's UPSTREAM_CREDENTIALS (src/auth/upstream-credential.ts). */
export interface CallerCredentials {
  /** The key's own credentials by scheme name (customer mode), over the operator's. */
  named?: Readonly<Record<string, string>>;
  /** One credential tied to no scheme: passthrough's bearer, UPSTREAM_TOKEN (gateway), a key's single stored one. */
  single?: string;
  /** UPSTREAM_AUTH_HEADER for `single` (gateway and customer modes): sent there on every call, whatever the scheme. */
  singleHeader?: string;
  /**
   * Upstream OAuth tokens of the user's own account, connected on the consent page (src/oauth/user-tokens.ts): for an
   * oauth2 scheme it holds, they come before every other credential of that scheme.
   */
  user?: UserTokens;
}

/** A caller's own upstream OAuth tokens, by scheme name. */
export interface UserTokens {
  /** Schemes this caller has a token for (known without I/O, so requirements are chosen synchronously). */
  readonly schemes: ReadonlySet<string>;
  /** A valid access token for the scheme (refreshed when it has expired). */
  token(scheme: string): Promise<string>;
  /** The upstream refused `token` (401): a new one, or undefined when there is none. */
  renew(scheme: string, token: string): Promise<string | undefined>;
}

/** Credentials for one request, in HTTP terms (src/upstream/upstream-call.ts takes exactly this shape). */
export interface PlacedCredentials {
  headers: Record<string, string>;
  query: Array<[string, string]>;
  cookies: Array<[string, string]>;
  /** What was sent, for a 401's text: schemes and places, never values. */
  sent: string;
  /** After a 401: fresh credentials to send once more, or undefined (only when a token can be renewed). */
  renew?: () => Promise<PlacedCredentials | undefined>;
}

export type CredentialOutcome = { ok: true; credentials: PlacedCredentials; secrets: string[] } | { ok: false; message: string };

const NO_SPEC_SECURITY = 'no credential: the spec declares no security scheme, and none is configured (UPSTREAM_TOKEN with CREDENTIAL_MODE=gateway, or passthrough)';

/** One scheme of the chosen requirement and where its credential comes from. */
interface Slot {
  name: string;
  scheme: SecurityScheme;
  scopes: readonly string[];
  from: 'named' | 'single' | 'user';
  value: string;
}

/**
 * The credentials for a call of `tool`, or why it cannot be made. Synchronous unless a token must be obtained. The
 * values it places are in `secrets`, so the call's result is scrubbed of them.
 */
export function credentialsFor(security: CatalogueSecurity | undefined, tool: CatalogueTool, has: CallerCredentials, config: Config): CredentialOutcome | Promise<CredentialOutcome> {
  if (!security) return fixedHeader(has, NO_SPEC_SECURITY);
  if (config.upstreamSecurity === 'ignore') return fixedHeader(has, 'no credential: this server applies none of the spec\'s security schemes (UPSTREAM_SECURITY=ignore, for a local mock)');
  const requirements = requirementsOf(security, tool);
  if (!requirements.length) return none('no credential: the spec says this operation needs none');
  // UPSTREAM_AUTH_HEADER names where the one credential goes, whatever the scheme: the operator's word wins.
  if (has.singleHeader && has.single !== undefined) return fixedHeader(has, '');
  let optional = false;
  for (const req of requirements) {
    const names = Object.keys(req);
    if (!names.length) {
      optional = true;
      continue;
    }
    const slots = slotsFor(req, security, has, config);
    if (slots) return place(slots, has, config);
  }
  if (optional) return none('no credential: none of the schemes this operation accepts is configured, and it may be called without one');
  return { ok: false, message: missingMessage(tool.name, requirements, security, has, config) };
}

/**
 * For tools/list and the page: why this caller cannot call `tool` (a line naming the missing schemes), or undefined
 * when some requirement has every credential it names. Values are not checked here: only the call reads them.
 */
export function unavailableNote(security: CatalogueSecurity | undefined, tool: CatalogueTool, has: CallerCredentials, config: Config): string | undefined {
  if (!security || config.upstreamSecurity === 'ignore') return undefined;
  const requirements = requirementsOf(security, tool);
  if (!requirements.length || (has.singleHeader && has.single !== undefined)) return undefined;
  if (requirements.some((r) => !Object.keys(r).length || slotsFor(r, security, has, config))) return undefined;
  const byConnecting = connectingMeets(requirements, security, has, config);
  if (byConnecting) return `Unavailable until you connect your account for ${byConnecting} (sign in to this server with OAuth).`;
  // Scheme names only: the call's refusal says what each is and how to configure it (12 tokens for one scheme).
  const options = requirements.map((r) => Object.keys(r).join(' and ')).filter(Boolean);
  return `Unavailable here: no upstream credential configured for ${options.join(' or ')}.`;
}

/** What decides `unavailableNote` for a caller, as a short key (the listing caches one variant per key). */
export function availabilityKey(has: CallerCredentials, config: Config): string {
  const names = new Set([...Object.keys(config.upstreamCredentials), ...Object.keys(has.named ?? {})]);
  const user = has.user ? [...has.user.schemes].sort().join(',') : '';
  return `${[...names].sort().join(',')}|${has.single === undefined ? '' : has.singleHeader ? 'h' : 's'}|${user}`;
}

/** The credentials for every scheme of `req`, or undefined when one has none. Each caller's single one fills one slot. */
function slotsFor(req: SecurityRequirement, security: CatalogueSecurity, has: CallerCredentials, config: Config): Slot[] | undefined {
  const slots: Slot[] = [];
  let singleUsed = false;
  for (const [name, scopes] of Object.entries(req)) {
    const scheme = security.schemes[name];
    if (!scheme || scheme.type === 'unsupported') return undefined;
    // The user's own connected account first: this grant was made to act as that account.
    if (has.user?.schemes.has(name) && (scheme.type === 'oauth2' || scheme.type === 'openIdConnect')) {
      slots.push({ name, scheme, scopes, from: 'user', value: '' });
      continue;
    }
    // Own properties only: a scheme may be named like a built-in (`constructor`), and these are plain parsed objects.
    const named = ownValue(has.named, name) ?? operatorValue(scheme, ownValue(config.upstreamCredentials, name));
    if (named !== undefined) slots.push({ name, scheme, scopes, from: 'named', value: named });
    else if (has.single !== undefined && !singleUsed) {
      singleUsed = true;
      slots.push({ name, scheme, scopes, from: 'single', value: has.single });
    } else return undefined;
  }
  return slots;
}

/** The operator's value for a scheme, unless it is only the OAuth client of per-user sign-in (nothing to send). */
function operatorValue(scheme: SecurityScheme, value: string | undefined): string | undefined {
  return value !== undefined && connectsUsers(scheme, value) && !runsClientCredentials(scheme) ? undefined : value;
}

/** Schemes the caller could hold by connecting their account on the consent page (the operator set their OAuth client). */
function connectable(security: CatalogueSecurity, config: Config): Set<string> {
  return new Set(Object.keys(security.schemes).filter((n) => connectsUsers(security.schemes[n], ownValue(config.upstreamCredentials, n))));
}

function place(slots: Slot[], has: CallerCredentials, config: Config): CredentialOutcome | Promise<CredentialOutcome> {
  const what = (s: Slot) => (s.from === 'user' ? `the token of the account you connected for scheme ${s.name}` : `the credential of scheme ${s.name} (${describeScheme(s.scheme)})`);
  const out: PlacedCredentials = { headers: {}, query: [], cookies: [], sent: slots.map(what).join(' and ') };
  const secrets: string[] = [];
  const tokens: TokenSlot[] = [];
  for (const slot of slots) {
    const problem = slot.from === 'user' ? undefined : valueProblem(slot, config);
    if (problem) return { ok: false, message: problem };
    const { scheme, value } = slot;
    if (slot.from !== 'user') secrets.push(value, ...value.split(':').slice(1).filter(Boolean));
    if (scheme.type === 'apiKey') {
      if (scheme.in === 'header') out.headers[scheme.name.toLowerCase()] = value;
      else if (scheme.in === 'query') out.query.push([scheme.name, value]);
      else out.cookies.push([scheme.name, value]);
    } else if (scheme.type === 'http') {
      out.headers.authorization = httpAuthorization(scheme.scheme, value);
      // A value given with its scheme ("Bearer <token>") sends the credentials after it, which an upstream may echo alone.
      secrets.push(out.headers.authorization, afterScheme(out.headers.authorization));
    } else if (slot.from === 'single' || READY_TOKEN.test(value)) {
      out.headers.authorization = slot.from === 'single' ? `Bearer ${value}` : value;
      if (slot.from !== 'single') secrets.push(afterScheme(value));
    } else {
      const token = tokenSlot(slot, has, config);
      if (!token) return { ok: false, message: `Cannot call the API: this server has no way to get a token for scheme ${slot.name}. Nothing was sent.` };
      tokens.push(token);
    }
  }
  if (!tokens.length) return { ok: true, credentials: out, secrets };
  return withTokens(out, secrets, tokens);
}

/** Fetches every token a requirement needs; a failure refuses the call, naming the scheme and its endpoint. */
async function withTokens(out: PlacedCredentials, secrets: string[], tokens: TokenSlot[]): Promise<CredentialOutcome> {
  const current: string[] = [];
  try {
    for (const t of tokens) current.push(await t.get());
  } catch (e) {
    // The endpoint's own error_description is quoted, and a careless one may quote the client secret back.
    if (e instanceof TokenError) return { ok: false, message: redactSecrets(`${e.message} Nothing was sent to the API; ${e.remedy}`, secrets) };
    throw e;
  }
  const withBearer = (list: string[]): PlacedCredentials => ({ ...out, headers: { ...out.headers, authorization: `Bearer ${list.at(-1)}` } });
  const placed = withBearer(current);
  secrets.push(...current);
  placed.renew = async () => {
    // One renewal per call: the fresh credentials carry no renew of their own.
    const fresh: string[] = [];
    for (const [i, t] of tokens.entries()) {
      const next = await t.renew(current[i]!).catch(() => undefined);
      if (!next) return undefined;
      fresh.push(next);
    }
    secrets.push(...fresh);
    return withBearer(fresh);
  };
  return { ok: true, credentials: placed, secrets };
}

/** How an oauth2 or openIdConnect slot's bearer token is obtained, and renewed after a 401. */
interface TokenSlot {
  get: () => Promise<string>;
  renew: (refused: string) => Promise<string | undefined>;
}

/** The token source of an oauth2 or openIdConnect slot: the caller's own, or client credentials. */
function tokenSlot(slot: Slot, has: CallerCredentials, config: Config): TokenSlot | undefined {
  const { scheme, name } = slot;
  // Per-user upstream OAuth: the caller's grant holds the tokens, and renews them itself.
  if (slot.from === 'user' && has.user) return { get: () => has.user!.token(name), renew: (refused) => has.user!.renew(name, refused) };
  if (!runsClientCredentials(scheme)) return undefined;
  const colon = slot.value.indexOf(':');
  const base = config.upstreamUrl;
  const source: TokenSource = {
    scheme: slot.name,
    clientId: slot.value.slice(0, colon),
    clientSecret: slot.value.slice(colon + 1),
    scopes: slot.scopes,
    ...(scheme.type === 'openIdConnect' ? { discoveryUrl: absolute(scheme.openIdConnectUrl, base) } : scheme.type === 'oauth2' ? { tokenUrl: absolute(scheme.flows.clientCredentials!.tokenUrl, base) } : {}),
  };
  return {
    get: () => accessToken(source),
    renew: async (refused) => {
      dropToken(source, refused);
      return accessToken(source);
    },
  };
}

/** The credentials of an Authorization value, after its scheme word: the token of "Bearer <token>". */
function afterScheme(authorization: string): string {
  return authorization.replace(/^\S+\s+/, '');
}

function httpAuthorization(scheme: string, value: string): string {
  if (value.toLowerCase().startsWith(`${scheme} `)) return value;
  if (scheme === 'basic') return `Basic ${bytesToBase64(new TextEncoder().encode(value))}`;
  return `${scheme === 'bearer' ? 'Bearer' : scheme.charAt(0).toUpperCase() + scheme.slice(1)} ${value}`;
}

/** Why a configured or passed-through value cannot fill its slot, or undefined. */
function valueProblem(slot: Slot, config: Config): string | undefined {
  // A caller's own token (passthrough) is a bearer token for oauth2 and openIdConnect: no client credentials to check.
  if (slot.from === 'single' && (slot.scheme.type === 'oauth2' || slot.scheme.type === 'openIdConnect')) return undefined;
  const problem = credentialProblem({ schemes: { [slot.name]: slot.scheme }, sets: [] }, slot.name, slot.value);
  if (!problem) return undefined;
  const whose = slot.from === 'single' ? 'the one credential this server sends (UPSTREAM_TOKEN, the key’s stored credential or the caller’s token)' : 'the configured credential';
  return `Cannot call the API with ${whose}: ${problem}. Nothing was sent; the server operator must fix it.${config.upstreamCredentialsError ? ` (${config.upstreamCredentialsError}.)` : ''}`;
}

/**
 * The schemes (" or " between them) whose connection on the consent page would meet one of `requirements` for this
 * caller, or undefined when connecting would not help.
 */
function connectingMeets(requirements: SecurityRequirement[], security: CatalogueSecurity, has: CallerCredentials, config: Config): string | undefined {
  const open = connectable(security, config);
  if (!open.size) return undefined;
  const connected: CallerCredentials = { ...has, user: { schemes: new Set([...open, ...(has.user?.schemes ?? [])]), token: () => Promise.reject(new Error('unused')), renew: async () => undefined } };
  const met = requirements.filter((r) => Object.keys(r).length && slotsFor(r, security, connected, config));
  const names = [...new Set(met.flatMap((r) => Object.keys(r).filter((n) => open.has(n) && !has.user?.schemes.has(n))))];
  return names.length ? names.join(' or ') : undefined;
}

/** The isError text for a tool whose every requirement lacks a credential: which schemes, and how to configure them. */
function missingMessage(tool: string, requirements: SecurityRequirement[], security: CatalogueSecurity, has: CallerCredentials, config: Config): string {
  const byConnecting = connectingMeets(requirements, security, has, config);
  if (byConnecting) {
    return `${tool} acts as the user's own account at the API (scheme ${byConnecting}), and this request has not connected one. Nothing was sent to the API. Sign in to this server with OAuth (add it as a connector) and choose "Connect your account" on its consent page; an API key alone cannot carry it.`;
  }
  const options = requirements.filter((r) => Object.keys(r).length).map((r) => Object.keys(r).map((n) => `${n} (${security.schemes[n] ? describeScheme(security.schemes[n]!) : 'undeclared'})`).join(' together with '));
  const first = Object.keys(requirements.find((r) => Object.keys(r).every((n) => security.schemes[n]?.type !== 'unsupported')) ?? {})[0];
  const hint = first ? ` ${configureHint(first, security.schemes[first]!)}.` : '';
  const broken = config.upstreamCredentialsError ? ` (${config.upstreamCredentialsError}.)` : '';
  return `${tool} needs an upstream credential this server does not have: ${options.length > 1 ? `one of ${options.join('; or ')}` : options[0]}. Nothing was sent to the API.${hint}${broken}`;
}

/** Credentials outside the spec's schemes: the one credential in UPSTREAM_AUTH_HEADER, or "Authorization: Bearer". */
function fixedHeader({ single, singleHeader }: CallerCredentials, sent: string): CredentialOutcome {
  // The common case of a catalogue without schemes in key mode: one shared answer, nothing allocated per call.
  if (single === undefined) return sent === NO_SPEC_SECURITY ? NOTHING_NO_SPEC : none(sent);
  const header = singleHeader ?? 'authorization';
  const value = header === 'authorization' ? `Bearer ${single}` : single;
  return { ok: true, credentials: { headers: { [header]: value }, query: [], cookies: [], sent: `the credential in the ${header} header` }, secrets: [single] };
}

function none(sent: string): CredentialOutcome {
  return { ok: true, credentials: { headers: {}, query: [], cookies: [], sent }, secrets: [] };
}

// Never changed by its users (src/upstream reads credentials, src/tools/call.ts reads secrets), so it can be shared.
const NOTHING_NO_SPEC = none(NO_SPEC_SECURITY);

function absolute(url: string, base: string): string {
  try {
    return new URL(url, base.endsWith('/') ? base : `${base}/`).toString();
  } catch {
    return url;
  }
}

function ownValue(values: Readonly<Record<string, string>> | undefined, name: string): string | undefined {
  return values && Object.hasOwn(values, name) ? values[name] : undefined;
}
