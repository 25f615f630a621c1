// A minimal keep-alive HTTP/1.1 client for latency loops (node:http, one socket per origin).
// Lighter than fetch/undici per request, so the client adds less to both sides of a ratio.
import { Agent, request } from 'node:http';

export interface Req {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface Res {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export class HttpClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });

  send(base: string, r: Req): Promise<Res> {
    const url = new URL(r.path, base);
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...r.headers };
      if (r.body !== undefined) headers['content-length'] = Buffer.byteLength(r.body);
      const req = request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: r.method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.setTimeout(120_000, () => req.destroy(new Error(`timeout: ${r.method} ${url}`)));
      if (r.body !== undefined) req.write(r.body);
      req.end();
    });
  }

  /** Sends and returns the elapsed milliseconds (request start to last body byte) with the response. */
  async timed(base: string, r: Req): Promise<{ ms: number; res: Res }> {
    const t0 = performance.now();
    const res = await this.send(base, r);
    return { ms: performance.now() - t0, res };
  }

  close(): void {
    this.agent.destroy();
  }
}
