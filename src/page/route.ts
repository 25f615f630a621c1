// Routes for the public catalogue page: GET / (HTML) and GET /catalog/tools/<name>.json (one tool's schemas).
import type { Context, Hono } from 'hono';
import type { LoadedCatalogue } from '../catalogue/load.ts';
import type { Config, Env } from '../config.ts';
import { guardHostAndOrigin } from '../protocol/host-guard.ts';
import { PAGE_SCRIPT } from './script.ts';
import { renderPage, toolDetail } from './render.ts';

type AppEnv = { Bindings: Env };

interface Rendered {
  body: string;
  etag: string;
  csp: string;
}

// Host-guarded, so only allowed hosts ever get an entry; the cap is a second line of defence.
const MAX_CACHED = 16;

export function registerPage(app: Hono<AppEnv>, loaded: LoadedCatalogue, configFor: (env: Env | undefined) => Config): void {
  const cache = new Map<string, Promise<Rendered>>();
  let scriptHash: Promise<string> | undefined;

  const render = async (origin: string, cfg: Config): Promise<Rendered> => {
    const hash = await loaded.hash();
    const body = renderPage(loaded, { origin, credentialMode: cfg.credentialMode }, hash);
    scriptHash ??= sha256Base64(PAGE_SCRIPT);
    const csp = `default-src 'none'; script-src '${await scriptHash}'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
    return { body, csp, etag: `"${(await sha256Base64(body)).slice(7, 31)}"` };
  };

  app.get('/', async (c) => {
    const cfg = configFor(c.env);
    const rejected = guardHostAndOrigin(c.req.raw, cfg.allowedHosts);
    if (rejected) return rejected;
    const origin = new URL(c.req.url).origin;
    const key = `${cfg.credentialMode} ${origin}`;
    let entry = cache.get(key);
    if (!entry) {
      if (cache.size >= MAX_CACHED) cache.clear();
      entry = render(origin, cfg);
      cache.set(key, entry);
      entry.catch(() => cache.delete(key));
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
  });

  app.get('/catalog/tools/:file', (c: Context<AppEnv>) => {
    const cfg = configFor(c.env);
    const rejected = guardHostAndOrigin(c.req.raw, cfg.allowedHosts);
    if (rejected) return rejected;
    const file = c.req.param('file') ?? '';
    const tool = file.endsWith('.json') ? loaded.byName.get(file.slice(0, -5)) : undefined;
    if (!tool) return c.json({ error: 'not_found', message: `No tool named ${JSON.stringify(file.replace(/\.json$/, ''))}.` }, 404);
    return new Response(JSON.stringify(toolDetail(tool)), {
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' },
    });
  });
}

async function sha256Base64(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return `sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}`;
}
