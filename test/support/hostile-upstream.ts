// An upstream that answers like a hostile or careless API, in front of the loopback upstream (upstream-server.ts):
// `GET /repos/<owner>/…` is answered by the owner's prefix, every other request is passed to the loopback upstream.
//   - `objs-<kind>-<KiB>-…`: a JSON array of that many KiB of one item: `e` `{}`, `r` an 80-byte record, `s` a string;
//   - `gzbomb-…`: 200 MB of spaces gzipped to 200 KB, with no Content-Length;
//   - `endless-…`: a body that never ends;
//   - `metadata-…`: a redirect to the cloud metadata address;
//   - `hang-…`: never answers.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { startUpstream } from './upstream-server.ts';

const ITEMS: Record<string, string> = { e: '{},', r: '{"id":12345,"name":"abcdefgh","url":"http://example.com/x/12345","ok":true},', s: '"abcdefghij",' };

export async function startHostileUpstream(): Promise<{ url: string; close: () => Promise<void> }> {
  const inner = await startUpstream();
  let bomb: Buffer | undefined;
  const timers = new Set<ReturnType<typeof setInterval>>();
  const server: Server = createServer(async (req, res) => {
    const owner = /^\/repos\/([^/]+)\//.exec(req.url ?? '')?.[1] ?? '';
    const objs = /^objs-([ers])-(\d+)-/.exec(owner);
    if (objs) {
      const item = ITEMS[objs[1]!]!;
      const body = Buffer.from(`[${item.repeat(Math.floor((Number(objs[2]) * 1024) / item.length))}0]`);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
    } else if (owner.startsWith('gzbomb-')) {
      bomb ??= gzipSync(Buffer.alloc(200 * 1024 * 1024, 0x20));
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(bomb);
    } else if (owner.startsWith('endless-')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(65536, 0x20);
      const timer = setInterval(() => res.write(chunk), 1);
      timers.add(timer);
      res.on('close', () => (clearInterval(timer), timers.delete(timer)));
    } else if (owner.startsWith('metadata-')) {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    } else if (owner.startsWith('hang-')) {
      req.on('close', () => res.destroy());
    } else {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)).map(([k, v]) => [k, String(v)]));
      const r = await fetch(inner.url + req.url, { method: req.method, headers, ...(['GET', 'HEAD'].includes(req.method ?? 'GET') ? {} : { body: Buffer.concat(chunks) }) });
      const out: Record<string, string> = {};
      r.headers.forEach((v, k) => {
        if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(k)) out[k] = v;
      });
      res.writeHead(r.status, out).end(Buffer.from(await r.arrayBuffer()));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const t of timers) clearInterval(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await inner.close();
    },
  };
}
