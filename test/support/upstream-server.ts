// A real HTTP upstream on loopback. Routes answer the exact cases the worker must handle.
//
// Recording: every request is recorded. `/echo/...` answers with the recorded request itself;
// `GET /__last?path=/some/path` answers with the last request whose path (before '?') was /some/path
// (404 when none), so tests can assert what the upstream received on any route; `GET /__requests?prefix=/repos/o-1/`
// lists, in arrival order, every request whose path starts with the prefix.
// Holding: a request under `/hold/<id>/` is never answered; `GET /__held?id=<id>` says when it arrived and when its
// connection closed (null while open), so cancellation tests can prove the caller really went away. A UPSTREAM_URL
// of `<upstream>/hold/<id>` holds every call of a catalogue.
// A small GitHub (scripts/lib/github-fake.ts) answers GETs under /repos/ and /users/ for any owner, so tests can
// use an owner of their own and list exactly the requests they caused. /scripts/… answer in CJK and other scripts, and
// POST /__tokens counts o200k tokens (test/support/script-routes.ts).
import { pacedRoute, type Paced } from './paced-route.ts';
import { scriptRoute } from './script-routes.ts';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { fakeGitHubAnswer } from '../../scripts/lib/github-fake.ts';

interface RecordedRequest {
  method: string;
  /** The raw request-target exactly as received (path + query, not normalised). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** Body decoded as UTF-8. */
  body: string;
  /** Body bytes as base64 (exact, for binary and multipart bodies). */
  bodyBase64: string;
}

/** A real 1x1 PNG (red pixel). */
export const TINY_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A minimal valid PDF. */
const TINY_PDF = `%PDF-1.4
1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj
2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj
3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 10 10]>>endobj
trailer<</Root 1 0 R>>
%%EOF
`;

const CSV_BODY = 'id,name\n1,Rex\n2,"Fido, Jr."\n';

/** A 0.01 s mono 8 kHz 8-bit WAV: RIFF header + 80 samples of silence. */
function tinyWav(): Buffer {
  const samples = 80;
  const b = Buffer.alloc(44 + samples, 0x80);
  b.write('RIFF', 0, 'ascii');
  b.writeUInt32LE(36 + samples, 4);
  b.write('WAVE', 8, 'ascii');
  b.write('fmt ', 12, 'ascii');
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20); // PCM
  b.writeUInt16LE(1, 22); // mono
  b.writeUInt32LE(8000, 24);
  b.writeUInt32LE(8000, 28);
  b.writeUInt16LE(1, 32);
  b.writeUInt16LE(8, 34);
  b.write('data', 36, 'ascii');
  b.writeUInt32LE(samples, 40);
  return b;
}

/** `/x/<name>/<path>` answers from specs[name] (test/support/example-upstream.ts); undefined means 404. */
type SpecRoutes = Record<string, (path: string, query: URLSearchParams) => unknown>;

/** Requests kept for /__requests: the newest, up to this many. */
const KEEP_REQUESTS = 5_000;

/** A held request: when it arrived and when its connection closed (ms since the epoch). */
interface Held {
  path: string;
  arrivedAt: number;
  closedAt: number | null;
}

export async function startUpstream(specs: SpecRoutes = {}): Promise<{ url: string; close: () => Promise<void> }> {
  const last = new Map<string, RecordedRequest>();
  const all: RecordedRequest[] = [];
  const held = new Map<string, Held[]>();
  const paced: Paced = new Map();
  const server = createServer((req, res) => {
    const hold = /^\/hold\/([^/?]+)(\/[^?]*)?/.exec(req.url ?? '');
    if (hold) {
      const entry: Held = { path: hold[2] ?? '/', arrivedAt: Date.now(), closedAt: null };
      const list = held.get(hold[1]!) ?? [];
      list.push(entry);
      held.set(hold[1]!, list);
      // Never answered: only the caller going away ends it.
      res.on('close', () => {
        entry.closedAt = Date.now();
      });
      req.resume();
      return;
    }
    if (pacedRoute(req, res, paced) || scriptRoute(req, res)) return;
    const heldQuery = /^\/__held\?id=([^&]+)$/.exec(req.url ?? '');
    if (heldQuery) {
      json(res, 200, held.get(decodeURIComponent(heldQuery[1]!)) ?? []);
      return;
    }
    handle(req, res, last, all, specs).catch((e: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(e));
      } else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function json(res: ServerResponse, status: number, body: unknown, type = 'application/json', extra: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text), ...extra });
  res.end(text);
}

function raw(res: ServerResponse, status: number, body: Buffer | string, headers: Record<string, string>): void {
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { 'content-length': String(buf.length), ...headers });
  res.end(buf);
}

async function handle(req: IncomingMessage, res: ServerResponse, last: Map<string, RecordedRequest>, all: RecordedRequest[], specs: SpecRoutes): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const buf = Buffer.concat(chunks);
  const recorded: RecordedRequest = {
    method: req.method ?? '',
    url: req.url ?? '',
    headers: req.headers,
    body: buf.toString('utf8'),
    bodyBase64: buf.toString('base64'),
  };
  const rawUrl = req.url ?? '/';
  const qIndex = rawUrl.indexOf('?');
  const path = qIndex >= 0 ? rawUrl.slice(0, qIndex) : rawUrl;
  const params = new URLSearchParams(qIndex >= 0 ? rawUrl.slice(qIndex + 1) : '');
  if (path !== '/__last' && path !== '/__requests') {
    last.set(path, recorded);
    all.push(recorded);
    if (all.length > KEEP_REQUESTS) all.splice(0, all.length - KEEP_REQUESTS);
  }

  if (path === '/__requests') {
    const prefix = params.get('prefix') ?? '/';
    json(res, 200, all.filter((r) => r.url.startsWith(prefix)));
    return;
  }
  if (path === '/__last') {
    const r = last.get(params.get('path') ?? '');
    if (r) json(res, 200, r);
    else json(res, 404, { error: 'no request recorded for that path' });
    return;
  }
  if (path.startsWith('/echo') || path.startsWith('/api/v3/echo')) {
    json(res, 200, recorded);
    return;
  }
  const spec = /^\/x\/([^/]+)(\/.*)$/.exec(path);
  if (spec && specs[spec[1]!]) {
    const body = specs[spec[1]!]!(spec[2]!, params);
    if (body === undefined) json(res, 404, { message: `no GET operation of ${spec[1]} matches ${spec[2]}` });
    else json(res, 200, body);
    return;
  }

  if (path.startsWith('/drift/')) return driftRoute(req, res, path);

  switch (path) {
    case '/negotiate':
      return negotiate(res, req.headers.accept ?? '', params.get('ignore') === '1');
    case '/json/object':
      return json(res, 200, { id: 7, name: 'Rex', tags: ['good', 'dog'], owner: null });
    case '/json/array':
      return json(res, 200, [{ id: 1 }, { id: 2 }]);
    case '/json/scalar':
      return json(res, 200, 42);
    case '/json/vendor':
      return json(res, 200, { id: 1, kind: 'vendor' }, 'application/vnd.example.v2+json; charset=utf-8');
    case '/json/star':
      return json(res, 200, { id: 2, kind: 'star' }, '*/*');
    case '/json/none': {
      const text = JSON.stringify({ id: 3, kind: 'none' });
      res.writeHead(200, { 'content-length': Buffer.byteLength(text) }); // no content-type at all
      res.end(text);
      return;
    }
    case '/json/invalid':
      return raw(res, 200, '{"id": 1, "name": "trunc', { 'content-type': 'application/json' });
    case '/json/deep': {
      // ?depth levels of {"a":…}: parses, but deeper than any recursive walk of it can go.
      const depth = Number(params.get('depth') ?? 100_000);
      return raw(res, 200, `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`, { 'content-type': 'application/json' });
    }
    case '/json/mismatch':
      return json(res, 200, { id: 'not-a-number', name: 5 });
    case '/json/big': {
      // n items of ~120 chars each (default 5000 -> ~600 KB).
      const n = Number(params.get('n') ?? 5000);
      const items = Array.from({ length: n }, (_, i) => ({ id: i, name: `item-${i}`, description: 'x'.repeat(80) }));
      const root = params.get('root') === 'array' ? items : { total_count: n, items };
      return json(res, 200, root);
    }
    case '/json/bigstring':
      return json(res, 200, { id: 1, blob: 'QUJD'.repeat(50_000), text: 'word '.repeat(50_000) });
    case '/image.png':
      return raw(res, 200, Buffer.from(TINY_PNG_BASE64, 'base64'), { 'content-type': 'image/png' });
    case '/audio.wav':
      return raw(res, 200, tinyWav(), { 'content-type': 'audio/wav' });
    case '/doc.pdf':
      return raw(res, 200, TINY_PDF, { 'content-type': 'application/pdf' });
    case '/data.csv':
      return raw(res, 200, CSV_BODY, { 'content-type': 'text/csv; charset=utf-8' });
    case '/readme.md':
      return raw(res, 200, '# Title\n\nSome *markdown*.\n', { 'content-type': 'text/markdown' });
    case '/feed.xml':
      return raw(res, 200, '<?xml version="1.0"?><feed><id>1</id></feed>', { 'content-type': 'application/xml' });
    case '/bytes':
      return raw(res, 200, Buffer.from([0, 1, 2, 3, 254, 255]), { 'content-type': 'application/octet-stream' });
    case '/no-content':
      res.writeHead(204);
      res.end();
      return;
    case '/empty':
      return raw(res, 200, '', { 'content-type': 'application/json' });
    case '/status/404':
      return json(res, 404, { type: 'about:blank', title: 'Not Found', status: 404, detail: 'Pet 99 does not exist' }, 'application/problem+json');
    case '/status/429':
      return json(res, 429, { message: 'API rate limit exceeded' }, 'application/json', { 'retry-after': '7' });
    case '/status/503':
      return raw(res, 503, 'down for maintenance', { 'content-type': 'text/plain', 'retry-after': new Date(Date.now() + 120_000).toUTCString() });
    case '/status/500':
      return raw(res, 500, `<!DOCTYPE html><html><head><title>Oops</title><style>p{}</style></head><body><h1>Internal error</h1><p>${'trace '.repeat(1000)}</p></body></html>`, {
        'content-type': 'text/html',
      });
    case '/status/401':
      return json(res, 401, { message: 'Bad credentials' });
    case '/reset':
      req.socket.destroy();
      return;
    case '/reset-mid': {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"partial": "');
      await sleep(50);
      req.socket.destroy();
      return;
    }
    case '/slow-headers': {
      const ms = Number(params.get('ms') ?? 5000);
      const timer = setTimeout(() => json(res, 200, { late: true }), ms);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    case '/slow-body': {
      // Headers and a first chunk at once, then nothing for `ms`.
      const ms = Number(params.get('ms') ?? 5000);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items": [');
      const timer = setTimeout(() => res.end('1]}'), ms);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    case '/gzip-bomb': {
      // 8 MiB of JSON that compresses to a few KiB: a small Content-Length whose body grows past a limit once decoded.
      const body = gzipSync(`{"pad":"${'a'.repeat(8 * 1024 * 1024)}"}`);
      return raw(res, 200, body, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    }
    case '/big': {
      // A 50 MB body (size via ?mb=), streamed in 64 KiB chunks with backpressure; never allocated whole.
      const total = Number(params.get('mb') ?? 50) * 1024 * 1024;
      const headers: Record<string, string> = { 'content-type': params.get('type') ?? 'application/octet-stream' };
      if (params.get('length') === '1') headers['content-length'] = String(total);
      res.writeHead(200, headers);
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      let sent = 0;
      let closed = false;
      res.on('close', () => {
        closed = true;
      });
      while (sent < total && !closed) {
        const n = Math.min(chunk.length, total - sent);
        sent += n;
        if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
          await new Promise<void>((r) => {
            const done = () => {
              res.off('drain', done);
              res.off('close', done);
              r();
            };
            res.on('drain', done);
            res.on('close', done);
          });
        }
      }
      if (!closed) res.end();
      bigStats.lastSent = sent;
      return;
    }
    case '/big-stats':
      return json(res, 200, bigStats);
    case '/redirect/same':
      res.writeHead(302, { location: '/echo/redirected' });
      res.end();
      return;
    case '/redirect/see-other':
      res.writeHead(303, { location: '/echo/after-post' });
      res.end();
      return;
    case '/redirect/cross': {
      // Same server under another origin (localhost vs 127.0.0.1): credentials must not follow.
      const port = (req.socket.localPort ?? 0).toString();
      res.writeHead(307, { location: `http://localhost:${port}/echo/cross` });
      res.end();
      return;
    }
    case '/redirect/loop':
      res.writeHead(302, { location: '/redirect/loop' });
      res.end();
      return;
  }
  const github = fakeGitHubAnswer(req.method ?? 'GET', path, params);
  if (github) return json(res, github.status, github.body, 'application/json; charset=utf-8');
  json(res, 404, { title: 'Not Found', status: 404, detail: `no route for ${path}` }, 'application/problem+json');
}

const bigStats = { lastSent: 0 };

/**
 * Content negotiation as servers do it (RFC 9110 §12.5.1): each offered type gets the q of the most specific matching
 * Accept range; the highest q wins and ties go to the server's own order, which puts YAML first. `ignore`: YAML always.
 */
function negotiate(res: ServerResponse, accept: string, ignore: boolean): void {
  const offers = ['application/yaml', 'application/json', 'application/vnd.kubernetes.protobuf'];
  const ranges = accept.split(',').map((part) => {
    const [range = '', ...ps] = part.split(';').map((x) => x.trim().toLowerCase());
    const q = ps.find((p) => p.startsWith('q='));
    return { range, q: q ? Number(q.slice(2)) : 1 };
  });
  const qOf = (type: string): number => {
    const [major] = type.split('/');
    const m = ranges.find((r) => r.range === type) ?? ranges.find((r) => r.range === `${major}/*`) ?? ranges.find((r) => r.range === '*/*');
    return m ? m.q : 0;
  };
  let best: string | undefined;
  for (const o of offers) if (qOf(o) > 0 && (best === undefined || qOf(o) > qOf(best))) best = o;
  if (ignore) best = 'application/yaml';
  if (!best) return json(res, 406, { title: 'Not Acceptable' }, 'application/problem+json');
  if (best === 'application/json') return json(res, 200, { kind: 'Pod', name: 'web-1', replicas: 3 });
  if (best === 'application/yaml') return raw(res, 200, 'kind: Pod\nname: web-1\nreplicas: 3\n', { 'content-type': 'application/yaml' });
  return raw(res, 200, Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x03]), { 'content-type': best });
}

/**
 * /drift/things/{id}: an API that drifted from test/support/drift-api.json. GET answers a thing with new keys in its
 * typed maps (one of another type), nulls in fields the spec does not mark nullable, an enum value the spec does not
 * list and numbers sent as strings; DELETE and PUT answer 204, HEAD headers only.
 */
function driftRoute(req: IncomingMessage, res: ServerResponse, path: string): void {
  const id = decodeURIComponent(path.split('/')[3] ?? '');
  if (req.method === 'DELETE' || req.method === 'PUT') {
    res.writeHead(204);
    res.end();
    return;
  }
  const thing = {
    id: `${id.length}`,
    name: null,
    status: 'archived-by-policy',
    size: '1024',
    ratio: 0.5,
    labels: { team: 'core', 'added-later': 'x', priority: 3 },
    metrics: { cpu: { value: '12.5', unit: 'ms' }, extra: 'n/a' },
    owner: { login: 'octo', id: null, kind: 'robot' },
    tags: ['a', null],
  };
  if (req.method === 'HEAD') {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(JSON.stringify(thing).length) });
    res.end();
    return;
  }
  json(res, 200, thing);
}
