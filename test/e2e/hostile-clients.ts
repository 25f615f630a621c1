// The two clients of the hostile-tenant tests (hostile-tenant.test.ts, hostile-tenant-upstream.test.ts): a
// well-behaved one that keeps calling and times every answer, and a hostile one that sends a case's POSTs at once.
import { keysCli } from './helpers.ts';
import type { HostileCase } from './hostile-cases.ts';

export interface Sample {
  ms: number;
  what: string;
  during: string;
}

export const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

/**
 * The well-behaved client: tools/list and tools/call, each in a loop of its own, each timed from the request to the last byte of its
 * answer, until stopped. Plain HTTP, as a 2025-era client sends them after its initialize, so the time is the
 * server's and not a client library's (the v1 SDK compiles every outputSchema of a listing, seconds under load).
 */
export function wellBehaved(endpoint: string, auth: Record<string, string>, current: () => string) {
  const samples: Sample[] = [];
  const errors: string[] = [];
  let stopped = false;
  const post = async (body: unknown) => {
    const res = await fetch(endpoint, { method: 'POST', headers: { ...auth, ...HEADERS }, body: JSON.stringify(body), signal: AbortSignal.timeout(120_000) });
    const text = await res.text();
    const data = /^data: (.*)$/m.exec(text)?.[1] ?? text;
    return { status: res.status, message: JSON.parse(data) as { result?: { tools?: unknown[]; isError?: boolean; content?: Array<{ text?: string }> }; error?: unknown } };
  };
  // Two loops, so that one slow answer does not leave the rest of a case unwatched.
  const loop = (what: 'tools/list' | 'tools/call') =>
    (async () => {
      for (let i = 0; !stopped; i++) {
        const t = Date.now();
        const during = current();
        try {
          const { status, message } =
            what === 'tools/list'
              ? await post({ jsonrpc: '2.0', id: i, method: 'tools/list' })
              : await post({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'issues_get', arguments: { owner: 'polite', repo: 'hello', issue_number: 2 } } });
          samples.push({ ms: Date.now() - t, what, during });
          if (status !== 200) errors.push(`${during}: ${what} answered ${status}`);
          else if (what === 'tools/list' && !message.result?.tools?.length) errors.push(`${during}: tools/list answered ${JSON.stringify(message).slice(0, 200)}`);
          else if (what === 'tools/call' && (!message.result || message.result.isError)) errors.push(`${during}: tools/call answered ${JSON.stringify(message).slice(0, 200)}`);
        } catch (e) {
          errors.push(`${during}: ${what}: ${String((e as Error).cause ?? e)}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
  const loops = [loop('tools/list'), loop('tools/call')];
  return {
    samples,
    errors,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** What one hostile POST got: its HTTP status (or why it had none) and the answer's text. */
export interface Sent {
  status: string;
  text: string;
}

/** One hostile case: its POSTs at once, each read to its end. */
export async function sendCase(url: string, auth: Record<string, string>, c: HostileCase): Promise<Sent[]> {
  return Promise.all(
    c.bodies.map(async (body) => {
      try {
        const res = await fetch(`${url}${c.path}`, {
          method: 'POST',
          headers: { ...auth, ...HEADERS, ...c.headers },
          body: typeof body === 'string' ? body : JSON.stringify(body),
          signal: AbortSignal.timeout(c.abortAfterMs ?? 120_000),
        });
        const text = await res.text();
        // wrangler's proxy answers a lost runtime with a plain-text error of its own.
        if (/Network connection lost|Internal server error|workerd/i.test(text) && !text.startsWith('{') && !text.startsWith('event:')) return { status: `lost: ${res.status} ${text.slice(0, 120)}`, text };
        return { status: `${res.status}`, text };
      } catch (e) {
        if (c.abortAfterMs && (e as Error).name === 'TimeoutError') return { status: 'gave up', text: '' };
        return { status: `network error: ${String((e as Error).cause ?? e).slice(0, 200)}`, text: '' };
      }
    }),
  );
}

export function summarise(statuses: string[]): string {
  const counts = new Map<string, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  return [...counts].map(([s, n]) => (n > 1 ? `${n} × ${s}` : s)).join(', ');
}

/** The slowest sample, and the slowest tools/list. */
export function worstOf(samples: Sample[]): { worst: Sample; worstList: number } {
  const worst = samples.reduce((w, s) => (s.ms > w.ms ? s : w), { ms: 0, what: '', during: '' });
  const worstList = samples.filter((s) => s.what === 'tools/list').reduce((w, s) => Math.max(w, s.ms), 0);
  return { worst, worstList };
}

/**
 * A key of the hostile tenant's own in a worker's state directory: its per-key caps (calls and executes at once) are
 * then not the well-behaved client's, which uses the operator's key, as two customers would.
 */
export async function hostileKey(state: string): Promise<Record<string, string>> {
  const made = await keysCli(['create', '--persist-to', state, '--name', 'Hostile Co']);
  const key = /^key: (mcp_test_[A-Za-z0-9]{40})$/m.exec(made.stdout)?.[1];
  if (!key) throw new Error(`keys create: ${made.stderr}`);
  return { authorization: `Bearer ${key}` };
}
