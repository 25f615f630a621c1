// Bench-only worker entry (never deployed): the production entry src/index.ts (its default export and every
// named export, e.g. Durable Object classes) plus two routes the benchmarks compare it against. `npm run bench` serves this file
// with `wrangler dev` through a temporary config whose `main` points here; production code is untouched.
//
//   /__bench/passthrough/<path>  The floor: proxies the HTTP request to UPSTREAM_URL/<path> and returns
//                                the upstream response as is. No MCP, no JSON-RPC, no validation.
//   /__bench/prebaked/<mcp path> The tools/list ceiling: the first request is answered by the real app
//                                (path without the /__bench/prebaked prefix) and its body bytes are
//                                kept; every later request with the same path and body gets those bytes.
//   /__bench/minimal-mcp/<any>   The honest lower bound of a tools/call: a hand-written handler doing only what any MCP
//                                server must do for the bench's two tools (read and parse the JSON-RPC body, build
//                                the upstream URL from the arguments, fetch, read and parse the JSON answer, write a
//                                JSON-RPC result with a text block and structuredContent). No auth, no validation,
//                                no shaping, no SDK: what is left of our overhead above it is ours.
//   /__bench/usage-on/<mcp path>, /__bench/usage-off/<mcp path>
//                                The real app with USAGE_METERING forced on or off, so one run compares both
//                                in the same isolate. Both sides pay the same re-wrapped Request and env.
import app from '../../src/index.ts';
import type { Env } from '../../src/config.ts';

export * from '../../src/index.ts';

const PASSTHROUGH = '/__bench/passthrough/';
const PREBAKED = '/__bench/prebaked/';
const MINIMAL = '/__bench/minimal-mcp/';
/** The minimal handler's tools: the bench's two GitHub operations (scripts/bench/plan.ts TOOL and REPO), by hand. */
const MINIMAL_TOOLS: Record<string, (a: Record<string, string>) => string> = {
  users_get_by_username: (a) => `/users/${encodeURIComponent(a.username!)}`,
  repos_get: (a) => `/repos/${encodeURIComponent(a.owner!)}/${encodeURIComponent(a.repo!)}`,
};

async function minimalMcp(request: Request, env: Env): Promise<Response> {
  const message = JSON.parse(await request.text()) as { id: string | number; params: { name: string; arguments: Record<string, string> } };
  const path = MINIMAL_TOOLS[message.params.name]!(message.params.arguments);
  const upstream = await fetch(`${(env.UPSTREAM_URL ?? '').replace(/\/+$/, '')}${path}`, { headers: { accept: 'application/json' } });
  const text = await upstream.text();
  const structuredContent = JSON.parse(text) as unknown;
  const body = JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text }], structuredContent } });
  return new Response(body, { headers: { 'content-type': 'application/json' } });
}
// Module scope on purpose: it is the only state a Worker keeps between requests (one local isolate serves the bench).
const prebaked = new Map<string, { body: ArrayBuffer; type: string }>();
const METERING = { '/__bench/usage-on/': 'on', '/__bench/usage-off/': 'off' } as const;
// One derived env per (env, setting), so the app's per-env Config cache works as in production.
const meteringEnvs = new WeakMap<Env, Record<string, Env>>();
function withMetering(env: Env, setting: 'on' | 'off'): Env {
  let byValue = meteringEnvs.get(env);
  if (!byValue) meteringEnvs.set(env, (byValue = {}));
  return (byValue[setting] ??= { ...env, USAGE_METERING: setting });
}

export default {
  async fetch(request: Request, env: Env, ctx: Parameters<typeof app.fetch>[2]): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname.startsWith(PASSTHROUGH)) {
      const base = (env.UPSTREAM_URL ?? '').replace(/\/+$/, '');
      const target = `${base}/${url.pathname.slice(PASSTHROUGH.length)}${url.search}`;
      const upstream = await fetch(target, {
        method: request.method,
        headers: { accept: request.headers.get('accept') ?? '*/*' },
        body: request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body,
      });
      return new Response(upstream.body, { status: upstream.status, headers: { 'content-type': upstream.headers.get('content-type') ?? 'application/octet-stream' } });
    }
    if (url.pathname.startsWith(MINIMAL)) return minimalMcp(request, env);
    if (url.pathname.startsWith(PREBAKED)) {
      const body = await request.text();
      const path = `/${url.pathname.slice(PREBAKED.length)}${url.search}`;
      const key = `${path}\n${body}`;
      let hit = prebaked.get(key);
      if (!hit) {
        const inner = new Request(new URL(path, url), { method: request.method, headers: request.headers, body });
        const res = await app.fetch(inner, env, ctx);
        hit = { body: await res.arrayBuffer(), type: res.headers.get('content-type') ?? 'application/json' };
        prebaked.set(key, hit);
      }
      return new Response(hit.body, { headers: { 'content-type': hit.type } });
    }
    for (const [prefix, setting] of Object.entries(METERING)) {
      if (!url.pathname.startsWith(prefix)) continue;
      const inner = new Request(new URL(`/${url.pathname.slice(prefix.length)}${url.search}`, url), request);
      return app.fetch(inner, withMetering(env, setting), ctx);
    }
    return app.fetch(request, env, ctx);
  },
};
