// The local mock's front: Prism answers with the spec's own examples (static mode), and with generated data only
// for operations whose success response has no example, asked per request with Prism's `Prefer: dynamic=true`.
// A newcomer then sees realistic data (GitHub's examples are real API answers) wherever the spec has it.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { SpecIndex } from '../sweep/spec-index.ts';

export interface ExamplesFirst {
  url: string;
  close(): Promise<void>;
}

/** Reads the spec (file or URL, JSON or YAML) into a document, or undefined when it cannot be read. */
export async function readSpecDocument(spec: string): Promise<Record<string, any> | undefined> {
  try {
    const text = /^https?:\/\//i.test(spec) ? await (await fetch(spec, { signal: AbortSignal.timeout(30_000) })).text() : await readFile(spec, 'utf8');
    const body = text.replace(/^\uFEFF/, '');
    return (body.trimStart().startsWith('{') ? JSON.parse(body) : parseYaml(body)) as Record<string, any>;
  } catch {
    return undefined;
  }
}

/** A loopback proxy in front of a static Prism at `prismUrl` that asks for generated data where `doc` has no example. */
export async function startExamplesFirst(prismUrl: string, doc: Record<string, any>): Promise<ExamplesFirst> {
  const index = new SpecIndex(doc);
  const target = new URL(prismUrl);
  // Swagger 2.0 puts a base path before every operation path; Prism serves under it.
  const basePath = typeof doc.basePath === 'string' ? doc.basePath.replace(/\/+$/, '') : '';
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const opPath = basePath && path.startsWith(basePath) ? path.slice(basePath.length) || '/' : path;
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: target.host };
    if (index.hasSuccessExample(req.method ?? 'GET', opPath) === false && !headers.prefer) headers.prefer = 'dynamic=true';
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (e) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`mock unavailable: ${e.message}. This answer comes from the local mock (Prism), not the API; to call the real API, serve with --upstream <its base URL>.`);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
