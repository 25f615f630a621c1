// Fast path: a plain tools/call answered without the SDK's per-request Server, transport and JSON-RPC schemas, which
// cost more CPU than the rest of the call (docs/benchmarks.md, per-call CPU).
//
// The tool runs exactly once, through the scope's surface and callTool (src/tools/call.ts), whichever path answers:
// metering, redaction and logging stay in that one function. The fast path only writes that result in the era's
// envelope, reusing the JSON callTool serialised, and that writing is proven against the SDK at run time: per
// (listing, tool, protocol version, result shape) the first answer comes from the SDK, handed the answer the fast path
// already has (AnsweredCall in src/protocol/mcp-server.ts), and the fast bytes are used for later calls only once they
// matched the SDK's status, headers and body byte for byte. A mismatch disables that key and is logged. Unknown
// tools, invalid params, _meta (progress tokens) and anything else not plain are answered by the SDK.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { chargeSlice } from '../catalogue/slices.ts';
import { hybridListing } from '../discovery/hybrid.ts';
import { log } from '../lib/log.ts';
import { contentOnly } from '../profiles/profiles.ts';
import { viewOf } from '../profiles/view.ts';
import { needsConfirmation } from '../tools/confirm.ts';
import { listingNotes } from '../tools/listing-notes.ts';
import type { RequestScope } from '../tools/scope.ts';
import type { ToolAnswer } from '../tools/surface.ts';
import { fitted, serverInfo, surfaceOf, type ViaSdk } from './mcp-server.ts';
import { envelope, ERA_HEADERS, isObj, META_SERVER, plainRequest, sameHeaders, type Era, type PlainRequest } from './plain-request.ts';

type State = 'verified' | 'failed';

// Per listing (a profile view, or a hybrid listing): "<tool> <version> <shape>" -> proof state. A listing is a part of
// its slice, so the proofs go when the slice leaves its bounded cache; within a listing, shapes come from upstream
// answers, hence a cap too.
const proofs = new WeakMap<object, Map<string, State>>();
const MAX_PROOFS_PER_VIEW = 2048;

/** The dispatcher's fast path (src/protocol/dispatch.ts): a plain tools/call in tools or hybrid mode. */
export function readyToolsCall(scope: RequestScope, req: Request, message: unknown, viaSdk: ViaSdk): Promise<Response> | undefined {
  if (scope.mode !== 'tools' && scope.mode !== 'hybrid') return undefined;
  const plain = plainRequest(req, message, 'tools/call');
  if (!plain) return undefined;
  const { name, arguments: args, ...rest } = plain.params;
  if (typeof name !== 'string' || Object.keys(rest).length || (args !== undefined && !isObj(args))) return undefined;
  if (plain.era === '2026' && req.headers.get('mcp-name') !== name) return undefined;
  // A client that can confirm may be asked first (src/tools/confirm.ts): the SDK's path carries its capabilities.
  if (plain.canElicit && mayAsk(scope, name)) return undefined;
  // The listing the client was served is the proof's key: the same tool may be answered differently in another.
  const listing = scope.mode === 'hybrid' ? hybridListing(scope.catalogue, scope.slice, scope.profile, listingNotes(scope)) : viewOf(scope.catalogue, scope.slice, scope.profile, listingNotes(scope));
  return answer(scope, listing, plain, name, args ?? {}, viaSdk);
}

/**
 * Whether a call of `name` may need the person's confirmation (a sharded catalogue's tool may not be at hand: yes).
 * A name that is no catalogue tool may be a hybrid list's call_tool, which runs whatever tool it names: yes too.
 */
function mayAsk(scope: RequestScope, name: string): boolean {
  const i = scope.catalogue.indexOf(name);
  if (i === undefined) return true;
  return scope.catalogue.sharded || needsConfirmation(scope.catalogue.tool(i), scope.config.confirm);
}

async function answer(scope: RequestScope, listing: object, plain: PlainRequest, name: string, args: Record<string, unknown>, viaSdk: ViaSdk): Promise<Response> {
  const pending = surfaceOf(scope).call(name, args);
  let out: ToolAnswer;
  try {
    out = await pending;
  } catch {
    // Unknown tools and failures: the SDK answers with its JSON-RPC error, from the same answer (nothing runs again).
    return viaSdk({ name, answer: pending });
  }
  const wire = wireJson(scope, plain.era, fitted(scope, out));
  if (!wire) return viaSdk({ name, answer: pending });
  const key = `${name} ${plain.version} ${wire.shape}`;
  let states = proofs.get(listing);
  if (!states) proofs.set(listing, (states = new Map()));
  const state = states.get(key);
  if (state === 'failed') return viaSdk({ name, answer: pending });
  const fast = new Response(envelope(plain.era, wire.json, plain.id), { status: 200, headers: ERA_HEADERS[plain.era] });
  if (state === 'verified') return fast;
  // First answer for this key: the SDK's, and its bytes decide whether the fast path may answer the next ones.
  const real = await viaSdk({ name, answer: pending });
  // A client that went away proves nothing either way (the SDK answers it 499).
  if (scope.signal?.aborted) return real;
  const [a, b] = await Promise.all([real.clone().text(), fast.text()]);
  const same = real.status === 200 && a === b && sameHeaders(real.headers, fast.headers);
  if (states.size < MAX_PROOFS_PER_VIEW) {
    states.set(key, same ? 'verified' : 'failed');
    chargeSlice(scope.slice, 64 + 2 * key.length);
  }
  if (!same) log('tools_call_fast_path_disabled', { tool: name, version: plain.version, status: real.status, bytes: [a.length, b.length] });
  return real;
}

/**
 * The result's JSON as the SDK's tools/call handler (src/protocol/mcp-server.ts) and the era's codec would write it,
 * reusing the JSON callTool serialised; undefined when the codec's SEP-2106 projection would change the result (a
 * non-object structuredContent, or in the 2025 era an outputSchema whose root is not an object): those the SDK answers.
 */
function wireJson(scope: RequestScope, era: Era, out: ToolAnswer): { json: string; shape: string } | undefined {
  let { result, json } = out;
  if (scope.profile.carry === 'content') {
    const stripped = contentOnly(result);
    if (stripped !== result) [result, json] = [stripped, undefined];
  }
  if (result.structuredContent !== undefined && !isObj(result.structuredContent)) return undefined;
  const schema = out.shape?.outputSchema;
  if (era === '2025' && schema !== undefined && schema.type !== 'object') return undefined;
  if ('_meta' in result || 'resultType' in result) return undefined;
  json ??= JSON.stringify(result);
  if (era === '2026') json = `${json.slice(0, -1)},"resultType":"complete","_meta":${serverMetaJson(scope)}}`;
  return { json, shape: shapeOf(result) };
}

/** The 2026-07-28 result's `_meta` (the server's identity), serialised once per served catalogue. */
const serverMeta = { catalogue: undefined as object | undefined, json: '' };
function serverMetaJson(scope: RequestScope): string {
  if (serverMeta.catalogue !== scope.catalogue.catalogue) [serverMeta.catalogue, serverMeta.json] = [scope.catalogue.catalogue, JSON.stringify({ [META_SERVER]: serverInfo(scope.catalogue) })];
  return serverMeta.json;
}

/** What the SDK's serialisation could depend on: the result's members and each content block's member layout. */
function shapeOf(result: CallToolResult): string {
  const block = (b: unknown): string =>
    isObj(b) ? Object.keys(b).map((k) => (k === 'type' ? `type=${String(b.type)}` : isObj(b[k]) ? `${k}{${Object.keys(b[k] as object).join(',')}}` : k)).join(',') : typeof b;
  const content = Array.isArray(result.content) ? result.content.map(block).join(';') : typeof result.content;
  return `${Object.keys(result).join(',')}|${content}|${String(result.isError)}`;
}

/** Proof states of one tool's fast answers in a listing (a profile view or hybrid listing), by "<version> <shape>" (for tests). */
export function readyCallStates(listing: object, tool: string): Record<string, State> {
  const out: Record<string, State> = {};
  for (const [key, state] of proofs.get(listing) ?? []) {
    const [t, ...rest] = key.split(' ');
    if (t === tool) out[rest.join(' ')] = state;
  }
  return out;
}
