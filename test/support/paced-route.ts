// /pace/<id>/...: answered like /echo after 40 ms, counting how many of <id>'s requests were in flight at once
// (/__paced?id=<id> reads the counts). A test bounds the concurrency the Worker opens with it, not a duration.
import type { IncomingMessage, ServerResponse } from 'node:http';

export type Paced = Map<string, { now: number; max: number; total: number }>;

/** Answers the request when it is one of these two routes; false otherwise. */
export function pacedRoute(req: IncomingMessage, res: ServerResponse, paced: Paced): boolean {
  const url = req.url ?? '';
  const query = /^\/__paced\?id=([^&]+)$/.exec(url);
  if (query) {
    send(res, paced.get(decodeURIComponent(query[1]!)) ?? { now: 0, max: 0, total: 0 });
    return true;
  }
  const pace = /^\/pace\/([^/?]+)/.exec(url);
  if (!pace) return false;
  const entry = paced.get(pace[1]!) ?? { now: 0, max: 0, total: 0 };
  paced.set(pace[1]!, entry);
  entry.total++;
  entry.max = Math.max(entry.max, ++entry.now);
  req.resume();
  setTimeout(() => {
    entry.now--;
    send(res, { method: req.method ?? '', url, headers: req.headers, body: '', bodyBase64: '' });
  }, 40);
  return true;
}

function send(res: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
