// The bench's loopback upstream: a plain node:http server that answers the operations the benchmarks call, with
// GitHub's own documented examples, so the tools' outputSchema checks run on realistic, valid bodies:
//   GET /users/{username}  the example user (public-user-default-response, 1.2 KB): every tools/call figure
//   GET /repos/{owner}/{repo}  the example repository (full-repository-default-response, 23 KB, ~6k tokens): the
//                          call section's large-result row
//   GET /search/issues     the example search item repeated to ~9 MB (issue-search-result-item-paginated): the
//                          large-result section
//   GET /repos/…, /users/…/repos  the small GitHub of scripts/lib/github-fake.ts: the modes section's tasks
// Anything else is a 404 problem+json.
//
// It runs as its own process (`node scripts/bench/upstream.ts [--port N]`, prints `listening <url>`)
// so the load generator in the bench process never shares an event loop with it.
// The floor, our worker and the peer all call this same server.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fakeGitHubAnswer } from '../lib/github-fake.ts';
import { GITHUB_SPEC } from '../lib/prism.ts';
import { repoRoot } from '../lib/proc.ts';
import { LARGE } from './plan.ts';

function exampleBodies(): { user: Buffer; repo: Buffer; search: Buffer } {
  const examples = JSON.parse(readFileSync(join(repoRoot, GITHUB_SPEC), 'utf8')).components.examples;
  const user = Buffer.from(JSON.stringify(examples['public-user-default-response'].value));
  const repo = Buffer.from(JSON.stringify(examples['full-repository-default-response'].value));
  const page = examples['issue-search-result-item-paginated'].value as { items: Record<string, unknown>[] };
  const item = page.items[0]!;
  const count = Math.ceil(LARGE.bytes / JSON.stringify(item).length);
  const items = Array.from({ length: count }, (_, i) => ({ ...item, id: i + 1, number: i + 1 }));
  return { user, repo, search: Buffer.from(JSON.stringify({ ...page, total_count: count, incomplete_results: false, items })) };
}

function startBenchUpstream(port = 0): Promise<{ url: string; close: () => Promise<void> }> {
  const { user, repo, search } = exampleBodies();
  const notFound = Buffer.from(JSON.stringify({ message: 'Not Found', status: '404' }));
  const server = createServer((req, res) => {
    // Drain any request body before answering (keeps keep-alive connections healthy).
    req.resume();
    req.on('end', () => {
      const [path = '/', query = ''] = (req.url ?? '/').split('?');
      let body = req.method !== 'GET' ? undefined : /^\/users\/[^/]+$/.test(path) ? user : /^\/repos\/[^/]+\/[^/]+$/.test(path) ? repo : path === '/search/issues' ? search : undefined;
      const github = body ? undefined : fakeGitHubAnswer(req.method ?? 'GET', path, new URLSearchParams(query));
      if (github?.status === 200) body = Buffer.from(JSON.stringify(github.body));
      if (body) {
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
