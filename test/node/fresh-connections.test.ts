// test/support/fresh-connections.ts, which every Node test process runs with, against the cause of
// `SocketError: other side closed` in the end-to-end tests: a server that closes an idle keep-alive connection without
// announcing it (as the workerd behind `wrangler dev` does after 15 s; here after 300 ms), and a client whose event loop
// is busy past that (docs/ci.md, "Flaky connections").
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const IDLE_CLOSE_MS = 300;

// The server runs on a thread of its own, so its timers fire while the test keeps its own event loop busy.
const SERVER = `
const { createServer } = require('node:net');
const { parentPort, workerData } = require('node:worker_threads');
const counts = new Int32Array(workerData.counts); // [connections, requests that asked to close]
const server = createServer((socket) => {
  Atomics.add(counts, 0, 1);
  let timer;
  let closed = false;
  // Like workerd: the connection is closed, and whatever arrives on it afterwards is never read.
  const idle = () => { clearTimeout(timer); timer = setTimeout(() => { closed = true; socket.end(); }, workerData.idleMs); };
  let buffered = '';
  socket.on('data', (d) => {
    if (closed) return;
    buffered += d.toString('latin1');
    while (buffered.includes('\\r\\n\\r\\n')) {
      const head = buffered.slice(0, buffered.indexOf('\\r\\n\\r\\n'));
      const length = Number(/^content-length: *(\\d+)/im.exec(head)?.[1] ?? 0);
      if (buffered.length < head.length + 4 + length) break;
      buffered = buffered.slice(head.length + 4 + length);
      const close = /^connection: *close/im.test(head);
      if (close) Atomics.add(counts, 1, 1);
      // No Keep-Alive header: the client cannot know when the server gives up on an idle connection.
      socket.write('HTTP/1.1 200 OK\\r\\nContent-Type: text/plain\\r\\nContent-Length: 2\\r\\n' + (close ? 'Connection: close\\r\\n' : '') + '\\r\\nok');
      if (close) socket.end();
    }
    idle();
  });
  socket.on('error', () => undefined);
  socket.on('close', () => clearTimeout(timer));
  idle();
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', () => server.close(() => process.exit(0)));
`;

const counts = new Int32Array(new SharedArrayBuffer(8));
let thread: Worker;
let url: string;
const connections = () => Atomics.load(counts, 0);
const announcedClose = () => Atomics.load(counts, 1);

beforeAll(async () => {
  thread = new Worker(SERVER, { eval: true, workerData: { counts: counts.buffer, idleMs: IDLE_CLOSE_MS } });
  const port = await new Promise<number>((r) => thread.once('message', r));
  url = `http://127.0.0.1:${port}/`;
});

afterAll(async () => {
  thread.postMessage('stop');
  await new Promise((r) => thread.once('exit', r));
});

/** Keeps the event loop busy, as a long synchronous parse or compile (or a starved process) does. */
function busy(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

describe('connections of a test process', () => {
  it('every request opens its own connection and says so, so a stall past the server closing idle ones fails nothing', async () => {
    const before = connections();
    const asked = announcedClose();
    // POSTs, as every MCP request is (undici retries an idempotent GET on a new connection by itself).
    const init = { method: 'POST', body: '{}' };
    expect(await (await fetch(url, init)).text()).toBe('ok');
    busy(IDLE_CLOSE_MS * 3);
    expect(await (await fetch(url, init)).text()).toBe('ok');
    busy(IDLE_CLOSE_MS * 3);
    expect(await (await fetch(url, init)).text()).toBe('ok');
    expect(connections() - before).toBe(3);
    expect(announcedClose() - asked).toBe(3);
  });

  it('a request the server never read, its new connection closed while the loop was busy, is sent again on a new one', async () => {
    const before = connections();
    const answered = announcedClose();
    const pending = fetch(url, { method: 'POST', body: '{}' });
    // The connection opens; the loop stays busy past the server's limit before it can write the request.
    await new Promise((r) => setImmediate(r));
    busy(IDLE_CLOSE_MS * 3);
    expect(await (await pending).text()).toBe('ok');
    expect(connections() - before).toBe(2);
    expect(announcedClose() - answered).toBe(1);
  });
});
