// Starts a Prism mock (@stoplight/prism-cli) of an OpenAPI spec on a loopback port: the offline upstream.
import { join } from 'node:path';
import { binDir, childEnv, freePort, spawnChild, waitForHttp, waitForLine, type Child } from './proc.ts';

export interface PrismOptions {
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
