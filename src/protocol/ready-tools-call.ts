// Fast path: a plain tools/call answered without the SDK's per-request Server, transport and JSON-RPC schemas, which
// cost more CPU than the rest of the call (docs/benchmarks.md, per-call CPU).
//
// The tool runs exactly once, through the tools surface and callTool (src/tools/call.ts), whichever path answers:
// metering, redaction and logging stay in that one function. The fast path only writes that result in the era's
// envelope, and that writing is proven against the SDK at run time: per (view, tool, protocol version, result shape)
// the first answer comes from the SDK, handed the outcome the fast path already has (AnsweredCall in
// src/protocol/mcp-server.ts), and the fast bytes are used for later calls only once they matched the SDK's status,
// headers and body byte for byte. A mismatch disables that key and is logged. Unknown tools, invalid params, _meta
// (progress tokens) and anything else not plain are answered by the SDK.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { chargeSlice } from '../catalogue/slices.ts';
import { log } from '../lib/log.ts';
import { contentOnly } from '../profiles/profiles.ts';
import { viewOf, type ProfileView } from '../profiles/view.ts';
import type { RequestScope } from '../tools/scope.ts';
import { toolsSurface, type SurfaceResult } from '../tools/surface.ts';
import { serverInfo, type ViaSdk } from './mcp-server.ts';
import { envelope, ERA_HEADERS, isObj, META_SERVER, plainRequest, sameHeaders, type Era, type PlainRequest } from './plain-request.ts';

type State = 'verified' | 'failed';

// Per profile view: "<tool> <version> <shape>" -> proof state. The view is a part of its slice, so the proofs go
// when the slice leaves its bounded cache; within a view, shapes come from upstream answers, hence a cap too.
const proofs = new WeakMap<ProfileView, Map<string, State>>();
const MAX_PROOFS_PER_VIEW = 2048;

/** The dispatcher's fast path (src/protocol/dispatch.ts): a plain tools/call in tools mode of a tool in the slice. */
export function readyToolsCall(scope: RequestScope, req: Request, message: unknown, viaSdk: ViaSdk): Promise<Response> | undefined {
  if (scope.mode !== 'tools') return undefined;
  const plain = plainRequest(req, message, 'tools/call');
  if (!plain) return undefined;
  const { name, arguments: args, ...rest } = plain.params;
  if (typeof name !== 'string' || Object.keys(rest).length || (args !== undefined && !isObj(args))) return undefined;
  if (plain.era === '2026' && req.headers.get('mcp-name') !== name) return undefined;
  const view = viewOf(scope.catalogue, scope.slice, scope.profile);
  const tool = view.resolve(name);
  // Unknown or outside the slice: the SDK answers with its own -32602.
  if (tool === undefined) return undefined;
  return answer(scope, view, tool, plain, name, args ?? {}, viaSdk);
}

async function answer(scope: RequestScope, view: ProfileView, tool: number, plain: PlainRequest, name: string, args: Record<string, unknown>, viaSdk: ViaSdk): Promise<Response> {
  const outcome = toolsSurface(scope).call(name, args);
  let out: SurfaceResult;
  try {
    out = await outcome;
  } catch {
    // The SDK turns the failure into its JSON-RPC error, from the same outcome (the tool is not run again).
    return viaSdk({ name, outcome });
  }
  const result = wireResult(scope, plain.era, out);
  if (!result) return viaSdk({ name, outcome });
  const key = `${tool} ${plain.version} ${shapeOf(result)}`;
  let states = proofs.get(view);
  if (!states) proofs.set(view, (states = new Map()));
  const state = states.get(key);
  if (state === 'failed') return viaSdk({ name, outcome });
  const json = JSON.stringify(plain.era === '2026' ? { ...result, resultType: 'complete', _meta: { [META_SERVER]: serverInfo(scope.catalogue) } } : result);
  const fast = new Response(envelope(plain.era, json, plain.id), { status: 200, headers: ERA_HEADERS[plain.era] });
  if (state === 'verified') return fast;
  // First answer for this key: the SDK's, and its bytes decide whether the fast path may answer the next ones.
  const real = await viaSdk({ name, outcome });
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
 * The result as the SDK's tools/call handler (src/protocol/mcp-server.ts) hands it to the era's codec, or undefined
 * when the codec's SEP-2106 projection would change it (a non-object structuredContent, or in the 2025 era an
 * outputSchema whose root is not an object): those the SDK answers. Object results pass that projection unchanged.
 */
function wireResult(scope: RequestScope, era: Era, out: SurfaceResult): CallToolResult | undefined {
  if (scope.profile.carry === 'content') return contentOnly(out.result);
  const { result } = out;
  if (result.structuredContent !== undefined && !isObj(result.structuredContent)) return undefined;
  const schema = out.shape?.outputSchema;
  if (era === '2025' && schema !== undefined && schema.type !== 'object') return undefined;
  if ('_meta' in result || 'resultType' in result) return undefined;
  return result;
}

/** What the SDK's serialisation could depend on: the result's members and each content block's member layout. */
function shapeOf(result: CallToolResult): string {
  const block = (b: unknown): string =>
    isObj(b) ? Object.keys(b).map((k) => (k === 'type' ? `type=${String(b.type)}` : isObj(b[k]) ? `${k}{${Object.keys(b[k] as object).join(',')}}` : k)).join(',') : typeof b;
  const content = Array.isArray(result.content) ? result.content.map(block).join(';') : typeof result.content;
  return `${Object.keys(result).join(',')}|${content}|${String(result.isError)}`;
}

/** Proof states of one tool's fast answers in a view, by "<version> <shape>" (for tests and /admin). */
export function readyCallStates(view: ProfileView, tool: number): Record<string, State> {
  const out: Record<string, State> = {};
  for (const [key, state] of proofs.get(view) ?? []) {
    const [t, ...rest] = key.split(' ');
    if (Number(t) === tool) out[rest.join(' ')] = state;
  }
  return out;
}
