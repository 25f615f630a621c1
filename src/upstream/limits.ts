// Bounded body reading: never buffers more than the limit, and gives up when the signal aborts.

export class ResponseTooLargeError extends Error {
  readonly limit: number;
  readonly seen: number;
  readonly declared: number | undefined;
  constructor(limit: number, seen: number, declared?: number) {
    super(`response body is larger than the ${limit}-byte limit`);
    this.limit = limit;
    this.seen = seen;
    this.declared = declared;
  }
}

export class BodyAbortedError extends Error {}

/**
 * Reads a response body into memory, stopping (and cancelling the stream) as soon as it exceeds
 * `maxBytes`. A Content-Length above the limit is refused before reading anything.
 */
export async function readBodyLimited(
  res: Response,
  maxBytes: number,
  signal?: AbortSignal,
  onOverflow: 'throw' | 'truncate' = 'throw',
): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (onOverflow === 'throw' && Number.isFinite(declared) && declared > maxBytes) {
    await cancelQuietly(res.body);
    throw new ResponseTooLargeError(maxBytes, 0, declared);
  }
  if (!res.body) return new Uint8Array(0);
  // A declared length within the limit, on a body the runtime does not decompress, cannot outgrow it: one native read
  // then costs far less CPU than the chunk loop below (measured per call in docs/benchmarks.md).
  if (Number.isFinite(declared) && declared <= maxBytes && !res.headers.has('content-encoding')) return readWhole(res, signal);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const aborted = signal ? abortPromise(signal) : undefined;
  try {
    for (;;) {
      const next = aborted ? await Promise.race([reader.read(), aborted.promise]) : await reader.read();
      if (next.done) break;
      const chunk = next.value as Uint8Array;
      if (total + chunk.byteLength > maxBytes) {
        await reader.cancel().catch(() => undefined);
        if (onOverflow === 'throw') throw new ResponseTooLargeError(maxBytes, total + chunk.byteLength);
        chunks.push(chunk.subarray(0, maxBytes - total));
        total = maxBytes;
        break;
      }
      total += chunk.byteLength;
      chunks.push(chunk);
    }
  } catch (e) {
    await reader.cancel().catch(() => undefined);
    throw e;
  } finally {
    aborted?.dispose();
    try {
      reader.releaseLock();
    } catch {
      /* already released */
    }
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.byteLength;
  }
  return out;
}

async function readWhole(res: Response, signal?: AbortSignal): Promise<Uint8Array> {
  const aborted = signal ? abortPromise(signal) : undefined;
  try {
    return new Uint8Array(await (aborted ? Promise.race([res.arrayBuffer(), aborted.promise]) : res.arrayBuffer()));
  } catch (e) {
    await cancelQuietly(res.body);
    throw e;
  } finally {
    aborted?.dispose();
  }
}

async function cancelQuietly(body: ReadableStream | null): Promise<void> {
  if (!body) return;
  try {
    await body.cancel();
  } catch {
    /* ignore */
  }
}

function abortPromise(signal: AbortSignal): { promise: Promise<never>; dispose: () => void } {
  let onAbort: () => void = () => undefined;
  const promise = new Promise<never>((_resolve, reject) => {
    if (signal.aborted) {
      reject(new BodyAbortedError('aborted'));
      return;
    }
    onAbort = () => reject(new BodyAbortedError('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  promise.catch(() => undefined);
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}
