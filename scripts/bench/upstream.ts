// The bench's loopback upstream: a plain node:http server that answers the one operation every
// benchmarked path calls, GET /users/{username}, with GitHub's own documented example body
// (components/examples/public-user-default-response, 1.2 KB), so the MCP tool's outputSchema check
// runs on a realistic, valid response. Anything else is a 404 problem+json.
//
// It runs as its own process (`node scripts/bench/upstream.ts [--port N]`, prints `listening <url>`)
// so the load generator in the bench process never shares an event loop with it.
// The floor, our worker and the peer all call this same server.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../lib/proc.ts';

export const GITHUB_SPEC = join(repoRoot, 'node_modules/@octokit/openapi/generated/api.github.com.json');

/** GitHub's example body for GET /users/{username}. */
export function exampleUser(specPath = GITHUB_SPEC): Buffer {
  const spec = JSON.parse(readFileSync(specPath, 'utf8'));
  const value = spec.components.examples['public-user-default-response'].value;
  return Buffer.from(JSON.stringify(value));
}

export function startBenchUpstream(port = 0): Promise<{ url: string; close: () => Promise<void> }> {
  const body = exampleUser();
  const notFound = Buffer.from(JSON.stringify({ message: 'Not Found', status: '404' }));
  const server = createServer((req, res) => {
    // Drain any request body before answering (keeps keep-alive connections healthy).
    req.resume();
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      if (req.method === 'GET' && /^\/users\/[^/]+$/.test(path)) {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
        res.end(body);
      } else {
        res.writeHead(404, { 'content-type': 'application/problem+json', 'content-length': notFound.length });
        res.end(notFound);
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      const { port: p } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${p}`,
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}

if (process.argv[1]?.endsWith('scripts/bench/upstream.ts')) {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '0' } } });
  const up = await startBenchUpstream(Number(values.port));
  process.stdout.write(`listening ${up.url}\n`);
  const stop = () => void up.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
