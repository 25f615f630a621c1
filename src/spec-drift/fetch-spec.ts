// Downloads the watched spec for the drift check: conditional (If-None-Match / If-Modified-Since from the last good
// read), bounded in time (one deadline for the answer and the whole body) and in size (Content-Length checked
// first, then every streamed byte counted, so a chunked or compressed answer cannot go past the limit either).
import type { DriftSettings } from './settings.ts';

export class SpecFetchError extends Error {
  override name = 'SpecFetchError';
}

export interface Validators {
  etag?: string;
  lastModified?: string;
}

export type Fetched = ({ status: 'not_modified' } | { status: 'ok'; text: string; bytes: number }) & Validators;

type Enabled = Extract<DriftSettings, { enabled: true }>;

export async function fetchSpec(settings: Enabled, previous: Validators): Promise<Fetched> {
  const headers = new Headers({ accept: 'application/json, application/yaml;q=0.9, text/yaml;q=0.9, */*;q=0.5' });
  if (previous.etag) headers.set('if-none-match', previous.etag);
  if (previous.lastModified) headers.set('if-modified-since', previous.lastModified);
  if (settings.authHeader) headers.set(settings.authHeader[0], settings.authHeader[1]);
  const signal = AbortSignal.timeout(settings.timeoutMs);
  let res: Response;
  try {
    res = await fetch(settings.url, { headers, redirect: 'follow', signal });
  } catch (e) {
    throw new SpecFetchError(failure(e, settings));
  }
  const validators: Validators = {
    ...(res.headers.get('etag') ? { etag: res.headers.get('etag')! } : {}),
    ...(res.headers.get('last-modified') ? { lastModified: res.headers.get('last-modified')! } : {}),
  };
  if (res.status === 304) {
    await discard(res);
    return { status: 'not_modified', ...previous, ...validators };
  }
  if (!res.ok) {
    await discard(res);
    throw new SpecFetchError(`the spec answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`);
  }
  const declared = Number(res.headers.get('content-length'));
  // Content-Length counts the encoded bytes; a compressed answer is checked again while it streams.
  if (Number.isFinite(declared) && declared > settings.maxBytes) {
    await discard(res);
    throw new SpecFetchError(tooLarge(settings));
  }
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  if (res.body) {
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
        if (bytes > settings.maxBytes) {
          await reader.cancel().catch(() => {});
          throw new SpecFetchError(tooLarge(settings));
        }
        chunks.push(value);
      }
    } catch (e) {
      if (e instanceof SpecFetchError) throw e;
      throw new SpecFetchError(failure(e, settings));
    }
  }
  const body = new Uint8Array(bytes);
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.byteLength;
  }
  return { status: 'ok', text: new TextDecoder().decode(body), bytes, ...validators };
}

/** Frees the connection; a body that fails while being dropped changes nothing about the outcome. */
const discard = (res: Response) => res.body?.cancel().catch(() => {});

const tooLarge = (s: Enabled) => `the spec is larger than SPEC_MAX_BYTES (${s.maxBytes} bytes)`;

/** A network failure in words, never with the URL (its query may carry a token). */
function failure(e: unknown, s: Enabled): string {
  const err = e as { name?: string; message?: string };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return `no complete answer within ${s.timeoutMs} ms (SPEC_CHECK_TIMEOUT_MS)`;
  const message = String(err?.message ?? e).split(s.url).join(s.source);
  return `cannot fetch the spec: ${message}`;
}
