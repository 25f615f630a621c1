// A minimal HTTP/1.1 client over `cloudflare:sockets`, used only for what fetch refuses:
// a GET (or HEAD) request that carries a body (search endpoints in some specs). It returns a
// normal Response whose body is a stream, so limits, timeouts and conversion work unchanged.
// One request per connection (Connection: close); identity encoding; chunked or
// Content-Length or read-until-close bodies.

const MAX_HEAD_BYTES = 64 * 1024;
const enc = new TextEncoder();

export async function fetchWithBody(url: string, init: { method: string; headers: Headers; body: BodyInit; signal?: AbortSignal }): Promise<Response> {
  const u = new URL(url);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new TypeError(`unsupported protocol ${u.protocol}`);
  // Let the runtime serialise the body (FormData boundary, strings, bytes) exactly as fetch would.
  const probe = new Request('http://body.invalid/', { method: 'POST', body: init.body });
  const bodyBytes = new Uint8Array(await probe.arrayBuffer());
  const headers = new Headers(init.headers);
  const probeType = probe.headers.get('content-type');
  if (!headers.has('content-type') && probeType) headers.set('content-type', probeType);
  headers.set('content-length', String(bodyBytes.length));
  headers.set('host', u.host);
  headers.set('connection', 'close');
  headers.set('accept-encoding', 'identity');

  let head = `${init.method} ${u.pathname}${u.search} HTTP/1.1\r\n`;
  headers.forEach((v, k) => {
    head += `${k}: ${v}\r\n`;
  });
  head += '\r\n';

  const { connect } = await import('cloudflare:sockets');
  const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
  const socket = connect({ hostname: u.hostname.replace(/^\[|\]$/g, ''), port }, { secureTransport: u.protocol === 'https:' ? 'on' : 'off', allowHalfOpen: false });
  // These settle with an error when the peer resets; nothing awaits them, so keep them handled.
  socket.opened.catch(() => undefined);
  socket.closed.catch(() => undefined);
  const close = () => {
    socket.close().catch(() => undefined);
  };
  if (init.signal?.aborted) {
    close();
    throw init.signal.reason ?? new DOMException('aborted', 'AbortError');
  }
  init.signal?.addEventListener('abort', close, { once: true });

  try {
    const writer = socket.writable.getWriter();
    const headBytes = enc.encode(head);
    const all = new Uint8Array(headBytes.length + bodyBytes.length);
    all.set(headBytes, 0);
    all.set(bodyBytes, headBytes.length);
    await writer.write(all);
    writer.releaseLock();

    const reader = new ByteReader(socket.readable.getReader());
    let status = 0;
    let statusText = '';
    let resHeaders = new Headers();
    // Skip interim 1xx responses.
    do {
      const headText = await reader.readHead();
      const lines = headText.split('\r\n');
      const m = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(lines[0] ?? '');
      if (!m) throw new TypeError('malformed HTTP response from upstream');
      status = Number(m[1]);
      statusText = m[2] ?? '';
      resHeaders = new Headers();
      for (const line of lines.slice(1)) {
        const i = line.indexOf(':');
        if (i > 0) resHeaders.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
      }
    } while (status >= 100 && status < 200);

    const noBody = init.method === 'HEAD' || status === 204 || status === 304;
    const te = (resHeaders.get('transfer-encoding') ?? '').toLowerCase();
    const cl = resHeaders.get('content-length');
    let body: ReadableStream<Uint8Array> | null = null;
    if (!noBody) {
      const source = te.includes('chunked') ? reader.chunked() : cl !== null ? reader.fixed(Number(cl)) : reader.untilClose();
      body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const next = await source.next();
            if (next.done) {
              controller.close();
              close();
            } else controller.enqueue(next.value);
          } catch (e) {
            controller.error(e);
            close();
          }
        },
        cancel() {
          close();
        },
      });
    } else close();
    resHeaders.delete('transfer-encoding');
    return new Response(body, { status, statusText, headers: resHeaders });
  } catch (e) {
    close();
    throw e;
  }
}

class ByteReader {
  private buf = new Uint8Array(0);
  private ended = false;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  constructor(reader: ReadableStreamDefaultReader<Uint8Array>) {
    this.reader = reader;
  }

  private async fill(): Promise<boolean> {
    if (this.ended) return false;
    const r = await this.reader.read();
    if (r.done) {
      this.ended = true;
      return false;
    }
    const next = new Uint8Array(this.buf.length + r.value.length);
    next.set(this.buf, 0);
    next.set(r.value, this.buf.length);
    this.buf = next;
    return true;
  }

  private take(n: number): Uint8Array {
    const out = this.buf.slice(0, n);
    this.buf = this.buf.slice(n);
    return out;
  }

  private indexOf(seq: number[], from = 0): number {
    outer: for (let i = from; i <= this.buf.length - seq.length; i++) {
      for (let j = 0; j < seq.length; j++) if (this.buf[i + j] !== seq[j]) continue outer;
      return i;
    }
    return -1;
  }

  async readHead(): Promise<string> {
    for (;;) {
      const i = this.indexOf([13, 10, 13, 10]);
      if (i >= 0) return new TextDecoder().decode(this.take(i + 4)).slice(0, -4);
      if (this.buf.length > MAX_HEAD_BYTES) throw new TypeError('upstream response headers too large');
      if (!(await this.fill())) throw new TypeError('upstream closed the connection before sending a response');
    }
  }

  private async readLine(): Promise<string> {
    for (;;) {
      const i = this.indexOf([13, 10]);
      if (i >= 0) return new TextDecoder().decode(this.take(i + 2)).slice(0, -2);
      if (this.buf.length > MAX_HEAD_BYTES) throw new TypeError('malformed chunked encoding');
      if (!(await this.fill())) throw new TypeError('upstream closed the connection mid-body');
    }
  }

  async *fixed(n: number): AsyncGenerator<Uint8Array> {
    let left = n;
    while (left > 0) {
      if (this.buf.length === 0 && !(await this.fill())) throw new TypeError('upstream closed the connection mid-body');
      const part = this.take(Math.min(left, this.buf.length));
      left -= part.length;
      yield part;
    }
  }

  async *untilClose(): AsyncGenerator<Uint8Array> {
    for (;;) {
      if (this.buf.length === 0 && !(await this.fill())) return;
      yield this.take(this.buf.length);
    }
  }

  async *chunked(): AsyncGenerator<Uint8Array> {
    for (;;) {
      const sizeLine = await this.readLine();
      const size = parseInt(sizeLine.split(';')[0] ?? '', 16);
      if (!Number.isFinite(size) || size < 0) throw new TypeError('malformed chunked encoding');
      if (size === 0) {
        // Trailers until an empty line.
        while ((await this.readLine()) !== '') {
          /* skip */
        }
        return;
      }
      yield* this.fixed(size);
      await this.readLine();
    }
  }
}
