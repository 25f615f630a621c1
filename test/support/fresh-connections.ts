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
//
// A new connection has the same 15 s limit for its request to arrive. A test process busy or starved for that long
// between opening a connection and writing on it (the kernel completes the handshake at once; the write waits for the
// event loop) gets the connection closed with no byte answered. The server never read that request, so such a fetch
// is sent once more, on a new connection.
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

/** A fetch whose fresh connection the server closed before a byte came back: its request was never read. */
function neverAnswered(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string; message?: string; socket?: { bytesRead?: number } } }).cause;
  return cause?.code === 'UND_ERR_SOCKET' && cause.message === 'other side closed' && cause.socket?.bytesRead === 0;
}

const once = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  try {
    return await once(input, init);
  } catch (err) {
    // Only a body that can be sent twice (a Request object's, or a stream, cannot).
    const replayable = !(input instanceof Request) && !(init?.body instanceof ReadableStream);
    if (!neverAnswered(err) || !replayable) throw err;
    return once(input, init);
  }
};

// node:http keeps connections alive by default too (the loopback proxies in test/e2e/helpers.ts use it).
http.globalAgent = new http.Agent({ keepAlive: false });
