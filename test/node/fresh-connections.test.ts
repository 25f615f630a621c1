// test/support/fresh-connections.ts, which every Node test process runs with, against the cause of
// `SocketError: other side closed` in the end-to-end tests: a server that closes an idle keep-alive connection without
// announcing it (as the workerd behind `wrangler dev` does after 15 s; here after 300 ms), and a client whose event loop
// is busy past that (docs/ci.md, "Flaky connections").
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const IDLE_CLOSE_MS = 300;

let server: Server;
let url: string;
let connections = 0;
let announcedClose = 0;

beforeAll(async () => {
  server = createServer((socket: Socket) => {
    connections++;
    let timer: NodeJS.Timeout | undefined;
    const idle = () => {
      clearTimeout(timer);
      timer = setTimeout(() => socket.end(), IDLE_CLOSE_MS);
    };
    let buffered = '';
    socket.on('data', (d) => {
      buffered += d.toString('latin1');
      while (buffered.includes('\r\n\r\n')) {
        const head = buffered.slice(0, buffered.indexOf('\r\n\r\n'));
        const length = Number(/^content-length: *(\d+)/im.exec(head)?.[1] ?? 0);
        if (buffered.length < head.length + 4 + length) break;
        buffered = buffered.slice(head.length + 4 + length);
        const close = /^connection: *close/im.test(head);
        if (close) announcedClose++;
        // No Keep-Alive header: the client cannot know when the server gives up on an idle connection.
        socket.write(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n${close ? 'Connection: close\r\n' : ''}\r\nok`);
        if (close) socket.end();
      }
      idle();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => clearTimeout(timer));
    idle();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** Keeps the event loop busy, as a long synchronous parse or compile (or a starved process) does. */
function busy(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

describe('connections of a test process', () => {
  it('every request opens its own connection and says so, so a stall past the server closing idle ones fails nothing', async () => {
    const before = connections;
    // POSTs, as every MCP request is (undici retries an idempotent GET on a new connection by itself).
    const init = { method: 'POST', body: '{}' };
    expect(await (await fetch(url, init)).text()).toBe('ok');
    busy(IDLE_CLOSE_MS * 3);
    expect(await (await fetch(url, init)).text()).toBe('ok');
    busy(IDLE_CLOSE_MS * 3);
    expect(await (await fetch(url, init)).text()).toBe('ok');
    expect(connections - before).toBe(3);
    expect(announcedClose).toBe(3);
  });
});
