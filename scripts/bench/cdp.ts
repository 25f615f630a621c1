// A minimal Chrome DevTools Protocol client for workerd's inspector (Node's own WebSocket): the isolate's heap after a
// forced GC, and CPU profiles of a load run. HeapProfiler.collectGarbage never answers over workerd's inspector, so a
// heap snapshot (which collects garbage first) stands in for it; its chunks are counted and dropped.
export class Cdp {
  private readonly ws: WebSocket;
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.onmessage = (m) => {
      const msg = JSON.parse(String(m.data)) as { id?: number; result?: unknown; error?: { message: string } };
      const w = msg.id !== undefined ? this.waiting.get(msg.id) : undefined;
      if (!w) return;
      this.waiting.delete(msg.id!);
      if (msg.error) w.reject(new Error(msg.error.message));
      else w.resolve(msg.result);
    };
  }

  /** `origin`: wrangler dev's inspector proxy refuses a client without an Origin header (undici's WebSocket takes `{ headers }`). */
  static async connect(url: string, origin?: string): Promise<Cdp> {
    const ws = origin ? new WebSocket(url, { headers: { origin } } as unknown as string[]) : new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onerror = () => reject(new Error(`cannot open the inspector at ${url}`));
    });
    return new Cdp(ws);
  }

  send<T>(method: string, params: Record<string, unknown> = {}, timeoutMs = 120_000): Promise<T> {
    const id = ++this.next;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`${method}: no answer in ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Bytes of live V8 heap after a full garbage collection. */
  async heapAfterGc(): Promise<number> {
    await this.send('HeapProfiler.enable');
    await this.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    return (await this.send<{ usedSize: number }>('Runtime.getHeapUsage')).usedSize;
  }

  /** A CPU profile of whatever runs while `during` does. */
  async profile(during: () => Promise<void>, intervalUs = 200): Promise<CpuProfile> {
    await this.send('Profiler.enable');
    await this.send('Profiler.setSamplingInterval', { interval: intervalUs });
    await this.send('Profiler.start');
    await during();
    return (await this.send<{ profile: CpuProfile }>('Profiler.stop')).profile;
  }

  close(): void {
    this.ws.close();
  }
}

export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
}

/** Share of non-idle samples per function (self time), largest first. */
export function selfTimeShares(p: CpuProfile, top: number): Array<{ fn: string; share: number }> {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const n = byId.get(id)!;
    if (n.callFrame.functionName === '(idle)') return;
    const dt = p.timeDeltas[i + 1] ?? 0;
    const name = n.callFrame.functionName || (n.callFrame.url ? '(anonymous)' : '(native)');
    self.set(name, (self.get(name) ?? 0) + dt);
    total += dt;
  });
  return [...self].sort((a, b) => b[1] - a[1]).slice(0, top).map(([fn, t]) => ({ fn, share: t / Math.max(1, total) }));
}
