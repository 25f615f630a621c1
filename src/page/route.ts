// Handlers for the public catalogue page: GET / (HTML) and GET /catalogue/tools/<name>.json (one tool's schemas).
// The app mounts them behind the config and host-guard steps (src/app.ts).
import type { Handler } from 'hono';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { Config, Env } from '../config.ts';
import { bytesToBase64, sha256 } from '../lib/bytes.ts';
import { Lru } from '../lib/lru.ts';
import type { PipelineEnv } from '../pipeline/vars.ts';
import { renderPage, toolDetail } from './render.ts';
import { PAGE_SCRIPT } from './script.ts';
import { schemeStatuses, type SchemeStatuses } from './upstream-auth.ts';

interface Rendered {
  body: string;
  etag: string;
  csp: string;
}

// Host-guarded, so only allowed hosts ever get an entry; the bounds are a second line of defence. A page is charged
// 1 MiB while it renders, then twice its length (UTF-16 at worst).
const MAX_CACHED = 16;
const MAX_BYTES = 8 * 1024 * 1024;
const PENDING_BYTES = 1024 * 1024;

export function pageHandlers(loaded: LoadedCatalogue): { home: Handler<PipelineEnv>; toolJson: Handler<PipelineEnv> } {
  const cache = new Lru<string, Promise<Rendered>>('catalogue pages', MAX_CACHED, MAX_BYTES);
  let scriptHash: Promise<string> | undefined;

  const render = async (origin: string, cfg: Config, oauth: boolean, schemes: SchemeStatuses | undefined): Promise<Rendered> => {
    const hash = await loaded.hash();
    const body = renderPage(loaded, { origin, credentialMode: cfg.credentialMode, compactResults: cfg.compactResults, oauth, ...(schemes ? { schemes } : {}) }, hash);
    scriptHash ??= cspHash(PAGE_SCRIPT);
    const csp = `default-src 'none'; script-src '${await scriptHash}'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
    return { body, csp, etag: `"${(await cspHash(body)).slice(7, 31)}"` };
  };

  const home: Handler<PipelineEnv> = async (c) => {
    const cfg = c.var.config;
    const origin = new URL(c.req.url).origin;
    const oauth = c.var.oauth.enabled;
    const schemes = statusesOf(cfg, c.env);
    const key = `${cfg.credentialMode} ${cfg.compactResults ? 1 : 0} ${oauth} ${schemes?.key ?? ''} ${origin}`;
    let entry = cache.get(key);
    if (!entry) {
      const rendering = (entry = render(origin, cfg, oauth, schemes));
      cache.set(key, rendering, PENDING_BYTES);
      rendering.then(
        (page) => cache.peek(key) === rendering && cache.set(key, rendering, 2 * (page.body.length + page.csp.length)),
        () => cache.peek(key) === rendering && cache.delete(key),
      );
    }
    const page = await entry;
    const headers: Record<string, string> = {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'public, max-age=300',
      etag: page.etag,
      'content-security-policy': page.csp,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    };
    if (c.req.header('if-none-match') === page.etag) return new Response(null, { status: 304, headers });
    return new Response(page.body, { headers });
  };

  const toolJson: Handler<PipelineEnv> = async (c) => {
    const file = c.req.param('file') ?? '';
    const i = file.endsWith('.json') ? loaded.indexOf(file.slice(0, -5)) : undefined;
    if (i !== undefined) await loaded.load([i]);
    const tool = i === undefined ? undefined : loaded.tool(i);
    if (!tool) return c.json({ error: 'not_found', message: `No tool named ${JSON.stringify(file.replace(/\.json$/, ''))}.` }, 404);
    return new Response(JSON.stringify(toolDetail(tool, loaded.catalogue, c.var.config.compactResults, statusesOf(c.var.config, c.env))), {
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' },
    });
  };

  // The one credential tied to no scheme: UPSTREAM_TOKEN, sent in gateway mode (and by the operator key in customer mode).
  const statusesOf = (cfg: Config, env: Env | undefined) => schemeStatuses(loaded.catalogue.security, cfg, Boolean(env?.UPSTREAM_TOKEN) && cfg.credentialMode === 'gateway');

  return { home, toolJson };
}

/** A CSP source hash: sha256-<base64 of the SHA-256 of the text>. */
async function cspHash(text: string): Promise<string> {
  return `sha256-${bytesToBase64(await sha256(text))}`;
}
