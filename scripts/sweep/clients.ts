// The two strict clients the sweep drives, and the classification of each call.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import type { JsonSchema } from '../../src/catalogue/types.ts';
import { freshSocketFetch } from '../lib/fresh-socket-fetch.ts';
import { besideData, typeDriftLeft } from './type-drift.ts';

export type CallClass = 'ok' | 'type_drift' | 'upstream_error' | 'invalid_arguments' | 'schema_mismatch' | 'error_on_2xx' | 'protocol_error' | 'transport_failure';
export const CLASSES: CallClass[] = ['ok', 'type_drift', 'upstream_error', 'invalid_arguments', 'schema_mismatch', 'error_on_2xx', 'protocol_error', 'transport_failure'];
export type ClientName = 'v1' | 'v2';

/** Server-side check in tool execution (src/upstream/response.ts SCHEMA_MISMATCH_MESSAGE). */
const SERVER_MISMATCH = 'did not match the declared output schema';
/** Client-side check (both SDKs): -32602 with this prefix. */
const CLIENT_MISMATCH = 'Structured content does not match';

/**
 * isError texts for calls the upstream did not answer with a success (src/upstream/errors.ts and upstream-call.ts): an HTTP
 * error status, no answer, a redirect that was not followed, or a body over the size limit. Every other isError that
 * is neither an argument error nor a schema mismatch came from a 2xx, and the sweep fails on it.
 */
const UPSTREAM_FAILURE = [
  /^Upstream error: HTTP [1-5]\d\d\b/,
  /^Could not reach the upstream /,
  /^The upstream did not answer .* within \d+ ms/,
  /^The connection to the upstream failed while reading/,
  /^The call to .* was cancelled\./,
  /^The upstream redirected /,
  /^The upstream answered .* with HTTP 3\d\d /,
  /^The upstream response to .* is larger than the \d+-byte limit/,
];

interface Classified {
  class: CallClass;
  /** Which side caught a schema mismatch. */
  side?: 'server' | 'client';
  detail?: string;
}

/** A tool entry as a client received it from tools/list. */
export interface ToolSeenByClient {
  name: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean };
}

export interface SweepClient {
  name: ClientName;
  /** Confirmations the server asked for (the v2 client declares elicitation and accepts each: docs/confirmation.md). */
  confirmations: number;
  listTools(): Promise<ToolSeenByClient[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

const TIMEOUT = 60_000;

// Both SDK clients page tools/list the same way; collect every page.
async function listAll(page: (cursor: string | undefined) => Promise<{ tools: unknown[]; nextCursor?: string }>): Promise<ToolSeenByClient[]> {
  const all: ToolSeenByClient[] = [];
  let cursor: string | undefined;
  do {
    const p = await page(cursor);
    all.push(...(p.tools as ToolSeenByClient[]));
    cursor = p.nextCursor;
  } while (cursor);
  return all;
}

export async function connectClient(name: ClientName, endpoint: string, key: string): Promise<SweepClient> {
  const headers = { Authorization: `Bearer ${key}` };
  if (name === 'v1') {
    const client = new ClientV1({ name: 'sweep-v1', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(endpoint), { requestInit: { headers }, fetch: freshSocketFetch }));
    return {
      name,
      confirmations: 0,
      listTools: () => listAll((cursor) => client.listTools(cursor ? { cursor } : undefined, { timeout: TIMEOUT })),
      callTool: (tool, args) => client.callTool({ name: tool, arguments: args }, undefined, { timeout: TIMEOUT }),
      close: () => client.close(),
    };
  }
  // The 2026-07-28 client can confirm: a destructive call is asked first (input_required), and the SDK retries it with
  // the person's answer, here always yes, so the call still runs and reaches the upstream.
  const client = new ClientV2({ name: 'sweep-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } } });
  const sc = { confirmations: 0 };
  client.setRequestHandler('elicitation/create', async () => {
    sc.confirmations++;
    return { action: 'accept', content: {} };
  });
  await client.connect(new TransportV2(new URL(endpoint), { requestInit: { headers }, fetch: freshSocketFetch }));
  return {
    name,
    get confirmations() {
      return sc.confirmations;
    },
    listTools: () => listAll((cursor) => client.listTools(cursor ? { cursor } : undefined, { timeout: TIMEOUT })),
    callTool: (tool, args) => client.callTool({ name: tool, arguments: args }, { timeout: TIMEOUT }),
    close: () => client.close(),
  };
}

function textOf(result: any): string {
  const blocks = Array.isArray(result?.content) ? result.content : [];
  return blocks
    .filter((b: any) => b?.type === 'text' && typeof b.text === 'string')
    .map((b: any) => b.text)
    .join('\n');
}

/**
 * `listed`: the outputSchema the client was shown. A body delivered beside it only because of a null or a numeric
 * string the spec does not allow (type-drift.ts) is `type_drift`, a success handled as designed.
 */
export function classifyResult(result: unknown, listed?: JsonSchema): Classified {
  const r = result as { isError?: boolean; structuredContent?: unknown } | undefined;
  if (!r || typeof r !== 'object') return { class: 'protocol_error', detail: 'result is not an object' };
  const text = textOf(r);
  // The server delivers a body its schema does not describe beside the empty result, with a note (not isError).
  if (text.includes(SERVER_MISMATCH)) {
    const beside = besideData(r.structuredContent);
    const left = !r.isError && listed && beside.found ? typeDriftLeft(listed, beside.data) : undefined;
    if (left && !left.length) return { class: 'type_drift', side: 'server', detail: text.slice(0, 400) };
    // What type drift does not explain comes first: the body itself is cut short.
    return { class: 'schema_mismatch', side: 'server', detail: `${left?.length ? `left after type drift: ${left.slice(0, 2).join('; ')} | ` : ''}${text}`.slice(0, 600) };
  }
  if (r.isError) {
    if (/^Invalid arguments for /.test(text)) return { class: 'invalid_arguments', detail: text.slice(0, 400) };
    if (UPSTREAM_FAILURE.some((re) => re.test(text))) return { class: 'upstream_error', detail: text.slice(0, 200) };
    // Anything else is an isError the worker made out of an upstream success (src/upstream/response.ts): a failure.
    return { class: 'error_on_2xx', detail: text.slice(0, 400) };
  }
  return { class: 'ok' };
}

export function classifyError(err: unknown): Classified {
  const e = err as { code?: unknown; message?: string; name?: string };
  const msg = String(e?.message ?? err);
  if (msg.includes(CLIENT_MISMATCH)) return { class: 'schema_mismatch', side: 'client', detail: msg.slice(0, 400) };
  const code = typeof e?.code === 'number' ? e.code : undefined;
  // Request timeouts (-32001) and HTTP-level failures are the transport's; other JSON-RPC codes are protocol errors.
  if (code === -32001 || /fetch failed|ECONNRE|socket|timed? ?out|HTTP \d{3}|Streamable HTTP/i.test(msg)) return { class: 'transport_failure', detail: msg.slice(0, 400) };
  if (code !== undefined && code <= -32000 && code >= -32768) return { class: 'protocol_error', detail: `${code} ${msg}`.slice(0, 400) };
  if (code !== undefined && code >= 100 && code < 600) return { class: 'transport_failure', detail: `HTTP ${code} ${msg}`.slice(0, 400) };
  return { class: 'protocol_error', detail: msg.slice(0, 400) };
}
