// The spec's security, read into the catalogue (src/catalogue/types.ts `CatalogueSecurity`, docs/upstream-auth.md):
// `components.securitySchemes` (Swagger 2.0's `securityDefinitions` arrive converted by the spec loader, and their
// 2.0 shapes are read here too), the global `security` and each operation's own. The catalogue stays small: schemes
// once in the header with every distinct list of requirements, and a tool carries the index of its list only where
// it differs from the catalogue's default.
// Nothing here fails the build: a scheme this server cannot send is recorded as unsupported and reported by name.
import type { CatalogueSecurity, OAuthFlows, SecurityRequirement, SecurityScheme } from '../../src/catalogue/types.ts';
import { describeScheme } from '../../src/auth/upstream-schemes.ts';
import { isObj } from '../lib/is-object.ts';
import { collectOperations, type Operation } from './operations.ts';
import { SchemaConverter } from './schema-converter.ts';
import { loadSpec } from './spec-loader.ts';

/** What report.md and the build's stderr say about the spec's security. */
export interface SecurityReport {
  /** Schemes by type, e.g. "api_key: apiKey in query parameter circle-token". */
  schemes: string[];
  /** Schemes this server cannot send, by name, with why. */
  unsupported: { scheme: string; reason: string }[];
  /** How many operations need no credential (`security: []`), and how many have requirements of their own. */
  publicOperations: number;
  ownRequirements: number;
  /** The spec declares schemes but never says which operation needs which: every scheme became optional. */
  inferredDefault: boolean;
}

export interface SpecSecurity {
  /** Absent: the spec declares no scheme and names none. */
  catalogue?: CatalogueSecurity;
  /** The index in `catalogue.sets` of an operation's own requirements, undefined when the default applies. */
  forOperation(o: Operation): number | undefined;
  /** The `in:name` slots (lower-cased names) of the apiKey schemes an operation's requirements use: not tool arguments. */
  credentialSlots(o: Operation): ReadonlySet<string>;
  report: SecurityReport;
}

const NO_SLOTS: ReadonlySet<string> = new Set();

export function readSecurity(doc: any, conv: SchemaConverter, ops: readonly Operation[]): SpecSecurity {
  const declared = isObj(doc.components?.securitySchemes) ? doc.components.securitySchemes : isObj(doc.securityDefinitions) ? doc.securityDefinitions : {};
  const schemes: Record<string, SecurityScheme> = {};
  for (const name of Object.keys(declared).sort()) schemes[name] = normaliseScheme(conv.deref(declared[name]));

  const global = requirementsOf(doc.security);
  const own = new Map<string, SecurityRequirement[]>();
  for (const o of ops) {
    const r = requirementsOf(o.op.security);
    if (r) own.set(o.key, r);
  }
  // A requirement may name a scheme the spec never declares: it can never be met, and says so by name.
  for (const reqs of [global ?? [], ...own.values()]) {
    for (const req of reqs) for (const name of Object.keys(req)) schemes[name] ??= { type: 'unsupported', declared: 'undeclared', reason: 'a security requirement names it, but the spec does not declare it' };
  }
  const names = Object.keys(schemes).sort();
  const report: SecurityReport = { schemes: names.map((n) => `${n}: ${describeScheme(schemes[n]!)}`), unsupported: [], publicOperations: 0, ownRequirements: 0, inferredDefault: false };
  for (const n of names) {
    const s = schemes[n]!;
    if (s.type === 'unsupported') report.unsupported.push({ scheme: n, reason: s.reason });
  }
  if (!names.length) return { forOperation: () => undefined, credentialSlots: () => NO_SLOTS, report };

  // Declared schemes and no requirement anywhere: the spec does not say who needs what, so each scheme is sent when
  // configured, and an operation works without one too (the `{}` alternative).
  let fallback = global;
  if (!global && !own.size) {
    fallback = [...names.filter((n) => schemes[n]!.type !== 'unsupported').map((n) => ({ [n]: [] })), {}];
    report.inferredDefault = true;
  }
  // The default is the most common requirement list, so a spec that repeats one on every operation (with or without
  // a global one) stores it once; a tool whose requirements differ carries its own (`[]` for none).
  const effective = (o: Operation) => own.get(o.key) ?? fallback ?? [];
  const byJson = new Map<string, number>();
  for (const o of ops) {
    const e = effective(o);
    const j = JSON.stringify(e);
    byJson.set(j, (byJson.get(j) ?? 0) + 1);
    if (!e.length) report.publicOperations++;
    if (own.has(o.key) && j !== JSON.stringify(global ?? [])) report.ownRequirements++;
  }
  // Ties go to the spec's own global requirement, then to the first in JSON order. The default comes first in `sets`;
  // `[]` (none needed) is left out when it is the default, since nothing refers to it then.
  const globalJson = JSON.stringify(fallback ?? []);
  const ranked = [...byJson.entries()].sort((a, b) => b[1] - a[1] || Number(b[0] === globalJson) - Number(a[0] === globalJson) || (a[0] < b[0] ? -1 : 1)).map(([j]) => j);
  const defaultJson = ranked[0] ?? '[]';
  const listed = defaultJson === '[]' ? ranked.slice(1) : ranked;
  const index = new Map(listed.map((j, i) => [j, i]));
  const catalogue: CatalogueSecurity = { schemes, sets: listed.map((j) => JSON.parse(j) as SecurityRequirement[]), ...(defaultJson !== '[]' ? { default: 0 } : {}) };
  return {
    catalogue,
    forOperation(o) {
      const j = JSON.stringify(effective(o));
      return j === defaultJson ? undefined : index.get(j);
    },
    credentialSlots(o) {
      const slots = new Set<string>();
      for (const req of effective(o)) {
        for (const n of Object.keys(req)) {
          const s = schemes[n];
          if (s?.type === 'apiKey') slots.add(`${s.in}:${s.name.toLowerCase()}`);
        }
      }
      return slots;
    },
    report,
  };
}

/** A `security` array as requirements (scopes kept in order, names as given); undefined when absent or malformed. */
function requirementsOf(v: unknown): SecurityRequirement[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.filter(isObj).map((req) => {
    const out: SecurityRequirement = {};
    for (const name of Object.keys(req).sort()) out[name] = Array.isArray(req[name]) ? req[name].filter((s: unknown): s is string => typeof s === 'string') : [];
    return out;
  });
}

const API_KEY_PLACES = new Set(['header', 'query', 'cookie']);

/** One declared scheme as the Worker needs it (OpenAPI 3.x, or Swagger 2.0's own shapes). */
export function normaliseScheme(s: unknown): SecurityScheme {
  if (!isObj(s)) return { type: 'unsupported', declared: typeof s, reason: 'the scheme is not an object' };
  const type = String(s.type ?? '');
  switch (type) {
    case 'apiKey':
      if (!API_KEY_PLACES.has(s.in) || typeof s.name !== 'string' || !s.name) return { type: 'unsupported', declared: 'apiKey', reason: `an API key needs "in" (header, query or cookie) and a "name"; this one has in=${JSON.stringify(s.in ?? null)}` };
      return { type: 'apiKey', in: s.in, name: s.name };
    case 'basic': // Swagger 2.0
      return { type: 'http', scheme: 'basic' };
    case 'http': {
      const scheme = String(s.scheme ?? '').trim().toLowerCase();
      if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(scheme)) return { type: 'unsupported', declared: 'http', reason: `the HTTP auth scheme ${JSON.stringify(s.scheme ?? null)} is not a valid scheme name` };
      if (scheme === 'digest' || scheme === 'mutual' || scheme === 'negotiate' || scheme === 'hoba' || scheme === 'scram-sha-256') {
        return { type: 'unsupported', declared: `http ${scheme}`, reason: `HTTP ${scheme} authentication is a challenge-response exchange this server does not perform` };
      }
      return { type: 'http', scheme };
    }
    case 'oauth2': {
      const flows = oauthFlows(s);
      if (!Object.keys(flows).length) return { type: 'unsupported', declared: 'oauth2', reason: 'the OAuth 2 scheme declares no flow with the URLs it needs' };
      return { type: 'oauth2', flows };
    }
    case 'openIdConnect':
      if (typeof s.openIdConnectUrl !== 'string' || !s.openIdConnectUrl) return { type: 'unsupported', declared: 'openIdConnect', reason: 'the scheme has no openIdConnectUrl' };
      return { type: 'openIdConnect', openIdConnectUrl: s.openIdConnectUrl };
    case 'mutualTLS':
      return { type: 'unsupported', declared: 'mutualTLS', reason: 'mutual TLS needs a client certificate, which this server does not present' };
    default:
      return { type: 'unsupported', declared: type || 'none', reason: `"${type || '(no type)'}" is not a security scheme type OpenAPI defines` };
  }
}

function oauthFlows(s: Record<string, any>): OAuthFlows {
  const out: OAuthFlows = {};
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  // Swagger 2.0: one `flow` (application, accessCode, implicit, password) with its URLs on the scheme itself.
  const flows: Record<string, any> = isObj(s.flows)
    ? s.flows
    : { [{ application: 'clientCredentials', accessCode: 'authorizationCode', implicit: 'implicit', password: 'password' }[String(s.flow)] ?? '']: s };
  const cc = flows.clientCredentials;
  if (isObj(cc) && str(cc.tokenUrl)) out.clientCredentials = { tokenUrl: cc.tokenUrl };
  const code = flows.authorizationCode;
  if (isObj(code) && str(code.tokenUrl) && str(code.authorizationUrl)) {
    out.authorizationCode = { authorizationUrl: code.authorizationUrl, tokenUrl: code.tokenUrl, ...(str(code.refreshUrl) ? { refreshUrl: code.refreshUrl } : {}) };
  }
  const implicit = flows.implicit;
  if (isObj(implicit) && str(implicit.authorizationUrl)) out.implicit = { authorizationUrl: implicit.authorizationUrl };
  const password = flows.password;
  if (isObj(password) && str(password.tokenUrl)) out.password = { tokenUrl: password.tokenUrl };
  return out;
}

/** The security a spec (file or URL) declares, without building its catalogue: what the keys CLI checks names against. */
export async function securityOfSpec(spec: string): Promise<CatalogueSecurity | undefined> {
  const { doc } = await loadSpec(spec);
  const conv = new SchemaConverter(doc, () => {});
  return readSecurity(doc, conv, collectOperations(doc, conv)).catalogue;
}
