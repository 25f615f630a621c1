// A JSON-RPC batch served as the separate requests it stands for. Each message counts against the key's rate limit
// (the HTTP request paid for the first; the rest are charged here in one round trip), a message over the limit is
// refused on its own with the words of the HTTP 429, and at most BATCH_CONCURRENCY messages run at once, each as a
// batch of one through the SDK, so every cap a single request meets (code mode's per-key executes among them) holds
// per message. Without this a POST of 100 tools/call ran 100 upstream calls at once for the price of one.
import { isInitializeRequest, isJSONRPCRequest, parseJSONRPCMessage, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { rateLimitText } from '../auth/rate-limit.ts';
import { log } from '../lib/log.ts';

/** How many messages of one batch run at once: enough to overlap upstream latency, too few to flood it. */
export const BATCH_CONCURRENCY = 4;
/** The SDK's own bound on a batch (it answers a longer one with -32600 before running anything). */
const MAX_BATCH = 100;

/** What the key's limiter allowed of `count` further messages, and the window a refusal names. */
export interface BatchCharge {
  granted: number;
  limit: number;
  period: string;
  resetSeconds: number;
}

/** Charges `count` messages beyond the HTTP request's own; undefined when the key has no limit (or it failed open). */
export type ChargeMessages = (count: number) => Promise<BatchCharge | undefined>;

/** Runs some messages through the SDK as one batch, as the single-request path would. */
export type RunMessages = (messages: unknown[]) => Promise<Response>;

/** The batches this module serves: 2..100 valid messages, no initialize (the SDK refuses those whole, as before). */
export function servedBatch(message: unknown): JSONRPCMessage[] | undefined {
  if (!Array.isArray(message) || message.length < 2 || message.length > MAX_BATCH) return undefined;
  const parsed: JSONRPCMessage[] = [];
  for (const m of message) {
    try {
      parsed.push(parseJSONRPCMessage(m));
    } catch {
      return undefined;
    }
  }
  return parsed.some((m) => isInitializeRequest(m)) ? undefined : parsed;
}

export async function serveBatch(messages: JSONRPCMessage[], charge: ChargeMessages | undefined, run: RunMessages, signal?: AbortSignal): Promise<Response> {
  const decision = charge ? await charge(messages.length - 1) : undefined;
  const allowed = decision ? 1 + decision.granted : messages.length;
  // The first message runs alone: a refusal of the whole request (Accept, protocol version) comes back from it as it
  // would for the batch, and is answered as such.
  const first = await run([messages[0]]);
  if (first.status !== 200 && first.status !== 202) return first;
  const refused = messages.slice(allowed).filter(isJSONRPCRequest);
  const rest = messages.slice(1, allowed);
  if (!messages.some(isJSONRPCRequest)) {
    await drain(rest, run, () => signal?.aborted === true, () => {});
    return new Response(null, { status: 202 });
  }
  const encoder = new TextEncoder();
  let cancelled = false;
  const stopped = () => cancelled || signal?.aborted === true;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const write = (text: string) => {
        if (text && !cancelled) controller.enqueue(encoder.encode(text));
      };
      try {
        for (const m of refused) write(event({ jsonrpc: '2.0', id: m.id, error: rateLimitError(decision!) }));
        write(await eventsOf(first, messages[0]!));
        await drain(rest, run, stopped, write);
      } catch (e) {
        log('mcp_error', { error: e instanceof Error ? e.message : 'error', batch: true });
      } finally {
        if (!cancelled) controller.close();
      }
    },
    cancel() {
      cancelled = true;
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' } });
}

/** The JSON-RPC form of the HTTP 429 a single over-limit request gets: the same words, and its fields as data. */
export function rateLimitError(d: BatchCharge): { code: number; message: string; data: Record<string, unknown> } {
  return { code: -32000, message: rateLimitText(d.limit, d.period, d.resetSeconds), data: { status: 429, error: 'rate_limited', retry_after: d.resetSeconds, limit: d.limit } };
}

/** Runs messages with at most BATCH_CONCURRENCY in flight, writing each answer whole as it comes; stops when the client goes. */
async function drain(rest: JSONRPCMessage[], run: RunMessages, stopped: () => boolean, write: (text: string) => void): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < rest.length && !stopped()) {
      const m = rest[next++]!;
      let answer: string;
      try {
        answer = await eventsOf(await run([m]), m);
      } catch {
        answer = isJSONRPCRequest(m) ? event({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message: 'Internal error' } }) : '';
      }
      write(answer);
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, rest.length) }, worker));
}

/**
 * One message's answer as SSE events: the SDK's stream as it is, a JSON answer turned into events, nothing for an
 * accepted notification. An error the SDK gave without an id (a refusal of that request) gets the message's id.
 */
async function eventsOf(res: Response, message: JSONRPCMessage): Promise<string> {
  if (res.status === 202 || !res.body) return '';
  const text = await res.text();
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return '';
  }
  const id = isJSONRPCRequest(message) ? message.id : undefined;
  if (id === undefined) return '';
  return (Array.isArray(parsed) ? parsed : [parsed]).map((r) => event(r && typeof r === 'object' && (r as { id?: unknown }).id == null ? { ...r, id } : r)).join('');
}

function event(message: unknown): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}
