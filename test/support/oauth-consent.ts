// The consent page (/authorize) driven with plain HTTP, as a browser without script would: GET the page, keep its
// cookies, post the key form, post the review form with the chosen toolsets, and read the redirect that carries
// the code. Runs anywhere fetch does: in workerd against the app, and in Node against `wrangler dev`.
import { bytesToBase64Url, sha256 } from '../../src/lib/bytes.ts';

type Fetch = (url: string, init?: RequestInit) => Promise<Response>;

/** Cookies as a browser keeps them for one origin: set by Set-Cookie, dropped by Max-Age=0. */
export class CookieJar {
  private readonly jar = new Map<string, string>();
  take(res: Response): Response {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      if (attrs.some((a) => a.trim().toLowerCase() === 'max-age=0')) this.jar.delete(name);
      else this.jar.set(name, pair!.slice(eq + 1).trim());
    }
    return res;
  }
  header(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  get size(): number {
    return this.jar.size;
  }
}

export async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = bytesToBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  return { verifier, challenge: bytesToBase64Url(await sha256(verifier)) };
}

export function handleOf(html: string): string {
  const m = /name="handle" value="([^"]+)"/.exec(html);
  if (!m) throw new Error(`no consent handle in the page:\n${html.slice(0, 500)}`);
  return m[1]!;
}

/** The toolsets the review step shows checked. */
export function checkedToolsets(html: string): string[] {
  return [...html.matchAll(/name="toolset" value="([^"]+)" checked/g)].map((m) => m[1]!);
}

export function form(fields: Record<string, string | string[]>): URLSearchParams {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const x of [v].flat()) body.append(k, x);
  return body;
}

export interface ConsentChoice {
  /** Toolsets to allow; default: what the review step pre-checks. */
  toolsets?: string[];
  readonly?: boolean;
}

/** One consent page in one "browser": its cookies, its client IP (for the attempt limit) and its URL. */
export class ConsentSession {
  readonly jar = new CookieJar();
  page!: Response;
  html = '';
  private readonly fetch: Fetch;
  readonly url: string;
  readonly ip: string | undefined;
  constructor(fetch: Fetch, url: string, ip?: string) {
    this.fetch = fetch;
    this.url = url;
    this.ip = ip;
  }

  async open(): Promise<this> {
    const headers: Record<string, string> = this.ip ? { 'cf-connecting-ip': this.ip } : {};
    this.page = this.jar.take(await this.fetch(this.url, { headers, redirect: 'manual' }));
    this.html = await this.page.clone().text();
    return this;
  }

  post(fields: Record<string, string | string[]>, opts: { cookies?: boolean } = {}): Promise<Response> {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (this.ip) headers['cf-connecting-ip'] = this.ip;
    if (opts.cookies !== false) headers.cookie = this.jar.header();
    return this.fetch(this.url, { method: 'POST', headers, body: form(fields), redirect: 'manual' }).then((r) => this.jar.take(r));
  }

  async pasteKey(key: string): Promise<{ res: Response; html: string }> {
    const res = await this.post({ handle: handleOf(this.html), step: 'key', decision: 'continue', key });
    return { res, html: await res.text() };
  }

  /** Both steps with the given choices; returns the final response (a 302 to the client when all went well). */
  async consent(key: string, choice: ConsentChoice = {}): Promise<Response> {
    const review = await this.pasteKey(key);
    if (review.res.status !== 200) throw new Error(`the key step answered ${review.res.status}:\n${review.html.slice(0, 800)}`);
    const fields: Record<string, string | string[]> = { handle: handleOf(review.html), step: 'review', decision: 'approve', toolset: choice.toolsets ?? checkedToolsets(review.html) };
    if (choice.readonly) fields.readonly = '1';
    return this.post(fields);
  }
}

/** The code (and iss, state) the final redirect carries to the client's redirect URI. */
export function redirectParams(res: Response): URLSearchParams {
  const location = res.headers.get('location');
  if (res.status !== 302 || !location) throw new Error(`expected a redirect to the client, got ${res.status}`);
  return new URL(location).searchParams;
}

/**
 * A person at the upstream's sign-in page (test/support/auth-code-server.ts): opens the authorization URL the consent
 * page sent the browser to, signs in as `user` and approves (or denies); returns where the upstream sends the browser.
 */
export async function signInAtUpstream(authorizationUrl: string, decision: 'approve' | 'deny' = 'approve', user = 'pat'): Promise<string> {
  const page = await fetch(authorizationUrl);
  const text = await page.text();
  if (page.status !== 200) throw new Error(`the upstream's sign-in page answered ${page.status}: ${text.slice(0, 300)}`);
  const fields: Record<string, string> = { user, decision };
  for (const m of text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[m[1]!] = m[2]!.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)));
  const back = await fetch(new URL(authorizationUrl).origin + '/oauth/authorize', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form(fields), redirect: 'manual' });
  const location = back.headers.get('location');
  if (back.status !== 302 || !location) throw new Error(`the upstream's sign-in answered ${back.status}`);
  return location;
}
