// Memory under hostile input: many distinct `?tools=` slices (and other client-chosen keys) sent to a running
// worker, with the worker process's RSS read from /proc. Shared by the bench's memory section and the soak test
// (test/e2e/memory-soak.test.ts), so both flood the same way.
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { seeded } from '../lib/seeded.ts';

/** `n` distinct names drawn from `names` (partial Fisher-Yates on a copy). */
export function pick<T>(names: readonly T[], n: number, rand: () => number): T[] {
  const pool = [...names];
  const k = Math.min(n, pool.length);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(rand() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, k);
}

export interface FloodRequest {
  /** POST unless given. */
  method?: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Statuses that count as an answer (anything else is a failure); default [200]. */
  expect?: readonly number[];
}

export interface FloodOutcome {
  sent: number;
  failed: number;
  /** The first few failures, for the error message. */
  failures: string[];
  ms: number;
}

/** One request over node:http, which (unlike fetch) sends any Host header it is given. */
function send(agent: Agent, base: URL, r: FloodRequest): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const body = Buffer.from(r.body ?? '');
    const req = request({ host: base.hostname, port: base.port, path: r.path, method: r.method ?? 'POST', headers: { ...r.headers, ...(r.body === undefined ? {} : { 'content-length': body.length }) }, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(120_000, () => req.destroy(new Error('no answer in 120 s')));
    req.end(r.body === undefined ? undefined : body);
  });
}

/** Sends every request (`concurrency` at a time), reading each body whole; counts answers outside `expect`. */
export async function flood(base: string, requests: Iterable<FloodRequest>, concurrency: number): Promise<FloodOutcome> {
  const it = requests[Symbol.iterator]();
  const out: FloodOutcome = { sent: 0, failed: 0, failures: [], ms: 0 };
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const url = new URL(base);
  const t0 = performance.now();
  const worker = async () => {
    for (let next = it.next(); !next.done; next = it.next()) {
      const r = next.value;
      out.sent++;
      let problem: string | undefined;
      try {
        const res = await send(agent, url, r);
        if (!(r.expect ?? [200]).includes(res.status)) problem = `HTTP ${res.status} for ${r.path.slice(0, 120)}: ${res.body.slice(0, 200)}`;
      } catch (e) {
        problem = `${(e as Error).message} for ${r.path.slice(0, 120)}`;
      }
      if (problem) {
        out.failed++;
        if (out.failures.length < 5) out.failures.push(problem);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    agent.destroy();
  }
  out.ms = performance.now() - t0;
  return out;
}

export const LEGACY_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' };

/** tools/list requests on `count` distinct `?tools=` slices of `perSlice` random tools each. */
export function* sliceLists(names: readonly string[], count: number, perSlice: number, seed: number, auth: Record<string, string>): Generator<FloodRequest> {
  const rand = seeded(seed);
  for (let i = 0; i < count; i++) {
    const tools = pick(names, perSlice, rand);
    yield { path: `/mcp?tools=${tools.join(',')}`, headers: { ...LEGACY_HEADERS, ...auth }, body: JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'tools/list' }) };
  }
}

/** Resident set size of a process, in bytes (VmRSS). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
  if (kib === undefined) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kib) * 1024;
}

/** The pids of `root`'s descendants (and root itself) whose command name is `comm`. */
export function descendantsNamed(root: number, comm: string): number[] {
  const parent = new Map<number, number>();
  const name = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      name.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close));
      parent.set(Number(entry), Number(stat.slice(close + 2).split(' ')[1]));
    } catch {
      // The process ended while we looked.
    }
  }
  const under = (pid: number): boolean => {
    for (let p: number | undefined = pid, hops = 0; p !== undefined && p > 1 && hops < 64; p = parent.get(p), hops++) if (p === root) return true;
    return false;
  };
  return [...name].filter(([pid, n]) => n === comm && under(pid)).map(([pid]) => pid);
}
