// Starts a Prism mock (@stoplight/prism-cli) of an OpenAPI spec on a loopback port: the offline upstream.
import { join } from 'node:path';
import { binDir, childEnv, freePort, spawnChild, waitForHttp, waitForLine, type Child } from './proc.ts';

interface PrismOptions {
  /** Path or URL of the OpenAPI spec to mock. */
  spec: string;
  /** Port on 127.0.0.1; a free one when omitted. */
  port?: number;
  /** Dynamic (generated, -d) responses, or static examples. Default true. */
  dynamic?: boolean;
  /** Startup timeout, ms. Prism reads the 1,223-operation GitHub spec in about 8 s on 2 cores. */
  timeoutMs?: number;
}

export interface Running {
  url: string;
  child: Child;
  /** Milliseconds from spawn to ready. */
  startMs: number;
  stop(): Promise<void>;
}

export const GITHUB_SPEC = 'node_modules/@octokit/openapi/generated/api.github.com.json';

export async function startPrism(opts: PrismOptions): Promise<Running> {
  const port = opts.port ?? (await freePort());
  const args = ['mock', '-h', '127.0.0.1', '-p', String(port)];
  if (opts.dynamic ?? true) args.push('-d');
  args.push(opts.spec);
  const t0 = Date.now();
  const child = spawnChild('prism', join(binDir, 'prism'), args, { env: childEnv() });
  const url = `http://127.0.0.1:${port}`;
  try {
    const timeoutMs = opts.timeoutMs ?? 120_000;
    await waitForLine(child, /Prism is listening/, timeoutMs);
    // The log line comes right after listen(); confirm the socket answers.
    await waitForHttp(`${url}/__prism_ready_probe`, child, 10_000);
  } catch (err) {
    await child.stop();
    throw err;
  }
  return { url, child, startMs: Date.now() - t0, stop: () => child.stop() };
}

/**
 * What a spec needs changed before Prism can mock it:
 * - Prism enforces the spec's `security` requirements and answers 401 when a request carries none, but the worker
 *   sends no upstream credentials in key mode. For an offline mock that is noise, so `security` goes (root and per
 *   operation).
 * - Prism sends every documented response header with a generated value, framing headers too: a documented
 *   `Content-Length` or `Transfer-Encoding` makes an answer no HTTP client can parse ("Content-Length can't be
 *   present with Transfer-Encoding"). Those describe the connection, not the API, so their documentation goes.
 * Writes the changed copy into `dir` and returns its path. Specs that need neither, or with external (non-#) $refs
 * that a copy would break, are returned unchanged.
 */
export async function mockableSpec(spec: string, dir: string): Promise<string> {
  const { readFile, writeFile } = await import('node:fs/promises');
  const { parse } = await import('yaml');
  let text: string;
  try {
    text = /^https?:\/\//i.test(spec) ? await (await fetch(spec, { signal: AbortSignal.timeout(30_000) })).text() : await readFile(spec, 'utf8');
  } catch {
    return spec; // let Prism report the problem
  }
  const framing = new RegExp(`(^|["'\\s{,])(${FRAMING_HEADERS.join('|')})["']?\\s*:`, 'im');
  if (!/"?security"?\s*:/.test(text) && !framing.test(text)) return spec;
  if (/"?\$ref"?\s*:\s*["']?(?!#)[^\s"']/.test(text)) return spec;
  let doc: Record<string, unknown>;
  try {
    doc = (text.trimStart().startsWith('{') ? JSON.parse(text) : parse(text)) as Record<string, unknown>;
  } catch {
    return spec;
  }
  delete doc.security;
  const responses: unknown[] = [];
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    if (!item || typeof item !== 'object') continue;
    for (const op of Object.values(item)) {
      if (!op || typeof op !== 'object') continue;
      delete (op as Record<string, unknown>).security;
      responses.push(...Object.values(((op as Record<string, unknown>).responses ?? {}) as Record<string, unknown>));
    }
  }
  const components = (doc.components ?? {}) as Record<string, Record<string, unknown> | undefined>;
  responses.push(...Object.values(components.responses ?? {}), ...Object.values((doc.responses ?? {}) as Record<string, unknown>));
  for (const response of responses) {
    const headers = (response as { headers?: unknown } | null)?.headers;
    if (!headers || typeof headers !== 'object') continue;
    for (const name of Object.keys(headers)) if (FRAMING_HEADERS.includes(name.toLowerCase())) delete (headers as Record<string, unknown>)[name];
  }
  const out = join(dir, 'mock-spec.json');
  await writeFile(out, JSON.stringify(doc));
  return out;
}

/** Hop-by-hop and framing headers (RFC 9110 §7.6.1, §8.6; RFC 9112 §6.1): set by the HTTP layer, never by a mock. */
const FRAMING_HEADERS = ['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer'];
