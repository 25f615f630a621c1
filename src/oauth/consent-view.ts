// The consent page at /authorize, server-rendered in the catalogue page's style: no script, no third-party asset,
// one inline stylesheet allowed by its hash. Step 1 asks for an API key; step 2 shows what the key allows (customer,
// scope, rate, expiry, never the key or its hint) and lets the customer narrow it. Where the operator set up per-user
// OAuth to the upstream, both steps offer "Connect your <API> account" and show what is connected. Every string that
// came from the client (name, domain, redirect host) is escaped: a dynamic registration or CIMD document chooses it.
import type { ConsentDescription } from '@cloudflare/workers-oauth-provider';
import { bytesToBase64 } from '../lib/bytes.ts';
import { esc } from '../page/escape.ts';

export interface ToolsetChoice {
  name: string;
  description: string;
  checked: boolean;
}

export interface KeySummary {
  /** "Acme Corp", "Operator key", or "Your <API> account" for a grant a connected account alone makes. */
  owner: string;
  /** The grant is made from the connected account, without a key. */
  account?: boolean;
  id: string;
  /** Human sentences: "toolsets repos_core, pulls", "read-only tools only", "600 requests per hour", … */
  facts: string[];
}

export interface PageFrame {
  /** The API's title (the catalogue's source title). */
  title: string;
  client: ConsentDescription;
  /** The consent transaction handle from beginConsent(): the form's only link to the authorization request. */
  handle: string;
  /** Where the forms post: the authorization request's own URL (absent: the page's URL, which is that URL). */
  action?: string;
  /** Upstream accounts the user can connect here, and which are connected. */
  accounts?: AccountOffer[];
  /** A connected account is enough without a key (OAUTH_SIGN_IN=key-or-account). */
  accountSignIn?: boolean;
}

export interface AccountOffer {
  scheme: string;
  /** "Connect your Lyft account" (with the scheme's name when there are several). */
  label: string;
  /** The upstream's sign-in host, shown before the user is sent there. */
  host: string;
  connected: boolean;
}

export function keyStep(frame: PageFrame, error?: string): string {
  const keyOptional = frame.accountSignIn && frame.accounts?.some((a) => a.connected);
  return page(
    frame,
    `Connect ${esc(frame.client.clientName)} to ${esc(frame.title)}`,
    `${formTag(frame)}
<input type="hidden" name="handle" value="${esc(frame.handle)}"><input type="hidden" name="step" value="key">
<label for="key">Your API key for ${esc(frame.title)}${keyOptional ? ' <span class="muted">(optional: your account is connected)</span>' : ''}</label>
<input id="key" name="key" type="password"${keyOptional ? '' : ' required'} autocomplete="off" autocapitalize="off" spellcheck="false" aria-describedby="keynote">
<p class="note" id="keynote">The key stays on this server. ${esc(frame.client.clientName)} receives a token that works only here, stops working when the key is revoked, and can be limited on the next step.</p>
${error ? `<p class="err" role="alert">${esc(error)}</p>` : ''}
<p><button name="decision" value="continue">Continue</button> <button name="decision" value="deny" formnovalidate>Cancel</button></p>
${accountsSection(frame)}</form>`,
  );
}

/** The connect buttons and connected accounts, inside a step's form (after its default button, so Enter continues). */
function accountsSection(frame: PageFrame): string {
  if (!frame.accounts?.length) return '';
  const rows = frame.accounts
    .map((a) =>
      a.connected
        ? `<p class="ok">✓ Your ${esc(frame.title)} account is connected${frame.accounts!.length > 1 ? ` (<code>${esc(a.scheme)}</code>)` : ''}.</p>`
        : `<p><button name="connect" value="${esc(a.scheme)}" formnovalidate>${esc(a.label)}</button> <span class="muted">you sign in at <b>${esc(a.host)}</b> and come back here</span></p>`,
    )
    .join('\n');
  const why = frame.accountSignIn
    ? 'Tools that act as your own account need it. Connected, it is enough by itself: an API key is then optional.'
    : 'Tools that act as your own account need it. An API key is still needed to continue.';
  return `<fieldset><legend>Your ${esc(frame.title)} account</legend>
<p class="note">${why} ${esc(frame.client.clientName)} never sees the account's tokens; they stay sealed on this server and are deleted when this authorization is revoked.</p>
${rows}
</fieldset>
`;
}

function formTag(frame: PageFrame): string {
  return `<form method="post" autocomplete="off"${frame.action ? ` action="${esc(frame.action)}"` : ''}>`;
}

export function reviewStep(frame: PageFrame, key: KeySummary, toolsets: ToolsetChoice[], readOnly: { checked: boolean; forced: boolean }, error?: string): string {
  const boxes = toolsets
    .map(
      (t) =>
        `<li><label><input type="checkbox" name="toolset" value="${esc(t.name)}"${t.checked ? ' checked' : ''}> <code>${esc(t.name)}</code></label> <span class="muted">${esc(t.description)}</span></li>`,
    )
    .join('\n');
  return page(
    frame,
    `Allow ${esc(frame.client.clientName)} to use ${key.account ? 'your account' : 'this key'}?`,
    `<dl><dt>${key.account ? 'Account' : 'Key'}</dt><dd>${esc(key.owner)}${key.id ? ` <span class="muted">(id <code>${esc(key.id)}</code>)</span>` : ''}</dd>
<dt>Allows</dt><dd>${key.facts.map(esc).join('<br>')}</dd></dl>
${formTag(frame)}
<input type="hidden" name="handle" value="${esc(frame.handle)}"><input type="hidden" name="step" value="review">
${toolsets.length ? `<fieldset><legend>Toolsets ${esc(frame.client.clientName)} may use</legend>\n<ul class="sets">\n${boxes}\n</ul></fieldset>` : ''}
<p><label><input type="checkbox" name="readonly" value="1"${readOnly.checked || readOnly.forced ? ' checked' : ''}${readOnly.forced ? ' disabled' : ''}> Read-only: only tools that change nothing</label>${readOnly.forced ? ' <span class="muted">(this key is read-only)</span>' : ''}</p>
${error ? `<p class="err" role="alert">${esc(error)}</p>` : ''}
<p><button name="decision" value="approve">Allow</button> <button name="decision" value="deny">Deny</button></p>
${accountsSection(frame)}</form>`,
  );
}

export function errorPage(title: string, message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><meta name="robots" content="noindex"><link rel="icon" href="data:,"><style>${CSS}</style></head>
<body><main><h1>${esc(title)}</h1><p class="err" role="alert">${esc(message)}</p>
<p class="muted">Start the connection again from your app.</p></main></body></html>`;
}

function page(frame: PageFrame, heading: string, body: string): string {
  const c = frame.client;
  const who = c.clientDomain
    ? `Published by <b>${esc(c.clientDomain)}</b>.`
    : 'This app registered itself: its name is not verified.';
  const loopback = c.redirectIsLoopback
    ? `<p class="warn">This sends access to an app on this computer (<b>${esc(c.redirectHost)}</b>). Continue only if you just started connecting from it.</p>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Authorize ${esc(c.clientName)}</title><meta name="robots" content="noindex"><link rel="icon" href="data:,"><style>${CSS}</style></head>
<body><main><h1>${heading}</h1>
<p class="who">${who} Access will be sent to <b>${esc(c.redirectHost)}</b>.</p>
${loopback}${body}</main></body></html>`;
}

const CSS = `
:root{color-scheme:light dark;--mut:#6b7280;--bd:#d1d5db;--bg2:#f3f4f6}
@media (prefers-color-scheme:dark){:root{--bd:#374151;--bg2:#1f2937;--mut:#9ca3af}}
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:40rem;padding:1rem 1rem 3rem}
code{font:13px/1.4 ui-monospace,monospace}
label{font-weight:600}input[type=password]{display:block;width:100%;box-sizing:border-box;font:15px ui-monospace,monospace;padding:.4rem .5rem;margin:.3rem 0}
button{font-size:15px;padding:.35rem .9rem}.muted,.note,.who{color:var(--mut)}.note{font-size:13px}
.err{color:#b91c1c;font-weight:600}.ok{color:#15803d;font-weight:600}.warn{border:1px solid #b45309;border-radius:6px;padding:.4rem .75rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dt{font-weight:600}dd{margin:0}
fieldset{border:1px solid var(--bd);border-radius:6px}.sets{list-style:none;padding:0;margin:0;max-height:22rem;overflow:auto}
.sets li{padding:.15rem 0;border-bottom:1px solid var(--bd)}.sets label{font-weight:400}
`;

let styleHash: Promise<string> | undefined;

/**
 * The page's CSP. `form-action` names the client's redirect origin as well as this one: browsers apply it to the
 * redirect that follows the final POST, which carries the code back to the client. `upstream`: the sign-in URLs of
 * the accounts a user can connect, which a connect button's POST redirects to.
 */
export async function consentCsp(redirectUri: string | undefined, upstream: readonly string[] = []): Promise<string> {
  styleHash ??= crypto.subtle.digest('SHA-256', new TextEncoder().encode(CSS)).then((d) => `'sha256-${bytesToBase64(new Uint8Array(d))}'`);
  const targets = new Set<string>();
  for (const uri of [redirectUri, ...upstream]) {
    if (!uri) continue;
    try {
      const url = new URL(uri);
      if (url.protocol === 'https:' || url.protocol === 'http:') targets.add(url.origin);
    } catch {
      // No origin to allow: the page then only posts to itself.
    }
  }
  return `default-src 'none'; style-src ${await styleHash}; img-src data:; form-action 'self'${[...targets].map((t) => ` ${t}`).join('')}; base-uri 'none'; frame-ancestors 'none'`;
}
