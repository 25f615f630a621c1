// Fast path: tools/list answered from a pre-serialised list instead of the SDK re-serialising it per call.
//
// Only plain, well-formed tools/list requests qualify (no cursor, no extra params, exact headers); anything else
// goes to the SDK. The bytes are built from a template per protocol era, and the template is proven against the
// SDK at run time: the first qualifying request per (view, era) is answered by the SDK, and the fast path is
// enabled for that (view, era) only if the SDK's status, headers and body equal the template's byte for byte.
// A mismatch (e.g. a new SDK version changing its envelope) disables the fast path for that key and is logged.
// A listing's very first request is left to the SDK alone: most one-off slices (any ?tools= list) are never asked
// for again, and their ready bytes would be built, proven and cached for nothing.
import { chargeSlice } from '../catalogue/slices.ts';
import { hybridListing } from '../discovery/hybrid.ts';
import { log } from '../lib/log.ts';
import { viewOf } from '../profiles/view.ts';
import { listingNotes } from '../tools/listing-notes.ts';
import type { RequestScope } from '../tools/scope.ts';
import { CACHE_HINTS, serverInfo, type ServerInfo } from './mcp-server.ts';
import { envelope, ERA_HEADERS, META_SERVER, plainRequest, sameHeaders, type Era } from './plain-request.ts';

/** The negotiated protocol version of a qualifying request; templates are per era, proofs per version. */
interface ReadyListKey {
  era: Era;
  version: string;
}

/** The era and version of a plain tools/list request the fast path may answer, or undefined (the SDK answers). */
export function readyListKey(req: Request, message: unknown): ReadyListKey | undefined {
  const plain = plainRequest(req, message, 'tools/list');
  // No cursor, no other params: the whole list in one answer.
  if (!plain || Object.keys(plain.params).length) return undefined;
  return { era: plain.era, version: plain.version };
}

interface Cached {
  /** UTF-8 of everything before the id, per era: encoded once, so a call only encodes the id and the tail. */
  head: Partial<Record<Era, Uint8Array<ArrayBuffer>>>;
  /** Per protocol version. */
  state: Record<string, 'verified' | 'failed'>;
}

// Keyed by the listing, itself a part of its slice: the bytes go when the slice leaves its bounded cache, and are
// charged to it (answerFromReadyBytes' `charge`).
const cache = new WeakMap<object, Cached>();

/** Everything before the JSON-RPC id in the SDK's answer to a plain tools/list request. */
function fastHead(era: Era, toolsJson: string, server: ServerInfo): string {
  const hints = CACHE_HINTS['tools/list'];
  const tail = era === '2025' ? '' : `,"resultType":"complete","ttlMs":${hints.ttlMs},"cacheScope":${JSON.stringify(hints.cacheScope)},"_meta":${JSON.stringify({ [META_SERVER]: server })}`;
  const whole = envelope(era, `{"tools":${toolsJson}${tail}}`, 0);
  return whole.slice(0, whole.lastIndexOf('"id":') + 5);
}

/** The exact response the SDK gives to a plain tools/list request: head bytes, then the id and the closing bytes. */
function fastResponse(era: Era, head: Uint8Array, id: string | number): Response {
  const end = era === '2025' ? `${JSON.stringify(id)}}\n\n` : `${JSON.stringify(id)}}`;
  return new Response(new Blob([head as Uint8Array<ArrayBuffer>, end]), { status: 200, headers: ERA_HEADERS[era] });
}

/** The dispatcher's fast path (src/protocol/dispatch.ts): a plain tools/list in tools or hybrid mode, from ready bytes. */
export function readyToolsList(scope: RequestScope, req: Request, message: unknown, viaSdk: () => Promise<Response>): Promise<Response> | undefined {
  if (scope.mode !== 'tools' && scope.mode !== 'hybrid') return undefined;
  const key = readyListKey(req, message);
  if (!key) return undefined;
  // The listing object the SDK's server lists from (src/tools/surface.ts, src/discovery/hybrid.ts) is the proof's cache key.
  const list = scope.mode === 'hybrid' ? hybridListing(scope.catalogue, scope.slice, scope.profile, listingNotes(scope)) : viewOf(scope.catalogue, scope.slice, scope.profile, listingNotes(scope));
  return answerFromReadyBytes(key, (message as { id: string | number }).id, list, serverInfo(scope.catalogue), viaSdk, (bytes) => chargeSlice(scope.slice, bytes));
}

/**
 * Answers a plain tools/list for `list` (an object whose identity is the cache key, e.g. a profile view) from ready
 * bytes once they are proven equal to the SDK's answer; until then, and after a mismatch, the SDK answers.
 */
export async function answerFromReadyBytes(key: ReadyListKey, id: string | number, list: { tools: unknown[] }, server: ServerInfo, viaSdk: () => Promise<Response>, charge?: (bytes: number) => void): Promise<Response> {
  const { era, version } = key;
  const entry = cache.get(list);
  if (!entry) {
    cache.set(list, { state: {}, head: {} });
    return viaSdk();
  }
  const state = entry.state[version];
  if (state === 'failed') return viaSdk();
  let head = entry.head[era];
  if (!head) {
    // The tools' JSON is not kept: at most two heads are ever built from it, and it would double what a list holds.
    head = entry.head[era] = new TextEncoder().encode(fastHead(era, JSON.stringify(list.tools), server)) as Uint8Array<ArrayBuffer>;
    charge?.(head.byteLength);
  }
  const fast = fastResponse(era, head, id);
  if (state === 'verified') return fast;
  // First request for this (list, version): the SDK answers it, and its bytes decide whether the template is exact.
  const real = await viaSdk();
  const [a, b] = await Promise.all([real.clone().text(), fast.text()]);
  const same = real.status === 200 && a === b && sameHeaders(real.headers, fast.headers);
  entry.state[version] = same ? 'verified' : 'failed';
  if (!same) log('tools_list_fast_path_disabled', { version, status: real.status, bytes: [a.length, b.length] });
  return real;
}

/** Whether ready bytes are proven (or refused) for `list` in a protocol version. */
export function readyListState(list: object, version: string): 'verified' | 'failed' | undefined {
  return cache.get(list)?.state[version];
}
