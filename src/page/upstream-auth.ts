// What the catalogue page says about upstream credentials (docs/upstream-auth.md): each security scheme of the spec,
// whether this deployment has a credential for it, and per tool which scheme it needs. Scheme names and kinds only:
// never a value, and nothing about a customer's own credentials beyond "per customer key".
import { connectsUsers, describeScheme, requirementsOf } from '../auth/upstream-schemes.ts';
import type { CatalogueSecurity, CatalogueTool, SecurityScheme } from '../catalogue/types.ts';
import { esc } from './escape.ts';

/** What of the Worker's Config (src/config.ts) decides the statuses. */
interface DeploymentAuth {
  upstreamSecurity: string;
  upstreamCredentials: Readonly<Record<string, string>>;
  credentialMode: string;
}

/** Each scheme's status on this deployment, and a key naming it for the page cache. */
export interface SchemeStatuses {
  key: string;
  status: Record<string, string>;
}

/** `single`: the deployment has one credential tied to no scheme (UPSTREAM_TOKEN in gateway or customer mode). */
export function schemeStatuses(security: CatalogueSecurity | undefined, config: DeploymentAuth, single: boolean): SchemeStatuses | undefined {
  if (!security) return undefined;
  const status: Record<string, string> = {};
  for (const [name, scheme] of Object.entries(security.schemes)) status[name] = statusOf(name, scheme, config, single);
  return { key: Object.entries(status).map(([n, s]) => `${n}=${s.length}`).join(','), status };
}

function statusOf(name: string, scheme: SecurityScheme, config: DeploymentAuth, single: boolean): string {
  if (config.upstreamSecurity === 'ignore') return 'not needed here: the upstream is a local mock';
  if (scheme.type === 'unsupported') return 'cannot be sent by this server';
  // The operator's OAuth client for per-user sign-in: each user's own account, connected on the consent page.
  if (connectsUsers(scheme, config.upstreamCredentials[name])) return 'each user connects their own account when signing in with OAuth';
  if (config.upstreamCredentials[name] !== undefined) return 'configured on this server';
  if (config.credentialMode === 'passthrough') return 'your own token, as you send it to this server';
  if (config.credentialMode === 'customer') return 'per customer key';
  return single ? "the server's one upstream credential (UPSTREAM_TOKEN)" : 'not configured on this server';
}

/** One tool's need, for its JSON on the page: "headerKey (API key in header X-Api-Key): configured on this server". */
export function toolAuth(tool: CatalogueTool, security: CatalogueSecurity | undefined, statuses: SchemeStatuses | undefined): string | null {
  if (!security || !statuses) return null;
  const requirements = requirementsOf(security, tool);
  if (!requirements.length) return 'none: the spec says this operation needs no credential';
  const options = requirements.map((r) => {
    const names = Object.keys(r);
    if (!names.length) return 'none';
    return names.map((n) => `${n} (${security.schemes[n] ? describeScheme(security.schemes[n]!) : 'undeclared'}${r[n]!.length ? `, scopes ${r[n]!.join(' ')}` : ''}): ${statuses.status[n] ?? 'undeclared'}`).join(' and ');
  });
  return options.length > 1 ? `one of: ${options.join('; or ')}` : options[0]!;
}

/** The page's section on upstream credentials; empty for a spec without security schemes. */
export function upstreamAuthSection(security: CatalogueSecurity | undefined, statuses: SchemeStatuses | undefined): string {
  if (!security || !statuses) return '';
  const rows = Object.entries(security.schemes)
    .map(([name, scheme]) => `<tr><td><code>${esc(name)}</code></td><td>${esc(describeScheme(scheme))}</td><td>${esc(statuses.status[name]!)}</td></tr>`)
    .join('');
  return `<section id="upstream-auth"><h2>Upstream credentials</h2>
<p>The API takes these credentials (its security schemes). Open a tool to see which one it needs. A tool whose credential this server lacks is still listed; calling it says which credential is missing, and nothing is sent to the API.</p>
<table><thead><tr><th>Scheme</th><th>Kind</th><th>On this server</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}
