// Every HTTP request of a test process closes its connection once answered (fetch: undici's `reset`, i.e.
// `Connection: close`; node:http: a global agent without keep-alive), so no request ever goes out on a pooled
// connection the server has already closed.
//
// Why: `wrangler dev` listens through workerd, which closes a keep-alive connection after 15 s idle without saying so
// (no `Keep-Alive: timeout=` header). Node's fetch keeps an idle connection for 4 s and expires it with a timer, and a
// timer cannot run while the event loop is busy: the v1 SDK compiling 1,223 outputSchemas with Ajv, a 4 MB SSE event
// parsed, or a test process starved of CPU on a loaded machine. After such a stretch (over 15 s) the next request is
// written to a connection the server closed meanwhile, and fails with `SocketError: other side closed` (docs/ci.md,
// "Flaky connections"). A loopback connection per request costs nothing next to that.
import http from 'node:http';
import type { Dispatcher } from 'undici-types';

const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

// Node creates its global dispatcher when fetch is first used; a data: URL makes that happen without a network call.
await (await fetch('data:text/plain,')).text();
const g = globalThis as unknown as Record<symbol, Dispatcher | undefined>;
const pooled = g[GLOBAL_DISPATCHER];
if (!pooled) throw new Error('fresh-connections: Node has no global fetch dispatcher to wrap');
// WebSocket handshakes (the inspector in memory-soak.test.ts) keep their connection: it is upgraded, not reused.
const fresh = Object.create(pooled) as Dispatcher;
fresh.dispatch = (opts, handler) => pooled.dispatch(opts.upgrade ? opts : { ...opts, reset: true }, handler);
g[GLOBAL_DISPATCHER] = fresh;

// node:http keeps connections alive by default too (the loopback proxies in test/e2e/helpers.ts use it).
http.globalAgent = new http.Agent({ keepAlive: false });
