// The corpus check's steps for one spec (docs/sweep.md, "Corpus check"): build it with the generator's own CLI, list
// the built catalogue with the v1 strict client over stdio and check the listing's rules, and serve and sweep it in
// wrangler dev with both strict clients. Each step is a child process, so one spec's crash or memory cannot hide
// another's result.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { stringify } from 'yaml';
import { childEnv, repoRoot, spawnChild } from '../lib/proc.ts';
import { listingProblems, type ListedTool } from '../sweep/listing-rules.ts';
import type { SweepReport } from '../sweep/run.ts';

export interface BuildOutcome {
  ok: boolean;
  ms: number;
  tools: number;
  /** The CLI's message when it failed (its last lines). */
  error?: string;
  /** The spec has no operations, and the CLI refused it as it should (docs/generator.md): not a failure. */
  empty?: boolean;
  /** Lossy-conversion warnings of report.md, by kind, and stderr lines other than the summary. */
  warnings: Record<string, number>;
  notes: string[];
  hashedNames: number;
  /** Security schemes report.md says the Worker cannot send (`name: reason`). */
  unsupportedSchemes: string[];
}

export interface ListOutcome {
  ok: boolean;
  tools: number;
  problems: string[];
  error?: string;
}

export interface SweepOutcome {
  exit: number | string;
  ms: number;
  report?: Pick<SweepReport, 'list' | 'sampled' | 'calls' | 'confirmations' | 'totals' | 'failingSchemaTools' | 'errorOn2xxTools' | 'failed'> & { listingProblems?: string[] };
  error?: string;
}

/** Runs a command to completion, with a time limit; its exit code and output tail. */
async function run(name: string, args: string[], timeoutMs: number, env?: NodeJS.ProcessEnv): Promise<{ code: number | string; tail: string; lines: string[] }> {
  const lines: string[] = [];
  const child = spawnChild(name, process.execPath, args, { ...(env ? { env } : {}), tailLines: 400 });
  child.onLine((l) => lines.push(l));
  const timer = setTimeout(() => void child.stop(2000), timeoutMs);
  const code = await child.exited;
  clearTimeout(timer);
  await child.stop(2000);
  return { code: code === 'SIGTERM' || code === 'SIGKILL' ? `timeout after ${timeoutMs} ms` : code, tail: child.tail(), lines };
}

/** The spec as YAML, for a share of the draw: real content through the loader's other format. */
export async function asYaml(specFile: string, dir: string): Promise<string> {
  const file = join(dir, 'spec.yaml');
  await writeFile(file, stringify(JSON.parse(await readFile(specFile, 'utf8')), { aliasDuplicateObjects: false, lineWidth: 0 }));
  return file;
}

/** `npm run catalog -- --spec F --out DIR`, timed; warnings read back from DIR/report.md. */
export async function buildSpec(specFile: string, out: string, timeoutMs: number): Promise<BuildOutcome> {
  await mkdir(out, { recursive: true });
  const t0 = Date.now();
  const r = await run('catalog', [join(repoRoot, 'scripts/catalog/cli.ts'), '--spec', specFile, '--out', out, '--quiet', '--no-toolsnaps'], timeoutMs);
  const ms = Date.now() - t0;
  const notes = r.lines.filter((l) => l.trim() && !/^catalog: wrote /.test(l));
  if (r.code !== 0) {
    const error = r.tail.split('\n').slice(-6).join('\n');
    return { ok: false, ms, tools: 0, error, ...(/has no operations \(.*\): there is nothing to serve/.test(error) ? { empty: true } : {}), warnings: {}, notes: [], hashedNames: 0, unsupportedSchemes: [] };
  }
  const report = await readFile(join(out, 'report.md'), 'utf8').catch(() => '');
  const warnings: Record<string, number> = {};
  const lossy = report.split('## Lossy conversions')[1] ?? '';
  for (const m of lossy.matchAll(/^### (\S+) \((\d+)\)$/gm)) warnings[m[1]!] = Number(m[2]);
  const tools = Number(/tools: (\d+);/.exec(report)?.[1] ?? 0);
  const hashedNames = Number(/hashed names \(last resort\): (\d+)/.exec(report)?.[1] ?? 0);
  const unsupported = /^- unsupported \(.*\n((?:  - .*\n)*)/m.exec(report)?.[1] ?? '';
  const unsupportedSchemes = unsupported.split('\n').filter(Boolean).map((l) => l.replace(/^  - /, ''));
  // The build's stderr names each unsupported scheme too; the report above says it once.
  const rest = notes.filter((l) => !/needed a hash suffix|^catalog: security scheme .* is not supported/.test(l));
  return { ok: true, ms, tools, warnings, notes: rest, hashedNames, unsupportedSchemes };
}

/** Lists every tool of DIR/catalog.txt over stdio (the same server and profiles as the Worker) with the v1 client. */
export async function listOverStdio(dir: string): Promise<ListOutcome> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(repoRoot, 'bin/mcp-catalogue.js')],
    env: childEnv({ MCP_CATALOG: join(dir, 'catalog.txt'), MCP_TOOLSETS: 'all', MCP_UPSTREAM_URL: 'http://127.0.0.1:9' }) as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'corpus-v1', version: '1.0.0' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-2000)));
  try {
    await client.connect(transport);
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: 120_000 });
      tools.push(...(page.tools as ListedTool[]));
      cursor = page.nextCursor;
    } while (cursor);
    return { ok: true, tools: tools.length, problems: listingProblems(tools) };
  } catch (e) {
    return { ok: false, tools: 0, problems: [], error: `${(e as Error).message} ${stderr.split('\n').slice(-4).join(' ')}`.slice(0, 600) };
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** `npm run sweep -- --spec F --mock builtin --sample N --calls C --report X`. */
export async function sweepSpec(specFile: string, reportFile: string, sample: number, calls: number, timeoutMs: number): Promise<SweepOutcome> {
  const t0 = Date.now();
  const r = await run('sweep', [join(repoRoot, 'scripts/sweep/cli.ts'), '--spec', specFile, '--mock', 'builtin', '--sample', String(sample), '--calls', String(calls), '--report', reportFile], timeoutMs, childEnv());
  const ms = Date.now() - t0;
  try {
    const full = JSON.parse(await readFile(reportFile, 'utf8')) as SweepReport & { listingProblems?: string[] };
    const { list, sampled, calls: n, confirmations, totals, failingSchemaTools, errorOn2xxTools, failed, listingProblems } = full;
    return { exit: r.code, ms, report: { list, sampled, calls: n, confirmations: confirmations ?? 0, totals, failingSchemaTools, errorOn2xxTools, failed, ...(listingProblems ? { listingProblems } : {}) } };
  } catch {
    return { exit: r.code, ms, error: r.tail.split('\n').slice(-8).join('\n') };
  }
}
